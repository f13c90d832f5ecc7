//! How many of a saved tensor's elements are zero, counted on the device:
//! what compressing it before it crosses the link would gain (ZVC keeps a
//! bit per element and the non-zero values).
//!
//! The count is a comparison and a sum queued on the inner backend (fused
//! into one reduction under fusion), never an op of the training
//! iteration; its one-element result is read when the iteration ends, not
//! when the count is queued.

use burn::tensor::{Tensor, TensorPrimitive};
use burn_backend::{Backend, Shape, TensorMetadata};

/// A zero count queued on the device.
pub(crate) struct PendingZeros {
    read: Box<dyn FnOnce() -> Option<f32>>,
}

impl PendingZeros {
    /// The fraction of zero elements (waits for the count; `None` if the
    /// device could not be read).
    pub(crate) fn read(self) -> Option<f32> {
        (self.read)()
    }
}

/// Queues the count of `primitive`'s zero elements (`-0.0` counts as zero).
pub(crate) fn count_zeros<B: Backend>(primitive: B::FloatTensorPrimitive) -> PendingZeros {
    let elements = primitive.shape().num_elements();
    let flat = B::float_reshape(primitive, Shape::new([elements]));
    let zeros = Tensor::<B, 1>::from_primitive(TensorPrimitive::Float(flat))
        .equal_elem(0.0)
        .int()
        .sum();
    PendingZeros {
        read: Box::new(move || {
            let count = zeros.try_into_data().ok()?.iter::<i64>().next()?;
            Some(count as f32 / elements.max(1) as f32)
        }),
    }
}
