//! The profiler: what one iteration did, op by op and tensor by tensor.
//!
//! The profile's types, its JSON and its picture are the planning core's
//! (`burn-swap-plan`); the executor records each op into its
//! [`Recorder`]. Burn's element types
//! become names here, on their way in.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

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

/// The files [`write_run`] wrote.
#[derive(Debug, Clone)]
pub struct RunFiles {
    /// The profile the plan in force was made from, with that plan.
    pub plan: PathBuf,
    /// The last iteration as measured (its memory op by op, its moves).
    pub last_iteration: PathBuf,
    /// The last iteration's device bytes against the plan's prediction.
    pub timeline: PathBuf,
}

/// Writes what this process's last training iteration did into `dir`:
/// `profile.json` (the profile the plan in force was made from, and the
/// plan), `last-iteration.json` (the last iteration's profile) and
/// `memory-timeline.svg` (its device bytes op by op, beside what the plan
/// predicted for it; `budget` and `device_memory` are drawn as lines where
/// given). `None` where no iteration was recorded yet.
pub fn write_run(
    dir: &Path,
    budget: Option<u64>,
    device_memory: Option<u64>,
) -> std::io::Result<Option<RunFiles>> {
    let Some(last) = crate::last_profile() else {
        return Ok(None);
    };
    let plan = crate::current_plan();
    std::fs::create_dir_all(dir)?;
    let files = RunFiles {
        plan: dir.join("profile.json"),
        last_iteration: dir.join("last-iteration.json"),
        timeline: dir.join("memory-timeline.svg"),
    };
    // The plan with the profile it was made from (with the zeros counted
    // since, for `cswap`).
    let planned_from = crate::plan_profile().unwrap_or_else(|| last.clone());
    write_json(&files.plan, &planned_from, plan.as_deref())?;
    write_json(&files.last_iteration, &last, None)?;
    let options = SvgOptions {
        budget: plan.as_ref().and_then(|p| p.budget_bytes).or(budget),
        device_memory,
        predicted: plan
            .as_deref()
            .map(|plan| crate::Footprint::of(&last).timeline(&last, &plan.decisions)),
    };
    std::fs::write(&files.timeline, timeline_svg_with(&last, &options))?;
    Ok(Some(files))
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
