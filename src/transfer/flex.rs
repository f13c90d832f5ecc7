//! Flex (CPU) tensors: the storage is copied as is, with its layout.

use burn_backend::DType;
use burn_flex::{FlexTensor, Layout};
use burn_std::Bytes;

/// A Flex tensor's storage, copied, and how to view it.
pub(crate) struct FlexCopy {
    bytes: Bytes,
    layout: Layout,
    dtype: DType,
}

pub(crate) fn offload(tensor: &FlexTensor) -> FlexCopy {
    // `Bytes::clone` is a deep copy that keeps the storage's alignment.
    FlexCopy {
        bytes: (*tensor.data_arc()).clone(),
        layout: tensor.layout().clone(),
        dtype: tensor.dtype(),
    }
}

pub(crate) fn load(copy: FlexCopy) -> FlexTensor {
    FlexTensor::new(copy.bytes, copy.layout, copy.dtype)
}
