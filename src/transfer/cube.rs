//! CubeCL tensors (`CubeTensor<R>`, the primitive of `CubeBackend<R>` and
//! what fusion's handles hold): the buffer is copied as it is and comes back
//! as a new buffer with the same shape, strides and dtype.
//!
//! On CUDA the copy is the asynchronous pinned engine of [`super::cuda`];
//! on other runtimes (wgpu) it is CubeCL's own read of the whole buffer and
//! a new buffer made from those bytes, both synchronous. With a codec
//! (feature `compression`) the buffer is compressed on the device first and
//! only the compressed words cross (see [`super::packed`]).

use std::any::Any;

use burn_backend::DType;
use burn_cubecl::tensor::CubeTensor;
use burn_cubecl::CubeRuntime;
use burn_std::Metadata;
use cubecl::client::ComputeClient;

#[cfg(feature = "cuda")]
use super::cast;
use super::{DeviceCopy, DeviceLoad, PinnedLimits, TransferError, ZeroCounter};
use crate::policy::Codec;

/// A CubeCL buffer on the host.
pub(crate) enum CubeCopy<R: CubeRuntime> {
    /// Read by CubeCL, synchronously.
    Read(ReadCopy<R>),
    /// Compressed on the device, then read by CubeCL.
    #[cfg(feature = "compression")]
    ReadPacked(ReadCopy<R>),
    /// In the CUDA engine's pinned pool (possibly still being copied).
    #[cfg(feature = "cuda")]
    Cuda(super::cuda::CudaCopy),
}

/// A buffer's bytes and the layout to rebuild it with.
pub(crate) struct ReadCopy<R: CubeRuntime> {
    bytes: Vec<u8>,
    meta: Metadata,
    dtype: DType,
    device: R::Device,
    client: ComputeClient<R>,
}

/// A CubeCL buffer on its way back.
pub(crate) enum CubeLoad<R: CubeRuntime> {
    Ready(CubeTensor<R>),
    #[cfg(feature = "cuda")]
    Cuda(super::cuda::PendingLoad),
}

/// Copies a CubeCL tensor to the host (CUDA: starts the copy), compressed
/// with `codec` on the device first if one is given (feature
/// `compression`), else its zeros counted with `zeros` once on the host.
/// On failure the tensor comes back untouched.
#[allow(clippy::result_large_err)] // the tensor itself comes back on failure
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
pub(crate) fn offload<R: CubeRuntime>(
    tensor: CubeTensor<R>,
    pinned: &PinnedLimits,
    codec: Option<Codec>,
    zeros: Option<ZeroCounter>,
) -> Result<CubeCopy<R>, (TransferError, CubeTensor<R>)> {
    #[cfg(feature = "cuda")]
    let tensor = match as_cuda(tensor) {
        Ok(cuda) => {
            return super::cuda::offload(cuda, pinned, codec, zeros)
                .map(CubeCopy::Cuda)
                .map_err(|(err, back)| (err, from_cuda(back)));
        }
        Err(tensor) => tensor,
    };
    if tensor.qparams.is_some() {
        let err = TransferError::Unsupported(format!("{:?}", tensor.dtype));
        return Err((err, tensor));
    }
    #[cfg(feature = "compression")]
    if let Some(codec) = codec {
        return super::compressed_or_plain(
            tensor,
            |tensor| read_packed(tensor, codec),
            |tensor| read_plain(tensor, None),
        );
    }
    read_plain(tensor, zeros)
}

/// Reads `tensor`'s buffer as it is.
#[allow(clippy::result_large_err)] // as `offload`
fn read_plain<R: CubeRuntime>(
    tensor: CubeTensor<R>,
    zeros: Option<ZeroCounter>,
) -> Result<CubeCopy<R>, (TransferError, CubeTensor<R>)> {
    match tensor.client.read_one(tensor.handle.clone()) {
        Ok(bytes) => {
            if let Some(zeros) = zeros {
                zeros.count(&bytes, tensor.dtype.size());
            }
            Ok(CubeCopy::Read(ReadCopy {
                bytes: bytes.to_vec(),
                meta: (*tensor.meta).clone(),
                dtype: tensor.dtype,
                device: tensor.device.clone(),
                client: tensor.client.clone(),
            }))
        }
        Err(err) => Err((TransferError::Engine(format!("{err:?}")), tensor)),
    }
}

#[cfg(feature = "cuda")]
#[allow(clippy::result_large_err)]
fn as_cuda<R: CubeRuntime>(
    tensor: CubeTensor<R>,
) -> Result<super::cuda::CubePrimitive, CubeTensor<R>> {
    if (&tensor as &dyn Any).is::<super::cuda::CubePrimitive>() {
        Ok(cast(tensor).expect("type checked"))
    } else {
        Err(tensor)
    }
}

#[cfg(feature = "cuda")]
fn from_cuda<R: CubeRuntime>(tensor: super::cuda::CubePrimitive) -> CubeTensor<R> {
    cast(tensor).expect("a CUDA copy is only made from a CUDA tensor")
}

