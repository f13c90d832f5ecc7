//! Baselines that rebuild tensors as well as swap them: SuperNeurons' rule
//! and a Capuchin-like greedy.

use super::swap_all::schedule_prefetches;
use super::{
    decision, finish_plan, host_note, keep_within_host, movable, needs_link_and_op_times,
    predicted, PlanParams, Policy,
};
use crate::cost::{isolated_swap_ns, replay, CodecTime};
use crate::error::PlanError;
use crate::memory::{peak_of, Footprint};
use crate::plan::{Action, Decision, Plan};
use crate::profile::{Profile, TensorProfile};
use crate::recompute::{resolve_needs, RecomputeGraph};

/// Ops whose output is expensive to make again: convolutions and matrix
/// products (every other op is cheap next to them).
fn is_costly(op_name: &str) -> bool {
    op_name.contains("conv") || op_name.contains("matmul") || op_name.contains("attention")
}

/// SuperNeurons' rule: the inputs of convolutions are swapped, the outputs
/// of cheap ops (activations, normalisation, pooling, element-wise ops)
/// are rebuilt in backward, everything else stays on the device.
#[derive(Debug, Clone, Copy, Default)]
pub struct SuperNeurons;

impl Policy for SuperNeurons {
    fn name(&self) -> &str {
        "superneurons"
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        let graph = RecomputeGraph::for_params(profile, params);
        let feeds_conv = |t: &TensorProfile| {
            t.forward_uses.iter().any(|&op| {
                profile
                    .ops
                    .get(op as usize)
                    .is_some_and(|o| o.name.starts_with("conv"))
            })
        };
        let mut decisions: Vec<Decision> = profile
            .saved_tensors()
            .map(|t| match movable(t, params) {
                Some(_) if feeds_conv(t) => decision(t, Action::Swap),
                Some(_)
                    if graph.stand_in(t.key).is_some()
                        || (graph.can_recompute(t.key)
                            && !is_costly(&profile.ops[t.key.op as usize].name)) =>
                {
                    decision(t, Action::Recompute)
                }
                _ => Decision::keep(t.key, t.bytes),
            })
            .collect();
        let kept_for_host = keep_within_host(params, &mut decisions);
        let footprint = Footprint::of(profile);
        resolve_needs(&graph, &mut decisions);
        schedule_prefetches(profile, &footprint, params, &mut decisions);
        let swapped = decisions
            .iter()
            .filter(|d| d.action == Action::Swap)
            .count();
        let rebuilt = decisions
            .iter()
            .filter(|d| d.action == Action::Recompute)
            .count();
        let tried = format!(
            "swapping the {swapped} inputs of convolutions and rebuilding {rebuilt} outputs of cheap ops{}",
            host_note(kept_for_host, params)
        );
        let mut plan = finish_plan(self, profile, &footprint, params, decisions, &tried)?;
        plan.predicted = predicted(profile, &plan, params);
        Ok(plan)
    }
}

/// Capuchin's choices without its runtime: while the plan's device peak is
/// over the budget, one tensor resident at the peak is swapped or rebuilt,
/// the one that costs the least time per byte freed. A swap costs what its
/// two copies do not hide in the compute between its last forward use and
/// its first backward use (nothing if they hide); a rebuild costs its op
/// again. No budget: nothing moves.
#[derive(Debug, Clone, Copy, Default)]
pub struct Capuchin;

impl Policy for Capuchin {
    fn name(&self) -> &str {
        "capuchin"
    }

    fn needs_op_times(&self) -> bool {
        true
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        let costs = needs_link_and_op_times(self.name(), profile, params)?;
        let graph = RecomputeGraph::for_params(profile, params);
        let footprint = Footprint::of(profile);
        // When each op starts, on the profiled clock.
        let mut starts = Vec::with_capacity(profile.ops.len() + 1);
        let mut clock = 0.0_f64;
        for op in &profile.ops {
            starts.push(clock);
            clock += op.duration_ns.unwrap_or(0) as f64;
        }
        starts.push(clock);
        let start_of = |op: u32| starts[(op as usize).min(starts.len() - 1)];
        let tensors: Vec<&TensorProfile> = profile.saved_tensors().collect();
        let mut decisions = Decision::keep_all(profile);
        let mut moved = 0;
        // Every swapped tensor is in host memory at the turn from forward
        // to backward: their bytes add up there.
        let mut host_room = params.host_budget_bytes.unwrap_or(u64::MAX);
        if let Some(budget) = params.plan_budget() {
            loop {
                let (peak, at) = peak_of(&footprint.timeline(profile, &decisions));
                if peak <= budget {
                    break;
                }
                let mut best: Option<(f64, usize, Action)> = None;
                for (i, t) in tensors.iter().enumerate() {
                    let Some(first_use) = movable(t, params) else {
                        continue;
                    };
                    if decisions[i].action != Action::Keep || at >= first_use {
                        continue;
                    }
                    let mut options = Vec::with_capacity(2);
                    if at > t.last_forward_use + 1 && t.bytes <= host_room {
                        let copies = isolated_swap_ns(&costs.link, t.bytes, None);
                        let gap = start_of(first_use) - start_of(t.last_forward_use + 1);
                        options.push(((copies - gap).max(0.0), Action::Swap));
                    }
                    if at > t.last_forward_use && graph.can_recompute(t.key) {
                        options.push((graph.rebuild_ns(t.key) as f64, Action::Recompute));
                    }
                    for (cost_ns, action) in options {
                        let per_byte = cost_ns / t.bytes as f64;
                        // At equal cost a rebuild wins: a swap that hides
                        // alone still takes the link from the others (a
                        // ReLU's stand-in costs nothing at all).
                        let better = best.is_none_or(|(b, _, best_action)| {
                            per_byte < b
                                || (per_byte == b
                                    && action == Action::Recompute
                                    && best_action == Action::Swap)
                        });
                        if better {
                            best = Some((per_byte, i, action));
                        }
                    }
                }
                let Some((_, i, action)) = best else {
                    break;
                };
                if action == Action::Swap {
                    host_room -= tensors[i].bytes;
                }
                decisions[i] = decision(tensors[i], action);
                resolve_needs(&graph, &mut decisions);
                moved += 1;
            }
        }
        schedule_prefetches(profile, &footprint, params, &mut decisions);
        let tried = format!(
            "moving {moved} tensors resident at the peak, each the cheapest per byte to swap or rebuild, until none was left"
        );
        let mut plan = finish_plan(self, profile, &footprint, params, decisions, &tried)?;
        plan.predicted = Some(replay(profile, &plan.decisions, costs, CodecTime::Measured));
        Ok(plan)
    }
}
