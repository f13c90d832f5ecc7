//! The default policy: chosen once the device is known.

use std::fmt;
use std::sync::Arc;

use super::{Home, KeepAll, PlanParams, Policy, ProgressFn, SwapAll};
use crate::error::PlanError;
use crate::plan::Plan;
use crate::profile::Profile;

/// The policy a user gets without choosing one: `home` where there is a
/// budget (given, or taken from the device's free memory) and the host
/// link's cost is known (given, or timed on the device), `swap-all` where
/// only the budget is, and `keep-all` where there is no budget (the device
/// does not say its free memory and none was given). The executor makes
/// the choice at the first op ([`Policy::chosen_for_device`]); a plan asked
/// of `Auto` itself keeps every tensor.
#[derive(Clone, Default)]
pub struct Auto {
    /// Given to `home`'s search, where it is chosen.
    pub progress: Option<ProgressFn>,
}

impl fmt::Debug for Auto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Auto")
    }
}

impl Auto {
    /// Its name in `BURN_SWAP_POLICY`.
    pub const NAME: &'static str = "auto";
}

impl Policy for Auto {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn chosen_for_device(&self, has_budget: bool, has_link_cost: bool) -> Option<Arc<dyn Policy>> {
        Some(match (has_budget, has_link_cost) {
            (true, true) => Arc::new(Home {
                progress: self.progress.clone(),
                ..Home::default()
            }),
            (true, false) => Arc::new(SwapAll),
            (false, _) => Arc::new(KeepAll),
        })
    }

    /// Not until it is replaced by the policy it chooses.
    fn moves_tensors(&self) -> bool {
        false
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        KeepAll.plan(profile, params)
    }
}
