//! Compress-then-swap for CubeCL buffers: the codecs' kernels
//! (`cube_kernels`) run on the training thread's stream, so they see the
//! buffer after every kernel that wrote it and before any that reuses its
//! memory, and fusion, which never sees them, fuses exactly what it would
//! without burn-swap.
//!
//! A buffer is compressed whole, as the words it holds (two 16-bit elements
//! per word for f16 and bf16), so it comes back with the same bytes under
//! the same layout. The decoder's status words (structural checks and a
//! checksum of what it wrote) are read at the end of backward, not when
//! the tensor comes back (that read would wait for the compute stream):
//! a corrupt copy is an error before the iteration's gradients are
//! returned, never a silent difference.

use std::sync::Mutex;
use std::time::Instant;

use burn_backend::DType;
use burn_cubecl::tensor::CubeTensor;
use burn_cubecl::CubeRuntime;
use cube_kernels::{CodecError, Compressed, DecodeStatus, Decompressed, Header, LaunchConfig};
use cubecl::client::ComputeClient;
use cubecl::server::Handle;

use super::TransferError;
use crate::policy::Codec;

/// The kernels' element type and count covering a whole buffer of `bytes`
/// holding `dtype`, or `None` where the codecs have no such type.
fn kernel_layout(dtype: DType, bytes: u64) -> Option<(cube_kernels::DType, usize)> {
    let bytes = bytes as usize;
    match dtype {
        DType::F16 => Some((cube_kernels::DType::F16, bytes / 2)),
        DType::BF16 => Some((cube_kernels::DType::BF16, bytes / 2)),
        // Words as they are: only the zero pattern matters to the codecs.
        DType::F32 | DType::Flex32 | DType::F64 if bytes.is_multiple_of(4) => {
            Some((cube_kernels::DType::F32, bytes / 4))
        }
        _ => None,
    }
}

/// Queues the compression of `tensor`'s whole buffer with `codec` on the
/// calling thread's stream. The result's size is on the device.
pub(crate) fn compress<R: CubeRuntime>(
    tensor: &CubeTensor<R>,
    codec: Codec,
) -> Result<Compressed, TransferError> {
    if tensor.qparams.is_some() {
        return Err(TransferError::Unsupported(format!("{:?}", tensor.dtype)));
    }
    let bytes = tensor.handle.size_in_used();
    let (dtype, len) = kernel_layout(tensor.dtype, bytes).ok_or_else(|| {
        TransferError::Unsupported(format!("compressing {:?} of {bytes} B", tensor.dtype))
    })?;
    let kind = cube_kernels::calibrate::codec_kind(codec);
    let started = Instant::now();
    let config = LaunchConfig::default_on(&tensor.client, kind);
    let out = cube_kernels::compress(&tensor.client, kind, &tensor.handle, dtype, len, config)
        .map_err(|err| TransferError::Compress(err.to_string()));
    super::count_codec_queue(true, started.elapsed());
    out
}

/// The header of a compressed copy held in host memory, and its index
/// checked (every offset in range): what the decoder is launched with.
pub(crate) fn check_host_copy(words: &[u32]) -> Result<Header, CodecError> {
    cube_kernels::cpu::validate_index(words)
}

/// Queues the decompression of `comp` (a compressed copy on the device
/// whose header the host checked) on the calling thread's stream. Its data
/// must not be trusted before its status was checked ([`defer_check`] or
/// `Decompressed::check`).
pub(crate) fn decompress<R: CubeRuntime>(
    client: &ComputeClient<R>,
    comp: &Handle,
    header: &Header,
) -> Result<Decompressed, CodecError> {
    let started = Instant::now();
    let config = LaunchConfig::default_on(client, header.codec);
    let out = cube_kernels::decompress(client, comp, header, config);
    super::count_codec_queue(false, started.elapsed());
    out
}

/// Decompresses `comp` and checks the decoder's status at once (a read that
/// waits for the stream): for the paths that are synchronous anyway. A
/// corrupt copy stops the training thread.
pub(crate) fn decompress_checked<R: CubeRuntime>(
    client: &ComputeClient<R>,
    comp: &Handle,
    header: Result<Header, CodecError>,
) -> Handle {
    let out = header
        .and_then(|header| decompress(client, comp, &header))
        .and_then(|out| out.check(client).map(|()| out.handle));
    out.unwrap_or_else(|err| super::came_back_corrupt(err))
}

/// The header of a compressed copy still on the device (a download that
/// failed), read from there: a read that waits for the compute stream, on
/// a path taken only when a copy failed.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn device_header<R: CubeRuntime>(
    client: &ComputeClient<R>,
    comp: &Compressed,
) -> Result<Header, CodecError> {
    let words = comp.read_size(client)?;
    let header = comp.read_header(client)?;
    if header.total_words != words {
        return Err(CodecError::Corrupt("header size differs from the device's"));
    }
    Ok(header)
}

