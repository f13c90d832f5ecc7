//! Compress-then-swap: swap-all's copies, with the swapped tensors
//! compressed on the device first where it pays (CSWAP), everywhere (cDMA's
//! behaviour), or for free (a bound).
//!
//! All three move what swap-all moves, leaving after the same ops. What
//! changes is what crosses the link, the kernels the compute stream runs
//! for it, and the room a copy needs where it is made and undone (the
//! compressor's worst-case output beside the tensor), which can bring a
//! tensor back later than swap-all would under the same budget.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::swap_all::{codecs_scheduled, finish_with_codecs, swap_all_plan, with_codecs};
use super::{predicted, PlanParams, Policy};
use crate::cost::{replay, Codec, CodecTime, CostModel, SwapReplay};
use crate::error::PlanError;
use crate::memory::Footprint;
use crate::plan::{Action, Decision, Plan};
use crate::profile::{Profile, TensorKey};

/// cDMA on the GPU: every swapped tensor is compressed with one codec.
/// Static compression: tensors that do not shrink, or whose kernels cost
/// more than the copy they save, are compressed anyway; with the bitmap,
/// every swapped tensor counted as holding two values ([`Codec::suits`]).
#[derive(Debug, Clone, Copy)]
pub struct CompressAll {
    /// The codec every swapped tensor takes.
    pub codec: Codec,
}

impl Default for CompressAll {
    /// ZVC, the codec for post-activation zeros.
    fn default() -> Self {
        Self { codec: Codec::Zvc }
    }
}

impl Policy for CompressAll {
    fn name(&self) -> &str {
        "compress-all"
    }

    /// A bitmap's copies are as small as a plan counts them only for the
    /// tensors counted as holding two values.
    fn uses_sparsity(&self) -> bool {
        self.codec == Codec::Bitmap
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        let plan = swap_all_plan(self, profile, params)?;
        let mut plan = with_codecs(self, profile, params, plan, |_| Some(self.codec))?;
        plan.predicted = predicted(profile, &plan, params);
        Ok(plan)
    }
}

/// CSWAP: each swapped tensor is compressed, and with the codec, that the
/// cost model says makes the iteration fastest; the others move as they
/// are. Decided on the replayed iteration, so a tensor whose copy already
/// hides behind compute is not compressed for nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cswap;

impl Policy for Cswap {
    fn name(&self) -> &str {
        "cswap"
    }

    fn uses_sparsity(&self) -> bool {
        true
    }

    /// It decides on the replayed iteration: a copy that hides behind the
    /// ops' time is not worth compressing.
    fn needs_op_times(&self) -> bool {
        true
    }

    /// What the cost model cannot see (the codecs' launches on the training
    /// thread, their buffers' room under a tight budget) the device's pace
    /// does.
    fn checks_codecs_on_device(&self) -> bool {
        true
    }

    /// Every swapped tensor compressed: the plan it chose on the replay is
    /// timed on the device against static compression's too, where that
    /// fits the same budget, so that what the replay misses cannot leave
    /// it slower than `compress-all`.
    fn rivals(&self) -> Vec<Arc<dyn Policy>> {
        vec![Arc::new(CompressAll::default())]
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        priced(self, profile, params, CodecTime::Measured)
    }
}

/// A bound for the others: compression takes no time, so every swapped
/// tensor takes the codec that moves the fewest bytes where that is fewer
/// than its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompressionOracle;

impl Policy for CompressionOracle {
    fn name(&self) -> &str {
        "oracle"
    }

    fn uses_sparsity(&self) -> bool {
        true
    }

    /// It decides on the replayed iteration: a copy that hides behind the
    /// ops' time is not worth compressing.
    fn needs_op_times(&self) -> bool {
        true
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        priced(self, profile, params, CodecTime::Free)
    }
}

/// Swap-all's plan with each swapped tensor's codec chosen on the replayed
/// iteration, `codec_time` saying what the codec kernels cost. The copies
/// chosen need room the plain ones did not, so the schedule is made again
/// with them ([`fitting_codecs`]); the plan kept is the faster, by the
/// replay, of that and swap-all's own.
fn priced(
    policy: &dyn Policy,
    profile: &Profile,
    params: &PlanParams,
    codec_time: CodecTime,
) -> Result<Plan, PlanError> {
    let costs = measured_codecs(policy.name(), params)?;
    let mut plain = swap_all_plan(policy, profile, params)?;
    choose_codecs(profile, &mut plain, costs, codec_time);
    let chosen: FxHashMap<TensorKey, Codec> = plain
        .decisions
        .iter()
        .filter_map(|d| Some((d.key, d.codec?)))
        .collect();
    for d in &mut plain.decisions {
        d.codec = None;
    }
    let plain_time = replay(profile, &plain.decisions, costs, codec_time);
    let mut plan = match fitting_codecs(policy, profile, params, &plain, chosen)? {
        Some(compressed) => {
            let time = replay(profile, &compressed.decisions, costs, codec_time);
            if better(&time, &plain_time) {
                compressed
            } else {
                plain
            }
        }
        None => plain,
    };
    // Untimed, the replay is only the copies and codecs: no step.
    plan.predicted = profile
        .is_timed()
        .then(|| replay(profile, &plan.decisions, costs, codec_time));
    Ok(plan)
}

