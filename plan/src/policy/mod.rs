//! Policies: from a profile to a plan, one decision per saved tensor.

mod auto;
mod compress;
mod home;
mod keep_all;
mod recompute;
mod swap_all;

pub use auto::Auto;
pub use compress::{CompressAll, CompressionOracle, Cswap};
pub use home::{Home, HomeProgress, ProgressFn};
pub use keep_all::KeepAll;
pub use recompute::{Capuchin, SuperNeurons};
pub use swap_all::SwapAll;

use std::fmt;
use std::sync::Arc;

use crate::cost::{replay, Codec, CodecTime, CostModel, SwapReplay};
use crate::error::PlanError;
use crate::human_bytes;
use crate::memory::{host_peak, simulate, Footprint};
use crate::plan::{Action, Decision, Plan};
use crate::profile::{Profile, TensorProfile};

/// What a policy plans for, besides the profile.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanParams {
    /// The device budget, if any: bytes the iteration may add to what the
    /// device held when it began (saved activations, working tensors and
    /// copies still in flight).
    pub budget_bytes: Option<u64>,
    /// Tensors smaller than this are not worth a transfer.
    pub min_swap_bytes: u64,
    /// How many ops before its first backward use a swapped tensor is
    /// brought back; `None`: as early as the budget allows.
    pub prefetch_lookahead_ops: Option<u32>,
    /// What copies and codecs cost on the device, where measured: the
    /// policies that compress price their choices with it.
    pub costs: Option<Arc<CostModel>>,
    /// Device bytes the iteration adds that the profile does not show
    /// (ops' own buffers under fusion, buffers freed only when a fused
    /// kernel has run, a pool's rounding), measured on iterations that
    /// followed an earlier plan: the plan keeps this much of the budget
    /// free, so that the budget bounds what the device really holds.
    pub unseen_bytes: u64,
    /// Host bytes the swapped tensors may hold at once: what the transfer
    /// engine's pinned pool can take (`None`: no pool bounds it). Policies
    /// that swap keep, rebuild or refuse rather than plan copies the pool
    /// would refuse, which would leave their tensors on the device.
    pub host_budget_bytes: Option<u64>,
    /// Whether plans may rebuild tensors in backward (their ops run
    /// again, or a ReLU's output stands in): not where the executor cannot
    /// (burn-swap built without its `recompute` feature), where a rebuilt
    /// tensor would stay on the device.
    pub rebuild: bool,
    /// Whether a rebuild may run through tensors forward freed, made again
    /// on the way ([`RecomputeGraph::transient`](crate::recompute::RecomputeGraph::transient)).
    pub rebuild_through_freed: bool,
    /// Whether the plan is for burn's fusion, where an op other than
    /// element-wise and layout ones may not make its forward bits when run
    /// again: a rebuild with one (its own op or one of its chain) is planned
    /// only for a tensor of at least
    /// [`COMPARED_REBUILD_MIN_BYTES`](crate::recompute::COMPARED_REBUILD_MIN_BYTES),
    /// which the executor compares with its rebuild before backward reads one.
    pub under_fusion: bool,
}

impl Default for PlanParams {
    fn default() -> Self {
        Self {
            budget_bytes: None,
            min_swap_bytes: 0,
            prefetch_lookahead_ops: None,
            costs: None,
            unseen_bytes: 0,
            host_budget_bytes: None,
            rebuild: true,
            rebuild_through_freed: true,
            under_fusion: false,
        }
    }
}

impl PlanParams {
    /// The part of the budget the plan's own bytes may take: the budget
    /// less what the device adds unseen.
    pub fn plan_budget(&self) -> Option<u64> {
        self.budget_bytes
            .map(|budget| budget.saturating_sub(self.unseen_bytes))
    }
}

/// Turns a profile into a plan.
pub trait Policy: Send + Sync + fmt::Debug {
    /// Short name, as used in `BURN_SWAP_POLICY`.
    fn name(&self) -> &str;
    /// The plan for iterations like `profile`, or why none fits the budget.
    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError>;
    /// Whether the policy moves tensors off the device. While an iteration
    /// is profiled under a budget, such a policy's tensors are moved off
    /// least recently used first whenever they go over it, so that a model
    /// that does not fit can still be profiled.
    fn moves_tensors(&self) -> bool {
        true
    }
    /// Whether the policy reads the saved tensors' zero fractions: only
    /// then are they counted on the device (extra work on the compute
    /// stream, and under fusion extra kernels).
    fn uses_sparsity(&self) -> bool {
        false
    }
    /// Whether the policy prices its choices with the ops' times: then the
    /// iterations it plans from are timed op by op (the device synchronised
    /// around each op, which slows those iterations only).
    fn needs_op_times(&self) -> bool {
        false
    }
    /// Whether its plans' codecs are timed on the device against the same
    /// plan without them, the faster staying: for a policy that compresses
    /// only where that pays, not one that compresses by rule or as a bound.
    fn checks_codecs_on_device(&self) -> bool {
        false
    }
    /// Policies whose plans are timed on the device against this one's
    /// where they fit, the fastest staying: for a policy that chooses on a
    /// replay it starts from their plans.
    fn rivals(&self) -> Vec<Arc<dyn Policy>> {
        Vec::new()
    }
    /// For a policy that stands for another until the device is known
    /// ([`Auto`]): the one for a device where a budget is known
    /// (`has_budget`) and the host link's cost is (`has_link_cost`).
    /// `None` (every other policy): it plans itself.
    fn chosen_for_device(&self, has_budget: bool, has_link_cost: bool) -> Option<Arc<dyn Policy>> {
        let _ = (has_budget, has_link_cost);
        None
    }
}