/// Decoders of one runtime whose status has not been read yet.
trait PendingChecks: Send {
    fn push(&mut self, out: DecodeStatus);
    /// Reads every status at once (one wait for the device) and checks
    /// them: how many were checked, and the failures.
    fn check(&mut self) -> (usize, Vec<CodecError>);
}

struct Checks<R: CubeRuntime> {
    client: ComputeClient<R>,
    outs: Vec<DecodeStatus>,
}

impl<R: CubeRuntime> PendingChecks for Checks<R> {
    fn push(&mut self, out: DecodeStatus) {
        self.outs.push(out);
    }
    fn check(&mut self) -> (usize, Vec<CodecError>) {
        let outs = std::mem::take(&mut self.outs);
        if outs.is_empty() {
            return (0, Vec::new());
        }
        let handles = outs.iter().map(|out| out.status.clone()).collect();
        let read = cubecl::future::block_on(self.client.read_async(handles));
        let failures = match read {
            Ok(statuses) => outs
                .iter()
                .zip(statuses)
                .filter_map(|(out, bytes)| {
                    cube_kernels::format::bytes_to_words(&bytes)
                        .and_then(|words| out.check_status(&words))
                        .err()
                })
                .collect(),
            Err(err) => vec![CodecError::Runtime(format!("{err:?}"))],
        };
        (outs.len(), failures)
    }
}

/// Per runtime type: the decoders to check.
static PENDING: Mutex<Vec<(std::any::TypeId, Box<dyn PendingChecks>)>> = Mutex::new(Vec::new());

/// Leaves the status check of `out` to the next [`check_unpacked`] and
/// returns its buffer. Only the status is held until then: the buffer goes
/// back as soon as its tensor dies.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn defer_check<R: CubeRuntime>(client: &ComputeClient<R>, out: Decompressed) -> Handle {
    let status = out.status();
    let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    let id = std::any::TypeId::of::<R>();
    if !pending.iter().any(|(of, _)| *of == id) {
        let checks = Checks::<R> {
            client: client.clone(),
            outs: Vec::new(),
        };
        pending.push((id, Box::new(checks)));
    }
    if let Some((_, checks)) = pending.iter_mut().find(|(of, _)| *of == id) {
        checks.push(status);
    }
    out.handle
}

/// Reads the status of every decoder run since the last call, one read per
/// runtime: `Err` says how many copies came back corrupt, and why.
pub(crate) fn check_unpacked() -> Result<(), String> {
    let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    let (mut checked, mut failures) = (0, Vec::new());
    for (_, checks) in pending.iter_mut() {
        let (n, failed) = checks.check();
        checked += n;
        failures.extend(failed);
    }
    match failures.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "{} of {checked} compressed tensors decompressed since the last check came back corrupt (first: {first})",
            failures.len()
        )),
    }
}

/// The bytes a compressed copy holds once decompressed.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn raw_bytes(comp: &Compressed) -> u64 {
    (comp.dtype.words(comp.len) * 4) as u64
}

/// Sizes the bitmap is timed at on the device when no codec model was
/// given: four to a factor of four apart, as the full calibration's knots
/// need, the largest 64 MiB (larger tensors are bound by bandwidth, which
/// the largest already is: 2.25 TB/s against 3.35 TB/s at 1 GB on an
/// H200, so larger ones are priced a little slow).
#[cfg(feature = "cuda")]
const BITMAP_TIMED_MIB: [usize; 4] = [1, 4, 16, 64];

/// The bitmap codec's time model on `client`'s device, from f32 and f16
/// tensors of zeros and ones of the sizes above that are at most
/// `largest_bytes` (at least three, else none), at 10%, 50% and 90%
/// zeros: 24 timings at most, short rounds, the untuned launch the
/// transfer engine makes.
#[cfg(feature = "cuda")]
pub(crate) fn time_bitmap<R: cubecl::Runtime>(
    client: &ComputeClient<R>,
    largest_bytes: u64,
) -> Result<burn_swap_plan::cost::CodecTimeModel, String> {
    use cube_kernels::calibrate::Calibration;
    let sizes: Vec<usize> = BITMAP_TIMED_MIB
        .iter()
        .map(|mib| mib << 20)
        .filter(|&bytes| bytes as u64 <= largest_bytes)
        .collect();
    if sizes.len() < 3 {
        return Err(format!(
            "{} B free for the timing's tensors: too little",
            largest_bytes
        ));
    }
    let calibration = Calibration {
        sizes,
        zero_fractions: vec![0.1, 0.5, 0.9],
        codecs: vec![cube_kernels::CodecKind::Bitmap],
        dtypes: vec![cube_kernels::DType::F32, cube_kernels::DType::F16],
        reps: 3,
        tuned: false,
        round: cube_kernels::tuner::Round::Search,
    };
    calibration
        .calibrate(client, &mut cube_kernels::Tuner::new(), |_, _| {})
        .map_err(|err| err.to_string())
}