/// Compresses `tensor` on the device and reads the compressed words.
#[cfg(feature = "compression")]
#[allow(clippy::result_large_err)] // the tensor itself comes back on failure
fn read_packed<R: CubeRuntime>(
    tensor: CubeTensor<R>,
    codec: Codec,
) -> Result<CubeCopy<R>, (TransferError, CubeTensor<R>)> {
    let words = super::packed::compress(&tensor, codec).and_then(|comp| {
        comp.to_host(&tensor.client)
            .map_err(|err| TransferError::Compress(err.to_string()))
    });
    match words {
        Ok(words) => {
            super::count_compressed(tensor.handle.size_in_used(), words.len() as u64 * 4);
            Ok(CubeCopy::ReadPacked(ReadCopy {
                bytes: cube_kernels::format::words_to_bytes(&words),
                meta: (*tensor.meta).clone(),
                dtype: tensor.dtype,
                device: tensor.device.clone(),
                client: tensor.client.clone(),
            }))
        }
        Err(err) => Err((err, tensor)),
    }
}

impl<R: CubeRuntime> ReadCopy<R> {
    fn load(self) -> CubeTensor<R> {
        let handle = self.client.create_from_slice(&self.bytes);
        CubeTensor::new(self.client, handle, self.meta, self.device, self.dtype)
    }

    /// Uploads the compressed words and decompresses them on the device,
    /// checked at once (this path is synchronous anyway).
    #[cfg(feature = "compression")]
    fn load_packed(self) -> CubeTensor<R> {
        let header = cube_kernels::format::bytes_to_words(&self.bytes)
            .and_then(|words| super::packed::check_host_copy(&words));
        let comp = self.client.create_from_slice(&self.bytes);
        let handle = super::packed::decompress_checked(&self.client, &comp, header);
        CubeTensor::new(self.client, handle, self.meta, self.device, self.dtype)
    }
}

impl<R: CubeRuntime> CubeCopy<R> {
    /// Starts bringing the buffer back.
    pub(crate) fn prefetch(self) -> CubeLoad<R> {
        match self {
            CubeCopy::Read(copy) => CubeLoad::Ready(copy.load()),
            #[cfg(feature = "compression")]
            CubeCopy::ReadPacked(copy) => CubeLoad::Ready(copy.load_packed()),
            #[cfg(feature = "cuda")]
            CubeCopy::Cuda(copy) => match super::cuda::prefetch(copy) {
                Ok(pending) => CubeLoad::Cuda(pending),
                Err(back) => CubeLoad::Ready(from_cuda(back)),
            },
        }
    }

    /// The buffer back on the device now.
    pub(crate) fn load(self) -> CubeTensor<R> {
        self.prefetch().collect()
    }

    pub(crate) fn in_flight(&self) -> bool {
        match self {
            CubeCopy::Read(_) => false,
            #[cfg(feature = "compression")]
            CubeCopy::ReadPacked(_) => false,
            #[cfg(feature = "cuda")]
            CubeCopy::Cuda(copy) => copy.in_flight(),
        }
    }

    pub(crate) fn wait(&self) {
        #[cfg(feature = "cuda")]
        if let CubeCopy::Cuda(copy) = self {
            copy.wait();
        }
    }
}

impl<R: CubeRuntime> CubeLoad<R> {
    pub(crate) fn landed(&self) -> bool {
        match self {
            CubeLoad::Ready(_) => true,
            #[cfg(feature = "cuda")]
            CubeLoad::Cuda(pending) => pending.landed(),
        }
    }

    pub(crate) fn download_in_flight(&self) -> bool {
        match self {
            CubeLoad::Ready(_) => false,
            #[cfg(feature = "cuda")]
            CubeLoad::Cuda(pending) => pending.download_in_flight(),
        }
    }

    pub(crate) fn wait_downloaded(&self) {
        #[cfg(feature = "cuda")]
        if let CubeLoad::Cuda(pending) = self {
            pending.wait_downloaded();
        }
    }

    /// See [`DeviceLoad::held_bytes`].
    pub(crate) fn held_bytes(&self) -> Option<u64> {
        match self {
            CubeLoad::Ready(_) => None,
            #[cfg(feature = "cuda")]
            CubeLoad::Cuda(pending) => pending.held_bytes(),
        }
    }

    /// The tensor, waiting for its copy if needed.
    pub(crate) fn collect(self) -> CubeTensor<R> {
        match self {
            CubeLoad::Ready(tensor) => tensor,
            #[cfg(feature = "cuda")]
            CubeLoad::Cuda(pending) => from_cuda(super::cuda::finish(pending)),
        }
    }
}

impl<R: CubeRuntime> DeviceCopy for CubeCopy<R> {
    fn in_flight(&self) -> bool {
        CubeCopy::in_flight(self)
    }
    fn wait(&self) {
        CubeCopy::wait(self)
    }
    fn prefetch(self: Box<Self>) -> Box<dyn DeviceLoad> {
        Box::new(CubeCopy::prefetch(*self))
    }
    fn load(self: Box<Self>) -> Box<dyn Any + Send> {
        Box::new(CubeCopy::load(*self))
    }
}

impl<R: CubeRuntime> DeviceLoad for CubeLoad<R> {
    fn landed(&self) -> bool {
        CubeLoad::landed(self)
    }
    fn download_in_flight(&self) -> bool {
        CubeLoad::download_in_flight(self)
    }
    fn wait_downloaded(&self) {
        CubeLoad::wait_downloaded(self)
    }
    fn held_bytes(&self) -> Option<u64> {
        CubeLoad::held_bytes(self)
    }
    fn collect(self: Box<Self>) -> Box<dyn Any + Send> {
        Box::new(CubeLoad::collect(*self))
    }
}
