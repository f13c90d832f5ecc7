//! Policies: from a profile to a plan, one decision per saved tensor.
//!
//! A [`Plan`] names, for each saved activation of the profiled iteration (by
//! [`TensorKey`]), an [`Action`] and its triggers: the op after which it is
//! offloaded and the op before which it is brought back. The executor applies
//! it as long as the op sequence matches the profiled one.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::config::SwapConfig;
use crate::error::SwapError;
use crate::profiler::{human_bytes, sweep, Profile, TensorKey, TensorProfile};

/// What happens to one saved activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Stays on the device.
    Keep,
    /// Copied to host memory after its last forward use, brought back before
    /// its first backward use.
    Swap,
}

/// The plan for one saved activation.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Decision {
    /// The tensor, by producing op.
    pub key: TensorKey,
    /// Its size.
    pub bytes: u64,
    /// What to do.
    pub action: Action,
    /// For `Swap`: offload once this op has run.
    pub offload_after: u32,
    /// For `Swap`: bring it back before this op runs.
    pub prefetch_at: u32,
    /// For `Swap`: its first backward use (the op its copy must beat).
    #[serde(default)]
    pub needed_at: u32,
}

/// A per-tensor plan for an iteration whose op sequence matches `op_signatures`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan {
    /// The policy that made it.
    pub policy: String,
    /// The profiled iteration it was made from.
    pub iteration: u64,
    /// One decision per saved activation.
    pub decisions: Vec<Decision>,
    /// The op sequence the plan is valid for.
    pub op_signatures: Vec<u64>,
    /// The device budget, if any: bytes the iteration may add to what the
    /// device held when it began (saved activations, working tensors and
    /// copies still in flight).
    pub budget_bytes: Option<u64>,
    /// Peak of the iteration's device bytes under this plan (simulated on
    /// the profile): what the budget is held against.
    #[serde(default)]
    pub expected_peak_bytes: u64,
    /// Op of that peak.
    #[serde(default)]
    pub expected_peak_op: u32,
    /// Peak resident saved bytes under this plan (simulated on the profile).
    pub expected_peak_saved_bytes: u64,
    /// Peak resident saved bytes if everything were kept.
    pub keep_all_peak_saved_bytes: u64,
    /// Why the plan moves no tensor, when it moves none.
    #[serde(default)]
    pub moves_nothing_because: Option<String>,
}

impl Plan {
    /// How many tensors are swapped.
    pub fn swapped_count(&self) -> usize {
        self.decisions
            .iter()
            .filter(|d| d.action == Action::Swap)
            .count()
    }
    /// Bytes swapped out (and back) per iteration.
    pub fn swapped_bytes(&self) -> u64 {
        self.decisions
            .iter()
            .filter(|d| d.action == Action::Swap)
            .map(|d| d.bytes)
            .sum()
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "burn-swap plan ({}, from iteration {}): {} saved tensors, {} swapped ({} per iteration each way)",
            self.policy,
            self.iteration,
            self.decisions.len(),
            self.swapped_count(),
            human_bytes(self.swapped_bytes())
        )?;
        write!(
            f,
            "  peak device bytes of the iteration: {} at op {}, budget: {}; peak resident saved: {} (keep-all: {})",
            human_bytes(self.expected_peak_bytes),
            self.expected_peak_op,
            self.budget_bytes.map_or("none".to_string(), human_bytes),
            human_bytes(self.expected_peak_saved_bytes),
            human_bytes(self.keep_all_peak_saved_bytes),
        )?;
        match &self.moves_nothing_because {
            Some(why) => write!(f, "\n  moves nothing: {why}"),
            None => Ok(()),
        }
    }
}

/// Turns a profile into a plan.
pub trait Policy: Send + Sync + fmt::Debug {
    /// Short name, as used in `BURN_SWAP_POLICY`.
    fn name(&self) -> &str;
    /// The plan for iterations like `profile`, or why none fits the budget.
    fn plan(&self, profile: &Profile, config: &SwapConfig) -> Result<Plan, SwapError>;
    /// Whether the policy moves tensors off the device. While an iteration
    /// is profiled under a budget, such a policy's tensors are moved off
    /// least recently used first whenever they go over it, so that a model
    /// that does not fit can still be profiled.
    fn moves_tensors(&self) -> bool {
        true
    }
}

