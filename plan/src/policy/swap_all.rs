use rustc_hash::FxHashMap;

use super::{decision, finish_plan, keep_within_host, movable, predicted, PlanParams, Policy};
use crate::cost::Codec;
use crate::error::PlanError;
use crate::human_bytes;
use crate::memory::{bytes_coming_back, peak_of, simulate, Footprint};
use crate::plan::{Action, Decision, Plan};
use crate::profile::{Profile, TensorKey, TensorProfile};

/// vDNN: every saved activation of at least `min_swap_bytes` is offloaded
/// after its last forward use and brought back before its first backward
/// use, except those that would come back the moment backward starts and
/// fit under the budget through the end of forward (their round trip would
/// free nothing where it matters and stall the first backward ops).
#[derive(Debug, Clone, Copy, Default)]
pub struct SwapAll;

impl Policy for SwapAll {
    fn name(&self) -> &str {
        "swap-all"
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        let mut plan = swap_all_plan(self, profile, params)?;
        // Where the profile has op times: without a step, `home` never timed
        // swap-all's plan as a rival on the device.
        plan.predicted = predicted(profile, &plan, params);
        Ok(plan)
    }
}

/// Swap-all's plan under `policy`'s name.
pub(super) fn swap_all_plan(
    policy: &dyn Policy,
    profile: &Profile,
    params: &PlanParams,
) -> Result<Plan, PlanError> {
    let backward_start = profile.backward_start.unwrap_or(profile.op_count);
    let mut decisions: Vec<Decision> = profile
        .saved_tensors()
        .map(|t| match movable(t, params) {
            Some(_) => decision(t, Action::Swap),
            None => Decision::keep(t.key, t.bytes),
        })
        .collect();
    let kept_for_host = keep_within_host(params, &mut decisions);
    let footprint = Footprint::of(profile);
    let just_in_time_saved_peak = simulate(profile, &decisions).0;
    schedule_prefetches(profile, &footprint, params, &mut decisions);
    // Without a budget, only tensors that do not raise the saved-bytes
    // peak stay on the device: swap-all then moves all it can.
    let (keep_footprint, keep_cap) = match params.plan_budget() {
        Some(budget) => (footprint.clone(), budget),
        None => (Footprint::default(), just_in_time_saved_peak),
    };
    keep_what_returns_at_the_turn(
        profile,
        &keep_footprint,
        keep_cap,
        &mut decisions,
        backward_start,
    );
    let swapped = decisions
        .iter()
        .filter(|d| d.action == Action::Swap)
        .count();
    let tried = format!(
        "offloading all {swapped} saved tensors of at least {} after their last forward use, each brought back just before its first backward use{}",
        human_bytes(params.min_swap_bytes),
        super::host_note(kept_for_host, params)
    );
    finish_plan(policy, profile, &footprint, params, decisions, &tried)
}

/// `plan` (swap-all's) with each swapped tensor compressed with the codec
/// `codec_of` gives it, or moved as it is (also where the codec does not
/// suit the tensor, [`Codec::suits`]: too large for one copy, or a bitmap
/// of a tensor not counted as zeros and one value). Its prefetches are scheduled
/// again: a compressed copy needs room beside its tensor where it is made
/// and undone, so under a budget it may come back later than the tensor
/// would have, or the plan may no longer fit.
pub(super) fn with_codecs(
    policy: &dyn Policy,
    profile: &Profile,
    params: &PlanParams,
    plan: Plan,
    codec_of: impl Fn(&Decision) -> Option<Codec>,
) -> Result<Plan, PlanError> {
    let footprint = Footprint::of(profile);
    let decisions = codecs_scheduled(profile, &footprint, params, plan.decisions, codec_of);
    finish_with_codecs(policy, profile, &footprint, params, decisions)
}

/// `decisions` with the codecs `codec_of` gives (as [`with_codecs`]) and
/// their prefetches scheduled again; `footprint` is the profile's.
pub(super) fn codecs_scheduled(
    profile: &Profile,
    footprint: &Footprint,
    params: &PlanParams,
    mut decisions: Vec<Decision>,
    codec_of: impl Fn(&Decision) -> Option<Codec>,
) -> Vec<Decision> {
    let saved = saved_by_key(profile);
    for d in decisions.iter_mut().filter(|d| d.action == Action::Swap) {
        d.codec = codec_of(d).filter(|codec| saved.get(&d.key).is_some_and(|t| codec.suits(t)));
        d.prefetch_at = d.needed_at;
    }
    schedule_prefetches(profile, footprint, params, &mut decisions);
    decisions
}

/// The plan of `decisions` (from [`codecs_scheduled`]), or why it does not
/// fit.
pub(super) fn finish_with_codecs(
    policy: &dyn Policy,
    profile: &Profile,
    footprint: &Footprint,
    params: &PlanParams,
    decisions: Vec<Decision>,
) -> Result<Plan, PlanError> {
    let compressed = decisions.iter().filter(|d| d.codec.is_some()).count();
    let tried = format!(
        "swap-all's plan with {compressed} of its copies compressed on the device, each needing room for the codec's worst case beside its tensor"
    );
    finish_plan(policy, profile, footprint, params, decisions, &tried)
}

