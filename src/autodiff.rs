//! `SwapAutodiff<B>`: what users write instead of `Autodiff<B>`.
//!
//! It is `Autodiff<Swapping<B>>` with every method forwarded (generated in
//! `src/forwarding.rs`), except `backward`, which tells the executor where
//! the forward phase ends and where the iteration ends.
//!
//! Every forwarded op marks itself as a training op for its duration
//! (`TrainingOp`): the ops `Swapping` sees inside it belong to the training
//! iteration. Ops called on the inner backend directly (the optimizer step,
//! a validation pass on `model.valid()`, metrics) are not planned for.

use std::cell::Cell;
use std::marker::PhantomData;

use burn_autodiff::Autodiff;
use burn_backend::tensor::FloatTensor;
use burn_backend::{AutodiffBackend, Backend, BackendTypes};

use crate::decorator::Swapping;
use crate::executor;

/// The decorated autodiff backend that `SwapAutodiff` forwards to.
pub type Inner<B> = Autodiff<Swapping<B>>;

/// An autodiff backend whose saved activations burn-swap manages.
///
/// Replace `Autodiff<Cuda>` by `SwapAutodiff<Cuda>`; nothing else changes.
#[derive(Clone, Copy, Debug, Default)]
pub struct SwapAutodiff<B> {
    _inner: PhantomData<B>,
}

impl<B: Backend> BackendTypes for SwapAutodiff<B> {
    type Device = B::Device;
    type FloatTensorPrimitive = <Inner<B> as BackendTypes>::FloatTensorPrimitive;
    type FloatElem = B::FloatElem;
    type IntTensorPrimitive = B::IntTensorPrimitive;
    type IntElem = B::IntElem;
    type BoolTensorPrimitive = B::BoolTensorPrimitive;
    type BoolElem = B::BoolElem;
    type QuantizedTensorPrimitive = B::QuantizedTensorPrimitive;
}

thread_local! {
    static TRAINING_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Held while an op of `SwapAutodiff` (or its backward) runs on this thread.
pub(crate) struct TrainingOp(());

impl TrainingOp {
    pub(crate) fn enter() -> Self {
        TRAINING_DEPTH.with(|d| d.set(d.get() + 1));
        Self(())
    }
}

impl Drop for TrainingOp {
    fn drop(&mut self) {
        TRAINING_DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// Whether the op `Swapping` is running was called through `SwapAutodiff`
/// (a forward op of the model, or inside its backward), as opposed to the
/// inner backend directly.
pub(crate) fn in_training_op() -> bool {
    TRAINING_DEPTH.with(|d| d.get() > 0)
}

/// The backward hook: marks the phase change, runs autodiff's backward, and
/// ends the iteration (profile, plan).
pub(crate) fn backward<B: Backend>(
    tensor: FloatTensor<SwapAutodiff<B>>,
) -> <Inner<B> as AutodiffBackend>::Gradients {
    executor::with(|e| e.begin_backward());
    let grads = {
        let _span = tracing::debug_span!("backward").entered();
        let _training = TrainingOp::enter();
        <Inner<B> as AutodiffBackend>::backward(tensor)
    };
    if let Err(err) = executor::with(|e| e.end_backward()) {
        panic!("{err}");
    }
    // Before the gradients reach the optimizer.
    if let Err(err) = crate::transfer::check_unpacked() {
        panic!("burn-swap: {err}");
    }
    grads
}