/// A built-in policy by its name (`auto`, `keep-all`, `swap-all`,
/// `compress-all`, `cswap`, `oracle`, `superneurons`, `capuchin`, `home` or
/// their aliases).
pub fn by_name(name: &str) -> Option<Arc<dyn Policy>> {
    by_name_with_progress(name, None)
}

/// [`by_name`], with `progress` told after each round of a search that
/// takes them (`home`, and `auto` where it chooses `home`).
pub fn by_name_with_progress(name: &str, progress: Option<ProgressFn>) -> Option<Arc<dyn Policy>> {
    match name.trim() {
        Auto::NAME => Some(Arc::new(Auto { progress })),
        "keep-all" | "keep" => Some(Arc::new(KeepAll)),
        "swap-all" | "swap" | "vdnn" => Some(Arc::new(SwapAll)),
        "compress-all" | "cdma" => Some(Arc::new(CompressAll::default())),
        // One codec named: `compress-all:bitmap`.
        other if other.starts_with("compress-all:") => {
            let codec = Codec::by_name(&other["compress-all:".len()..])?;
            Some(Arc::new(CompressAll { codec }))
        }
        "cswap" => Some(Arc::new(Cswap)),
        "oracle" => Some(Arc::new(CompressionOracle)),
        "superneurons" => Some(Arc::new(SuperNeurons)),
        "capuchin" => Some(Arc::new(Capuchin)),
        "home" | "pso" => Some(Arc::new(Home {
            progress,
            ..Home::default()
        })),
        _ => None,
    }
}

/// The iteration replayed under `plan`, where `params` has the device's
/// costs and the profile its ops' times (without them the replay is only
/// the copies: SuperNeurons' ResNet-50 plan on an H200 read 64.6 ms against
/// a 284.3 ms step).
fn predicted(profile: &Profile, plan: &Plan, params: &PlanParams) -> Option<SwapReplay> {
    if !profile.is_timed() {
        return None;
    }
    params
        .costs
        .as_deref()
        .map(|costs| replay(profile, &plan.decisions, costs, CodecTime::Measured))
}

/// `plan` with every copy moved as it is and its prefetches scheduled again
/// (where a compressed copy came back late for its room, the tensor may
/// come back earlier): what the executor times a plan's compression
/// against on the device. A plan without codecs comes back as it is.
pub fn without_codecs(
    policy: &dyn Policy,
    profile: &Profile,
    params: &PlanParams,
    plan: &Plan,
) -> Result<Plan, PlanError> {
    if plan.compressed_count() == 0 {
        return Ok(plan.clone());
    }
    let mut plain = swap_all::with_codecs(policy, profile, params, plan.clone(), |_| None)?;
    plain.predicted = predicted(profile, &plain, params);
    Ok(plain)
}

/// The first backward use of saved tensor `t` if a policy may move it off
/// the device: at least `min_swap_bytes`, and not needed again the moment
/// forward is done with it.
fn movable(t: &TensorProfile, params: &PlanParams) -> Option<u32> {
    let first_use = t.first_backward_use?;
    (t.bytes >= params.min_swap_bytes && t.last_forward_use < first_use).then_some(first_use)
}

/// `action` for saved tensor `t`: off the device after its last forward
/// use, back (just in time, until prefetches are scheduled) for its first
/// backward use.
fn decision(t: &TensorProfile, action: Action) -> Decision {
    let Some(first_use) = t.first_backward_use else {
        return Decision::keep(t.key, t.bytes);
    };
    Decision {
        key: t.key,
        bytes: t.bytes,
        action,
        offload_after: t.last_forward_use,
        prefetch_at: first_use,
        needed_at: first_use,
        codec: None,
        stand_in: None,
        transient: false,
    }
}

/// Turns swaps of `decisions` into keeps, the tensors offloaded last first,
/// until the swapped tensors fit the pinned pool (`params`' host budget);
/// returns how many. Those come back first in backward, so keeping them
/// frees the least of the device where it is short. Every swapped tensor
/// is in host memory at the turn from forward to backward, so what they
/// hold at once is their sum, whenever their prefetches are scheduled.
fn keep_within_host(params: &PlanParams, decisions: &mut [Decision]) -> usize {
    let Some(host_budget) = params.host_budget_bytes else {
        return 0;
    };
    let mut swapped: Vec<usize> = (0..decisions.len())
        .filter(|&i| decisions[i].action == Action::Swap)
        .collect();
    let mut held: u64 = swapped.iter().map(|&i| decisions[i].bytes).sum();
    swapped.sort_by_key(|&i| std::cmp::Reverse(decisions[i].offload_after));
    let mut kept = 0;
    for i in swapped {
        if held <= host_budget {
            break;
        }
        held -= decisions[i].bytes;
        decisions[i] = Decision::keep(decisions[i].key, decisions[i].bytes);
        kept += 1;
    }
    kept
}

