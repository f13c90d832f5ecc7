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

/// Burn makes parameters in the runtime's persistent allocation mode and
/// then puts the runtime back in its default mode; where burn-swap manages
/// the allocator ([`DeviceAllocator`](crate::DeviceAllocator)), it takes its
/// mode back. A thread that makes parameters is one that trains.
pub(crate) fn memory_persistent_allocations<
    B: Backend,
    Output: Send,
    Input: Send,
    Func: Fn(Input) -> Output + Send,
>(
    device: &B::Device,
    input: Input,
    func: Func,
) -> Output {
    let output = B::memory_persistent_allocations(device, input, func);
    crate::executor::with(|e| {
        e.trains_here();
        e.apply_allocator();
    });
    output
}