/// `plain` with the codecs of `chosen`, as many of them as fit the budget:
/// while the plan goes over it, the largest compressed copy holding room
/// at the op where it does moves as it is instead. `None` when none fit.
fn fitting_codecs(
    policy: &dyn Policy,
    profile: &Profile,
    params: &PlanParams,
    plain: &Plan,
    mut chosen: FxHashMap<TensorKey, Codec>,
) -> Result<Option<Plan>, PlanError> {
    let footprint = Footprint::of(profile);
    while !chosen.is_empty() {
        let decisions =
            codecs_scheduled(profile, &footprint, params, plain.decisions.clone(), |d| {
                chosen.get(&d.key).copied()
            });
        let finished = finish_with_codecs(policy, profile, &footprint, params, decisions.clone());
        let over_at = match finished {
            Ok(plan) => return Ok(Some(plan)),
            Err(PlanError::BudgetTooSmall { op, .. }) => op,
            Err(other) => return Err(other),
        };
        let holding = decisions
            .iter()
            .filter(|d| d.codec.is_some() && holds_room_at(d, over_at))
            .max_by_key(|d| (d.bytes, d.key));
        match holding {
            Some(d) => chosen.remove(&d.key),
            // Compression is not what goes over: nothing compressed fits.
            None => return Ok(None),
        };
    }
    Ok(None)
}

/// Whether compressed copy `d` holds device room of its own at `op`: its
/// compressor's output where it is made, or the uploaded copy from its
/// prefetch to the op that needs it.
fn holds_room_at(d: &Decision, op: u32) -> bool {
    (d.offload_after..=d.offload_after + 1).contains(&op)
        || (d.prefetch_at.min(d.needed_at)..=d.needed_at).contains(&op)
}

/// The device's cost model, with its codecs measured.
fn measured_codecs<'a>(name: &str, params: &'a PlanParams) -> Result<&'a CostModel, PlanError> {
    match params.costs.as_deref() {
        Some(costs) if costs.codecs.is_some() => Ok(costs),
        Some(_) => Err(PlanError::NoCostModel {
            policy: name.to_string(),
            missing: "the codecs' time model".into(),
        }),
        None => Err(PlanError::NoCostModel {
            policy: name.to_string(),
            missing: "a cost model (the link and the codecs)".into(),
        }),
    }
}

/// Picks, for each swapped tensor in turn (largest first), the codec or
/// none that makes the replayed iteration shortest with the others' choices
/// fixed; two rounds, since a choice changes what the link has left for
/// the others.
fn choose_codecs(profile: &Profile, plan: &mut Plan, costs: &CostModel, codec_time: CodecTime) {
    let mut order: Vec<usize> = (0..plan.decisions.len())
        .filter(|&i| plan.decisions[i].action == Action::Swap)
        .collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(plan.decisions[i].bytes),
            plan.decisions[i].key,
        )
    });
    let mut best = replay(profile, &plan.decisions, costs, codec_time);
    for _round in 0..2 {
        let mut changed = false;
        for &i in &order {
            let key: TensorKey = plan.decisions[i].key;
            let current = plan.decisions[i].codec;
            for option in std::iter::once(None).chain(Codec::ALL.into_iter().map(Some)) {
                if option == current || !covered(profile, costs, key, option) {
                    continue;
                }
                let kept = plan.decisions[i].codec;
                plan.decisions[i].codec = option;
                let tried = replay(profile, &plan.decisions, costs, codec_time);
                if better(&tried, &best) {
                    best = tried;
                    changed = true;
                } else {
                    plan.decisions[i].codec = kept;
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// Whether the cost model can price `option` on tensor `key`.
fn covered(profile: &Profile, costs: &CostModel, key: TensorKey, option: Option<Codec>) -> bool {
    let Some(codec) = option else {
        return true;
    };
    profile
        .tensors
        .iter()
        .find(|t| t.key == key)
        .is_some_and(|t| {
            codec.suits(t) && costs.codec_cost(codec, &t.dtype, t.bytes, 0.0).is_some()
        })
}

/// Shorter iteration; at equal time (copies that hide either way), fewer
/// bytes over the link.
fn better(a: &SwapReplay, b: &SwapReplay) -> bool {
    const SAME_NS: f64 = 1.0;
    if a.iteration_ns < b.iteration_ns - SAME_NS {
        return true;
    }
    a.iteration_ns <= b.iteration_ns + SAME_NS && a.to_host_bytes < b.to_host_bytes
}