/// Sets the op each swapped tensor of `decisions` comes back at: a fixed
/// lookahead where `params` asks for one, else as early as the budget
/// allows. Without a budget, early copies may use the room the plan has
/// anyway (its device peak with just-in-time prefetches).
pub(super) fn schedule_prefetches(
    profile: &Profile,
    footprint: &Footprint,
    params: &PlanParams,
    decisions: &mut [Decision],
) {
    let backward_start = profile.backward_start.unwrap_or(profile.op_count);
    let cap = params
        .plan_budget()
        .unwrap_or_else(|| footprint.peak(profile, decisions).0);
    match params.prefetch_lookahead_ops {
        Some(ops) => prefetch_by_lookahead(profile, footprint, cap, decisions, ops, backward_start),
        None => prefetch_early(profile, footprint, cap, decisions, backward_start),
    }
}

/// The earliest op a swapped tensor can come back at: once backward started
/// and after its offload.
fn earliest_prefetch(d: &Decision, backward_start: u32) -> u32 {
    backward_start.max(d.offload_after + 1).min(d.needed_at)
}

/// A fixed lookahead: each swapped tensor comes back `ops` ops before its
/// first backward use. Where that goes over `cap`, the ones resident at the
/// peak are moved back to just in time until it fits.
fn prefetch_by_lookahead(
    profile: &Profile,
    footprint: &Footprint,
    cap: u64,
    decisions: &mut [Decision],
    ops: u32,
    backward_start: u32,
) {
    for d in decisions.iter_mut().filter(|d| d.action == Action::Swap) {
        d.prefetch_at = d
            .needed_at
            .saturating_sub(ops)
            .max(earliest_prefetch(d, backward_start));
    }
    loop {
        let (peak, at) = footprint.peak(profile, decisions);
        if peak <= cap {
            return;
        }
        let early = decisions
            .iter_mut()
            .find(|d| d.action == Action::Swap && d.prefetch_at <= at && d.needed_at > at);
        match early {
            Some(d) => d.prefetch_at = d.needed_at,
            None => return,
        }
    }
}

/// Brings each swapped tensor back as early as memory allows, so that its
/// copy has the most compute to hide behind: tensors needed first get the
/// memory nearest their use first, and each one's prefetch moves earlier op
/// by op while the iteration's device bytes stay under `cap`. If even just
/// in time goes over it, nothing moves and the plan reports the overflow.
fn prefetch_early(
    profile: &Profile,
    footprint: &Footprint,
    cap: u64,
    decisions: &mut [Decision],
    backward_start: u32,
) {
    let mut device = footprint.timeline(profile, decisions);
    if peak_of(&device).0 > cap {
        return;
    }
    let mut order: Vec<usize> = (0..decisions.len())
        .filter(|&i| decisions[i].action == Action::Swap)
        .collect();
    order.sort_by_key(|&i| (decisions[i].needed_at, decisions[i].key.op));
    let saved = saved_by_key(profile);
    for i in order {
        let d = &mut decisions[i];
        // The timeline ends with the profiled ops; a use past it is kept in range.
        let needed = (d.needed_at as usize).min(device.len());
        let earliest = (earliest_prefetch(d, backward_start) as usize).min(needed);
        let coming = bytes_coming_back(d, saved.get(&d.key).copied());
        let mut at = needed;
        while at > earliest && device[at - 1] + coming <= cap {
            at -= 1;
        }
        for bytes in &mut device[at..needed] {
            *bytes += coming;
        }
        if at < needed {
            d.prefetch_at = at as u32;
        }
    }
}

/// A swapped tensor that comes back the moment backward starts frees its
/// memory only through the end of forward, and pays for it with a round
/// trip at the link's busiest moment: its upload waits behind every
/// download still queued from the end of forward, and the first backward
/// ops need it at once (measured on an H100, Plain20 b256: a handful of such
/// waits cost 24 ms a step). Such tensors stay on the device wherever the
/// iteration's device bytes still fit under `cap`, latest offloaded first.
fn keep_what_returns_at_the_turn(
    profile: &Profile,
    footprint: &Footprint,
    cap: u64,
    decisions: &mut [Decision],
    backward_start: u32,
) {
    if footprint.peak(profile, decisions).0 > cap {
        return;
    }
    let mut at_the_turn: Vec<usize> = (0..decisions.len())
        .filter(|&i| {
            decisions[i].action == Action::Swap && decisions[i].prefetch_at <= backward_start
        })
        .collect();
    at_the_turn
        .sort_by_key(|&i| std::cmp::Reverse((decisions[i].offload_after, decisions[i].key.op)));
    for i in at_the_turn {
        let swapped = decisions[i];
        decisions[i] = Decision::keep(swapped.key, swapped.bytes);
        if footprint.peak(profile, decisions).0 > cap {
            decisions[i] = swapped;
        }
    }
}

/// The saved tensors of `profile`, by key.
fn saved_by_key(profile: &Profile) -> FxHashMap<TensorKey, &TensorProfile> {
    profile.saved_tensors().map(|t| (t.key, t)).collect()
}