/// Keeps every saved activation on the device (the undecorated behaviour,
/// with profiling).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeepAll;

/// vDNN: every saved activation of at least `min_swap_bytes` is offloaded
/// after its last forward use and brought back before its first backward
/// use, except those that would come back the moment backward starts and
/// fit under the budget through the end of forward (their round trip would
/// free nothing where it matters and stall the first backward ops).
#[derive(Debug, Clone, Copy, Default)]
pub struct SwapAll;

impl Policy for KeepAll {
    fn name(&self) -> &str {
        "keep-all"
    }

    fn moves_tensors(&self) -> bool {
        false
    }

    fn plan(&self, profile: &Profile, config: &SwapConfig) -> Result<Plan, SwapError> {
        let decisions = saved(profile).map(keep).collect();
        finish_plan(
            self.name(),
            profile,
            &Footprint::of(profile),
            config,
            decisions,
            "keeping every saved tensor on the device",
        )
    }
}

impl Policy for SwapAll {
    fn name(&self) -> &str {
        "swap-all"
    }

    fn plan(&self, profile: &Profile, config: &SwapConfig) -> Result<Plan, SwapError> {
        let backward_start = profile.backward_start.unwrap_or(profile.op_count);
        let mut decisions: Vec<Decision> = saved(profile)
            .map(|t| match t.first_backward_use {
                Some(first_use)
                    if t.bytes >= config.min_swap_bytes && t.last_forward_use < first_use =>
                {
                    Decision {
                        key: t.key,
                        bytes: t.bytes,
                        action: Action::Swap,
                        offload_after: t.last_forward_use,
                        prefetch_at: first_use,
                        needed_at: first_use,
                    }
                }
                _ => keep(t),
            })
            .collect();
        let footprint = Footprint::of(profile);
        // Without a budget, early copies may use the room the plan has
        // anyway (its device peak with just-in-time prefetches), and only
        // tensors that do not raise its saved-bytes peak stay on the device:
        // swap-all then moves all it can and still brings tensors back early.
        let cap = config
            .budget_bytes
            .unwrap_or_else(|| footprint.peak(profile, &decisions).0);
        let just_in_time_saved_peak = simulate(profile, &decisions).0;
        match config.prefetch_lookahead_ops {
            Some(ops) => prefetch_by_lookahead(
                profile,
                &footprint,
                cap,
                &mut decisions,
                ops,
                backward_start,
            ),
            None => prefetch_early(profile, &footprint, cap, &mut decisions, backward_start),
        }
        let (keep_footprint, keep_cap) = match config.budget_bytes {
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
            "offloading all {swapped} saved tensors of at least {} after their last forward use, each brought back just before its first backward use",
            human_bytes(config.min_swap_bytes)
        );
        finish_plan(self.name(), profile, &footprint, config, decisions, &tried)
    }
}

fn saved(profile: &Profile) -> impl Iterator<Item = &TensorProfile> {
    profile.tensors.iter().filter(|t| t.saved)
}

fn keep(t: &TensorProfile) -> Decision {
    kept(t.key, t.bytes)
}

fn kept(key: TensorKey, bytes: u64) -> Decision {
    Decision {
        key,
        bytes,
        action: Action::Keep,
        offload_after: 0,
        prefetch_at: 0,
        needed_at: 0,
    }
}

/// The earliest op a swapped tensor can come back at: once backward started
/// and after its offload.
fn earliest_prefetch(d: &Decision, backward_start: u32) -> u32 {
    backward_start.max(d.offload_after + 1).min(d.needed_at)
}

/// The device bytes of an iteration that are not saved activations, op by op:
/// its working tensors (activation gradients, temporaries, and the
/// parameter gradients backward leaves behind), kept from production to
/// release as no plan moves them. Tensors forward makes that outlive the
/// iteration (parameters and optimizer state, new at each optimizer step)
/// replace ones from before, so they add nothing in the iterations a plan is
/// for and are not counted. Each op's workspace (buffers it takes and gives
/// back inside itself) counts at that op. A plan's device bytes at an op are
/// these plus its resident saved bytes. `Footprint::default()` counts nothing
/// besides them.
#[derive(Debug, Clone, Default)]
pub struct Footprint {
    other: Vec<u64>,
}

