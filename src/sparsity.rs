//! How many of a saved tensor's elements are zero, and whether the others
//! are all one value, counted on the device: what compressing it before it
//! crosses the link would gain (ZVC keeps a bit per element and the
//! non-zero values; the bitmap codec a bit per element and one value).
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
use burn_swap_plan::profile::Sparsity;

use crate::transfer::ZeroCount;

/// A zero count queued on the device.
pub(crate) struct PendingZeros {
    read: Box<dyn FnOnce() -> Option<Sparsity>>,
}

impl PendingZeros {
    /// What the count found (waits for it; `None` if the device could not
    /// be read).
    pub(crate) fn read(self) -> Option<Sparsity> {
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

/// Queues the count of `primitive`'s zero elements (`-0.0` counts as zero)
/// and of those equal to its largest and smallest: the non-zero ones are
/// one value where the zeros and the elements equal to the non-zero extreme
/// make up the whole tensor. (A float comparison, so `-0.0` beside `0.0`
/// passes for one value; the bitmap codec, which compares bits, then
/// stores the tensor as it is: a copy priced too small, never a wrong one.)
pub(crate) fn count_zeros<B: Backend>(primitive: B::FloatTensorPrimitive) -> PendingZeros {
    let elements = primitive.shape().num_elements();
    if elements == 0 {
        return PendingZeros {
            read: Box::new(|| None),
        };
    }
    let flat = B::float_reshape(primitive, Shape::new([elements]));
    let tensor = Tensor::<B, 1>::from_primitive(TensorPrimitive::Float(flat));
    let zeros = tensor.clone().equal_elem(0.0).int().sum();
    let (max, min) = (tensor.clone().max(), tensor.clone().min());
    let at_max = tensor
        .clone()
        .equal(max.clone().expand([elements]))
        .int()
        .sum();
    let at_min = tensor.equal(min.clone().expand([elements])).int().sum();
    PendingZeros {
        read: Box::new(move || {
            let int =
                |t: Tensor<B, 1, burn::tensor::Int>| t.try_into_data().ok()?.iter::<i64>().next();
            let float = |t: Tensor<B, 1>| t.try_into_data().ok()?.iter::<f64>().next();
            let zeros = int(zeros)?;
            let (max, min) = (float(max)?, float(min)?);
            let (at_max, at_min) = (int(at_max)?, int(at_min)?);
            let all = elements as i64;
            let two_valued = if max > 0.0 {
                zeros + at_max == all
            } else if min < 0.0 {
                zeros + at_min == all
            } else {
                zeros == all
            };
            Some(Sparsity {
                zero_fraction: zeros as f32 / elements as f32,
                two_valued: Some(two_valued),
            })
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn_backend::{ops::FloatTensorOps, TensorData};
    use burn_flex::Flex;

    fn counted(values: &[f32]) -> Sparsity {
        let data = TensorData::new(values.to_vec(), [values.len()]);
        count_zeros::<Flex>(Flex::float_from_data(data, &Default::default()))
            .read()
            .unwrap()
    }

    #[test]
    fn the_device_count_says_whether_the_non_zero_elements_are_one_value() {
        // A dropout mask, and one scaled after it.
        let mask = counted(&[1.0, 0.0, 1.0, 1.0]);
        assert_eq!(mask.zero_fraction, 0.25);
        assert_eq!(mask.two_valued, Some(true));
        assert_eq!(counted(&[0.0, 1.25, 1.25]).two_valued, Some(true));
        assert_eq!(counted(&[-2.0, 0.0, -2.0]).two_valued, Some(true));
        assert_eq!(counted(&[0.0, 0.0]).two_valued, Some(true));
        assert_eq!(counted(&[0.0, 1.0, 2.0]).two_valued, Some(false));
        assert_eq!(counted(&[-1.0, 0.0, 1.0]).two_valued, Some(false));
        // Two values, neither zero: not what a bitmap holds.
        assert_eq!(counted(&[3.0, 5.0]).two_valued, Some(false));
    }
}
