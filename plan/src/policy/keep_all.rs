use super::{finish_plan, PlanParams, Policy};
use crate::error::PlanError;
use crate::memory::Footprint;
use crate::plan::{Decision, Plan};
use crate::profile::Profile;

/// Keeps every saved activation on the device (the undecorated behaviour,
/// with profiling).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeepAll;

impl Policy for KeepAll {
    fn name(&self) -> &str {
        "keep-all"
    }

    fn moves_tensors(&self) -> bool {
        false
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        finish_plan(
            self,
            profile,
            &Footprint::of(profile),
            params,
            Decision::keep_all(profile),
            "keeping every saved tensor on the device",
        )
    }
}
