//! Policies: from a profile to a plan, one decision per saved tensor (the
//! planning core, `burn-swap-plan`).

pub use burn_swap_plan::cost::{Codec, CodecTimeModel, CostModel, LinkModel};
pub use burn_swap_plan::evaluate::{Evaluation, Evaluator};
pub use burn_swap_plan::memory::{simulate, Footprint};
pub use burn_swap_plan::plan::{Action, Decision, Plan};
pub use burn_swap_plan::policy::{
    by_name, by_name_with_progress, without_codecs, Auto, Capuchin, CompressAll, CompressionOracle,
    Cswap, Home, HomeProgress, KeepAll, PlanParams, Policy, ProgressFn, SuperNeurons, SwapAll,
};
pub use burn_swap_plan::recompute::{replays_alike_under_fusion, resolve_needs, RecomputeGraph};
pub use burn_swap_plan::PlanError;

/// A plan of `decisions` for tests of the executor: nothing predicted, a
/// budget of `budget_bytes`.
#[cfg(test)]
pub(crate) fn plan_for_tests(decisions: Vec<Decision>, budget_bytes: Option<u64>) -> Plan {
    Plan {
        policy: "test".into(),
        decisions,
        budget_bytes,
        ..Plan::default()
    }
}
