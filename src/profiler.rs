//! The profiler: what one iteration did, op by op and tensor by tensor.
//!
//! The profile's types, its JSON and its picture are the planning core's
//! (`burn-swap-plan`); the executor records each op into its
//! [`Recorder`]. Burn's element types
//! become names here, on their way in.

use std::borrow::Cow;

use burn_backend::DType;

pub use burn_swap_plan::profile::{
    OpProfile, Phase, Profile, SwapInStalls, TensorKey, TensorProfile, TimelinePoint,
};
pub use burn_swap_plan::{human_bytes, timeline_svg, timeline_svg_with, write_json, SvgOptions};

pub(crate) use burn_swap_plan::profile::{OpRecord, OutputInfo, Recorder};

/// An element type's name as the profile writes it: `DType`'s `Debug` form,
/// borrowed for every type but quantized floats, so recording an op does
/// not allocate.
pub(crate) fn dtype_name(dtype: DType) -> Cow<'static, str> {
    Cow::Borrowed(match dtype {
        DType::F64 => "F64",
        DType::F32 => "F32",
        DType::Flex32 => "Flex32",
        DType::F16 => "F16",
        DType::BF16 => "BF16",
        DType::I64 => "I64",
        DType::I32 => "I32",
        DType::I16 => "I16",
        DType::I8 => "I8",
        DType::U64 => "U64",
        DType::U32 => "U32",
        DType::U16 => "U16",
        DType::U8 => "U8",
        other => return Cow::Owned(format!("{other:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_type_names_are_what_debug_writes() {
        let types = [
            DType::F64,
            DType::F32,
            DType::Flex32,
            DType::F16,
            DType::BF16,
            DType::I64,
            DType::I32,
            DType::I16,
            DType::I8,
            DType::U64,
            DType::U32,
            DType::U16,
            DType::U8,
        ];
        for dtype in types {
            assert_eq!(dtype_name(dtype), format!("{dtype:?}"));
        }
    }
}