/// What [`keep_within_host`] kept, for a policy's account of its plan.
fn host_note(kept: usize, params: &PlanParams) -> String {
    match (kept, params.host_budget_bytes) {
        (0, _) | (_, None) => String::new(),
        (kept, Some(host)) => format!(
            "; {kept} more kept on the device, the pinned pool having room for {} of host memory",
            human_bytes(host)
        ),
    }
}

/// The link's cost model, for a policy that prices copies against the
/// ops' recorded times; an error when either is missing.
fn needs_link_and_op_times<'a>(
    name: &str,
    profile: &Profile,
    params: &'a PlanParams,
) -> Result<&'a CostModel, PlanError> {
    let costs = params
        .costs
        .as_deref()
        .ok_or_else(|| PlanError::NoCostModel {
            policy: name.to_string(),
            missing: "a cost model (at least the host link)".into(),
        })?;
    if !profile.is_timed() {
        return Err(PlanError::NoOpTimes {
            policy: name.to_string(),
            iteration: profile.iteration,
        });
    }
    Ok(costs)
}

/// The plan of `decisions` with its simulated peaks, or why it does not fit
/// the budget. `tried` says what the policy did, for the error.
fn finish_plan(
    policy: &dyn Policy,
    profile: &Profile,
    footprint: &Footprint,
    params: &PlanParams,
    decisions: Vec<Decision>,
    tried: &str,
) -> Result<Plan, PlanError> {
    let name = policy.name();
    let (peak, at) = footprint.peak(profile, &decisions);
    let (peak_saved, _) = simulate(profile, &decisions);
    let (keep_all_peak, _) = simulate(profile, &Decision::keep_all(profile));
    let moves_nothing_because = decisions
        .iter()
        .all(|d| d.action == Action::Keep)
        .then(|| why_nothing_moves(policy, profile, params, footprint));
    let unseen = params.unseen_bytes;
    if let Some(budget) = params.budget_bytes {
        if peak + unseen > budget {
            let measured = match unseen {
                0 => String::new(),
                _ => format!(
                    ", and the device adds {} beyond what the plan sees (measured on earlier steps)",
                    human_bytes(unseen)
                ),
            };
            return Err(PlanError::BudgetTooSmall {
                budget,
                need: peak + unseen,
                op: at,
                iteration: profile.iteration,
                policy: name.to_string(),
                tried: format!(
                    "{tried}; of the {} the plan needs at that op, {} are working tensors that no plan moves{measured}",
                    human_bytes(peak),
                    human_bytes(footprint.other_at(at as usize))
                ),
            });
        }
    }
    let host_peak = host_peak(profile, &decisions);
    if let Some(host_budget) = params.host_budget_bytes {
        if host_peak > host_budget {
            return Err(PlanError::HostTooSmall {
                host_budget,
                need: host_peak,
                iteration: profile.iteration,
                policy: name.to_string(),
                tried: tried.to_string(),
            });
        }
    }
    Ok(Plan {
        policy: name.to_string(),
        iteration: profile.iteration,
        decisions,
        op_signatures: profile.op_signatures.clone(),
        budget_bytes: params.budget_bytes,
        expected_peak_bytes: peak + unseen,
        expected_peak_op: at,
        unseen_bytes: unseen,
        expected_host_peak_bytes: host_peak,
        expected_peak_saved_bytes: peak_saved,
        keep_all_peak_saved_bytes: keep_all_peak,
        moves_nothing_because,
        predicted: None,
    })
}

/// Why a plan that keeps every saved tensor does so, in a user's terms.
fn why_nothing_moves(
    policy: &dyn Policy,
    profile: &Profile,
    params: &PlanParams,
    footprint: &Footprint,
) -> String {
    if !policy.moves_tensors() {
        return format!("policy {} keeps every tensor on the device", policy.name());
    }
    if profile.saved_tensors().next().is_none() {
        return "the iteration saved no activations for backward".into();
    }
    if profile
        .saved_tensors()
        .all(|t| t.bytes < params.min_swap_bytes)
    {
        return format!(
            "every saved tensor is under the minimum swap size of {} (min_swap_bytes, BURN_SWAP_MIN_SWAP_BYTES)",
            human_bytes(params.min_swap_bytes)
        );
    }
    let (need, _) = footprint.peak(profile, &Decision::keep_all(profile));
    match params.plan_budget() {
        Some(budget) => format!(
            "the budget of {} holds every saved tensor (keeping them all needs {}): lower it to move tensors",
            human_bytes(budget),
            human_bytes(need)
        ),
        None => "no saved tensor is worth a round trip".into(),
    }
}

#[cfg(test)]
mod tests;
