//! Moving tensor data between the device and the host.
//!
//! The generic path here goes through `B::float_into_data` and
//! `B::float_from_data`: correct on every backend, and as fast as the
//! backend's own read and upload. Faster engines for specific runtimes plug
//! in beside it.

use burn_backend::{read_sync, Backend, ExecutionError, TensorData};

/// A tensor's data while it is off the device.
pub(crate) enum HostCopy {
    /// Plain host memory, as the backend's own read produced it.
    Data(TensorData),
}

/// Why a transfer did not happen.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The backend failed to read the tensor.
    #[error("reading the tensor back from the device failed: {0:?}")]
    Read(ExecutionError),
}

/// Copies a primitive to the host.
pub(crate) fn offload<B: Backend>(primitive: B::FloatTensorPrimitive) -> Result<HostCopy, TransferError> {
    read_sync(B::float_into_data(primitive)).map(HostCopy::Data).map_err(TransferError::Read)
}

/// Uploads a host copy back to `device`, bit for bit.
pub(crate) fn load<B: Backend>(host: HostCopy, device: &B::Device) -> B::FloatTensorPrimitive {
    match host {
        HostCopy::Data(data) => B::float_from_data(data, device),
    }
}
