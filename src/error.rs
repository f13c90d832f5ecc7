//! Errors a user can act on, with the numbers that explain them.

use std::fmt;

use serde::Serialize;

pub use burn_swap_plan::PlanError;

/// What went wrong, in burn-swap's terms.
#[derive(Clone, PartialEq, thiserror::Error, Serialize)]
pub enum SwapError {
    /// A configuration value could not be understood.
    #[error("burn-swap: invalid configuration: {0}")]
    Config(String),
    /// No plan was made (e.g. [`PlanError::BudgetTooSmall`]: none keeps the
    /// iteration's device memory under the budget).
    #[error(transparent)]
    // Serialised as the plan's error alone (`{"BudgetTooSmall": {..}}`).
    #[serde(untagged)]
    Plan(#[from] PlanError),
}

// Debug shows the plan's error alone (`BudgetTooSmall { .. }`).
impl fmt::Debug for SwapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SwapError::Config(why) => f.debug_tuple("Config").field(why).finish(),
            SwapError::Plan(err) => err.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_error_reads_and_serialises_as_itself() {
        let plan = PlanError::BudgetTooSmall {
            budget: 16,
            need: 32,
            op: 3,
            iteration: 1,
            policy: "swap-all".into(),
            tried: "everything".into(),
        };
        let err = SwapError::from(plan.clone());
        assert_eq!(err.to_string(), plan.to_string());
        assert_eq!(format!("{err:?}"), format!("{plan:?}"));
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            serde_json::to_value(&plan).unwrap()
        );
        assert!(serde_json::to_value(&plan)
            .unwrap()
            .get("BudgetTooSmall")
            .is_some());
    }
}
