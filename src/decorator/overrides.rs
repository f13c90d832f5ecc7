//! The few `Swapping` methods that are not plain forwarding.

use burn_backend::Backend;

use crate::handle::SwapTensor;

/// The backend's name shows the decoration.
pub(crate) fn name<B: Backend>(device: &B::Device) -> String {
    format!("swapping<{}>", B::name(device))
}

/// Answered from the handle, so a tensor on the host is not brought back for it.
pub(crate) fn float_device<B: Backend>(tensor: &SwapTensor<B>) -> B::Device {
    tensor.device()
}
