//! How many of a saved tensor's elements are zero, counted on the device:
//! what compressing it before it crosses the link would gain (ZVC keeps a
//! bit per element and the non-zero values).
//!
//! The count is a comparison and a sum queued on the inner backend, never
//! an op of the training iteration; its one-element result is read when
//! the iteration ends, not when the count is queued. Under burn's fusion a
//! kernel on the training stream would change what fuses, so there the
//! transfer engine counts the tensor's copy on the host as it leaves (all
//! bits zero, what ZVC drops).

use std::sync::{Arc, Mutex};

use burn::tensor::{Tensor, TensorPrimitive};
use burn_backend::{Backend, Shape, TensorMetadata};

use crate::transfer::ZeroCount;

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

    /// The count the transfer engine makes of a copy on the host, once the
    /// tensor it is asked for leaves (`None` if it does not).
    pub(crate) fn on_host(cell: HostZeros) -> Self {
        PendingZeros {
            read: Box::new(move || {
                let count = cell.lock().unwrap_or_else(|p| p.into_inner()).take()?;
                count.wait()
            }),
        }
    }
}

/// Where a tensor's count on the host is put when it leaves.
pub(crate) type HostZeros = Arc<Mutex<Option<ZeroCount>>>;

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
