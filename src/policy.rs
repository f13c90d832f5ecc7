//! Policies: from a profile to a plan, one decision per saved tensor (the
//! planning core, `burn-swap-plan`).

pub use burn_swap_plan::cost::{Codec, CodecTimeModel, CostModel, LinkModel};
pub use burn_swap_plan::evaluate::{Evaluation, Evaluator};
pub use burn_swap_plan::memory::{simulate, Footprint};
pub use burn_swap_plan::plan::{Action, Decision, Plan};
pub use burn_swap_plan::policy::{
    by_name, by_name_with_progress, without_codecs, Capuchin, CompressAll, CompressionOracle,
    Cswap, Home, HomeProgress, KeepAll, PlanParams, Policy, ProgressFn, SuperNeurons, SwapAll,
};
pub use burn_swap_plan::recompute::{resolve_needs, RecomputeGraph};
pub use burn_swap_plan::PlanError;