impl Footprint {
    /// The non-saved bytes of each op of `profile`.
    pub fn of(profile: &Profile) -> Self {
        let n = profile.op_count;
        let backward = profile.backward_start.unwrap_or(n);
        let other = sweep(
            n,
            profile
                .tensors
                .iter()
                .filter(|t| !t.saved && (t.released_at.is_some() || t.key.op >= backward))
                .map(|t| (t.key.op, t.released_at.unwrap_or(n), t.bytes))
                .chain(
                    profile
                        .ops
                        .iter()
                        .map(|o| (o.index, o.index, o.workspace_bytes)),
                ),
        );
        Self { other }
    }

    /// The most non-saved bytes at any op: the least a budget must hold.
    pub fn peak_other(&self) -> u64 {
        self.other.iter().copied().max().unwrap_or(0)
    }

    /// Non-saved bytes at op `op`.
    pub fn other_at(&self, op: usize) -> u64 {
        self.other.get(op).copied().unwrap_or(0)
    }

    /// The iteration's device bytes at each op under `decisions`.
    pub fn timeline(&self, profile: &Profile, decisions: &[Decision]) -> Vec<u64> {
        resident_timeline(profile, decisions)
            .into_iter()
            .enumerate()
            .map(|(op, saved)| saved + self.other_at(op))
            .collect()
    }

    /// Peak device bytes under `decisions`, and the op where it occurs.
    pub fn peak(&self, profile: &Profile, decisions: &[Decision]) -> (u64, u32) {
        peak_of(&self.timeline(profile, decisions))
    }
}

