//! Moving tensor data between the device and the host, bit for bit and
//! layout for layout.
//!
//! A tensor must come back exactly as it left: same bytes and same strides.
//! The backend's own read (`float_into_data`) returns contiguous data, and an
//! op on a transposed view and on its contiguous copy may take different
//! kernel paths that round differently, so each backend family whose
//! primitive exposes its layout gets an engine that copies the underlying
//! storage verbatim:
//! - [`flex`]: Flex tensors (storage bytes plus layout).
//!
//! Other backends use the generic path through `float_into_data` and
//! `float_from_data`: values are exact, the layout becomes contiguous.

mod flex;

use std::any::Any;

use burn_backend::{read_sync, Backend, ExecutionError, TensorData};
use burn_flex::FlexTensor;

/// A tensor's data while it is off the device.
pub(crate) enum HostCopy {
    /// Contiguous data from the backend's own read.
    Data(TensorData),
    /// A Flex tensor's storage and layout.
    Flex(flex::FlexCopy),
}

/// Why a transfer did not happen.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The backend failed to read the tensor.
    #[error("reading the tensor back from the device failed: {0:?}")]
    Read(ExecutionError),
}

/// Moves a value whose concrete type is known at run time only.
fn cast<T: 'static, U: 'static>(value: T) -> Option<U> {
    let mut slot = Some(value);
    (&mut slot as &mut dyn Any).downcast_mut::<Option<U>>().and_then(Option::take)
}

/// Copies a primitive to the host.
pub(crate) fn offload<B: Backend>(primitive: &B::FloatTensorPrimitive) -> Result<HostCopy, TransferError> {
    if let Some(flex) = (primitive as &dyn Any).downcast_ref::<FlexTensor>() {
        return Ok(HostCopy::Flex(flex::offload(flex)));
    }
    read_sync(B::float_into_data(primitive.clone())).map(HostCopy::Data).map_err(TransferError::Read)
}

/// Uploads a host copy back to `device`.
pub(crate) fn load<B: Backend>(host: HostCopy, device: &B::Device) -> B::FloatTensorPrimitive {
    match host {
        HostCopy::Data(data) => B::float_from_data(data, device),
        HostCopy::Flex(copy) => {
            cast(flex::load(copy)).expect("a Flex copy is only made from a Flex tensor")
        }
    }
}