fn peak_of(timeline: &[u64]) -> (u64, u32) {
    timeline
        .iter()
        .enumerate()
        .map(|(op, &bytes)| (bytes, op as u32))
        .max_by_key(|&(bytes, op)| (bytes, std::cmp::Reverse(op)))
        .unwrap_or((0, 0))
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
    for i in order {
        let d = &mut decisions[i];
        // The timeline ends with the profiled ops; a use past it is kept in range.
        let needed = (d.needed_at as usize).min(device.len());
        let earliest = (earliest_prefetch(d, backward_start) as usize).min(needed);
        let mut at = needed;
        while at > earliest && device[at - 1] + d.bytes <= cap {
            at -= 1;
        }
        for bytes in &mut device[at..needed] {
            *bytes += d.bytes;
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
        decisions[i] = kept(swapped.key, swapped.bytes);
        if footprint.peak(profile, decisions).0 > cap {
            decisions[i] = swapped;
        }
    }
}

/// Saved bytes resident at each op under `decisions`. A download holds its
/// device memory until its copy is done, so a swapped tensor is counted on
/// the device through the op after its offload; a link slower than that is
/// met by the executor, which waits for downloads rather than go over the
/// budget.
fn resident_timeline(profile: &Profile, decisions: &[Decision]) -> Vec<u64> {
    let releases: std::collections::HashMap<TensorKey, u32> = saved(profile)
        .map(|t| (t.key, t.released_at.unwrap_or(profile.op_count)))
        .collect();
    let mut intervals = Vec::with_capacity(decisions.len() * 2);
    for d in decisions {
        let release = releases.get(&d.key).copied().unwrap_or(profile.op_count);
        match d.action {
            Action::Keep => intervals.push((d.key.op, release, d.bytes)),
            Action::Swap => {
                let held = (d.offload_after + 1).min(release);
                intervals.push((d.key.op, held, d.bytes));
                intervals.push((d.prefetch_at, release, d.bytes));
            }
        }
    }
    sweep(profile.op_count, intervals)
}

/// Peak saved bytes on the device, and the op where it occurs, if the
/// iteration in `profile` ran under `decisions`.
pub fn simulate(profile: &Profile, decisions: &[Decision]) -> (u64, u32) {
    peak_of(&resident_timeline(profile, decisions))
}

fn finish_plan(
    policy: &str,
    profile: &Profile,
    footprint: &Footprint,
    config: &SwapConfig,
    decisions: Vec<Decision>,
    tried: &str,
) -> Result<Plan, SwapError> {
    let (peak, at) = footprint.peak(profile, &decisions);
    let (peak_saved, _) = simulate(profile, &decisions);
    let keep_all: Vec<Decision> = saved(profile).map(keep).collect();
    let (keep_all_peak, _) = simulate(profile, &keep_all);
    let moves_nothing_because = decisions
        .iter()
        .all(|d| d.action == Action::Keep)
        .then(|| why_nothing_moves(policy, profile, config, footprint));
    if let Some(budget) = config.budget_bytes {
        if peak > budget {
            return Err(SwapError::BudgetTooSmall {
                budget,
                need: peak,
                op: at,
                iteration: profile.iteration,
                policy: policy.to_string(),
                tried: format!(
                    "{tried}; of the {} needed at that op, {} are working tensors that no plan moves",
                    human_bytes(peak),
                    human_bytes(footprint.other_at(at as usize))
                ),
            });
        }
    }
    Ok(Plan {
        policy: policy.to_string(),
        iteration: profile.iteration,
        decisions,
        op_signatures: profile.op_signatures.clone(),
        budget_bytes: config.budget_bytes,
        expected_peak_bytes: peak,
        expected_peak_op: at,
        expected_peak_saved_bytes: peak_saved,
        keep_all_peak_saved_bytes: keep_all_peak,
        moves_nothing_because,
    })
}

/// Why a plan that keeps every saved tensor does so, in a user's terms.
fn why_nothing_moves(
    policy: &str,
    profile: &Profile,
    config: &SwapConfig,
    footprint: &Footprint,
) -> String {
    let saved: Vec<&TensorProfile> = saved(profile).collect();
    if !config.policy.moves_tensors() {
        return format!("policy {policy} keeps every tensor on the device");
    }
    if saved.is_empty() {
        return "the iteration saved no activations for backward".into();
    }
    if saved.iter().all(|t| t.bytes < config.min_swap_bytes) {
        return format!(
            "every saved tensor is under the minimum swap size of {} (min_swap_bytes, BURN_SWAP_MIN_SWAP_BYTES)",
            human_bytes(config.min_swap_bytes)
        );
    }
    let keep_all: Vec<Decision> = saved.iter().map(|t| keep(t)).collect();
    let (need, _) = footprint.peak(profile, &keep_all);
    match config.budget_bytes {
        Some(budget) => format!(
            "the budget of {} holds every saved tensor (keeping them all needs {}): lower it to move tensors",
            human_bytes(budget),
            human_bytes(need)
        ),
        None => "no saved tensor is worth a round trip".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiler::{OpRecord, OutputInfo, Phase, Recorder};
    use burn_backend::DType;

    /// Op `index` reads `inputs` and makes one tensor per `(id, bytes)`.
    fn record(index: u32, inputs: &[u64], outputs: &[(u64, u64)]) -> OpRecord {
        OpRecord {
            index,
            name: "op",
            signature: index as u64,
            inputs: inputs.to_vec(),
            outputs: outputs.iter().map(|&(id, _)| id).collect(),
            output_info: outputs
                .iter()
                .map(|&(id, bytes)| OutputInfo {
                    id,
                    output: 0,
                    bytes,
                    shape: vec![bytes as usize / 4],
                    dtype: DType::F32,
                })
                .collect(),
        }
    }

    #[test]
    fn an_ops_workspace_counts_at_that_op_only() {
        let mut recorder = Recorder::new(16, 0);
        recorder.op(record(0, &[], &[(1, 100)]), Phase::Forward, None, 100, 0);
        recorder.op(record(1, &[1], &[(2, 10)]), Phase::Forward, None, 110, 1000);
        recorder.op(record(2, &[1, 2], &[]), Phase::Forward, None, 110, 0);
        recorder.released(1, 2);
        recorder.released(2, 2);
        let profile = recorder.finish(0, 3, None);
        assert_eq!(profile.ops[1].workspace_bytes, 1000);
        let footprint = Footprint::of(&profile);
        assert_eq!(footprint.other_at(0), 100);
        assert_eq!(footprint.other_at(1), 100 + 10 + 1000);
        assert_eq!(footprint.other_at(2), 110);
        assert_eq!(footprint.peak_other(), 1110);
    }
}
