//! Which saved tensors a plan may rebuild in backward instead of keeping
//! them, and what rebuilding one needs.
//!
//! A saved tensor can be rebuilt when the op that made it can run again
//! ([`OpProfile::replayable`](crate::profile::OpProfile::replayable)) and
//! everything it read is there again in backward: tensors made before the
//! iteration (parameters, the batch), saved tensors of the iteration (kept,
//! swapped or themselves rebuilt, a chain) that live at least until the
//! rebuilt tensor is needed, or tensors forward made and freed whose own
//! ops can run again from such sources. Those are made again on the way
//! and freed once the tensor read from them is made: keeping them instead
//! would cost the memory the rebuild saves. A softmax's `x - max` is one
//! (burn-autodiff saves it for `exp`'s backward): it reads the masked
//! scores and their row maxima, which forward frees, made from the saved
//! `q` and `k` by a matmul, a scaling, a dropout's product and a fill.
//!
//! One case costs nothing to rebuild: the input of a ReLU that backward
//! reads only for the ReLU's own gradient. burn-autodiff 0.21 saves a
//! ReLU's input for `relu_backward`, while the next op saves its output,
//! two tensors of one size where one would do. `relu_backward` only asks
//! which elements were positive, and the output answers that as the input
//! does (ReLU keeps the positive elements and zeroes the rest, NaN
//! included as either backend rule treats it): the output stands in for
//! the input, and the input is freed after forward.
//!
//! Another costs nothing either: a tensor an earlier op already made, the
//! same element-wise op of the same two tensors. burn-nn 0.21's
//! `BatchNorm` subtracts the batch mean from its input twice in training
//! (once for the variance, once to normalise), and backward saves both
//! differences; the first stands in for the second, bit for bit.

use std::cmp::Reverse;

use rustc_hash::FxHashMap;

use crate::plan::{Action, Decision};
use crate::policy::PlanParams;
use crate::profile::{OpProfile, Phase, Profile, TensorId, TensorKey, TensorProfile};

/// Whether op `name`, run again outside the fused block it ran in, makes
/// the same bits under burn's fusion: element-wise and layout ops do.
/// Matmuls, convolutions, pooling, reductions and the ops built on them
/// (softmax, layer norm, attention) do not always: their kernels are picked
/// by autotune for the block they are fused in, so a replay alone can sum
/// in another order. On an H200 under fused `Cuda`, `home`'s GPT-small b4
/// plan that rebuilt 72 tensors, some of them such ops, and read the
/// rebuilds at once, gave a loss one bit off plain's (3.6983356 against
/// 3.6983352). burn-swap reads a rebuild of such an op only once one was
/// compared with its tensor and gave the same bits.
pub fn replays_alike_under_fusion(name: &str) -> bool {
    // `float_mul_scalar` and `float_powi_scalar_impl` are `mul` and `powi`.
    let op = name.strip_prefix("float_").unwrap_or(name);
    let op = op.strip_suffix("_impl").unwrap_or(op);
    let op = op.strip_suffix("_scalar").unwrap_or(op);
    matches!(
        op,
        "add"
            | "sub"
            | "mul"
            | "div"
            | "remainder"
            | "powf"
            | "powi"
            | "atan2"
            | "neg"
            | "abs"
            | "sign"
            | "recip"
            | "sqrt"
            | "exp"
            | "log"
            | "log1p"
            | "erf"
            | "sin"
            | "cos"
            | "tan"
            | "sinh"
            | "cosh"
            | "tanh"
            | "asin"
            | "acos"
            | "atan"
            | "asinh"
            | "acosh"
            | "atanh"
            | "floor"
            | "ceil"
            | "round"
            | "trunc"
            | "clamp"
            | "clamp_min"
            | "clamp_max"
            | "mask_fill"
            | "mask_where"
            | "cast"
            | "relu"
            | "leaky_relu"
            | "prelu"
            | "gelu"
            | "sigmoid"
            | "hard_sigmoid"
            | "log_sigmoid"
            | "reshape"
            | "permute"
            | "transpose"
            | "swap_dims"
            | "expand"
            | "flip"
            | "repeat_dim"
            | "detach"
    )
}

/// Most tensors forward freed that one rebuilt tensor is made through.
const MAX_TRANSIENTS: usize = 8;

/// A tensor forward freed that a rebuild is made through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transient {
    /// Its size.
    pub bytes: u64,
    /// Its last forward use: it is freed once that op has run.
    pub freed_after: u32,
}

/// The saved tensors that can be rebuilt, each with the tensors its op
/// reads that are made in the iteration: saved ones, and ones forward
/// freed ([`Self::transient`]), each of those with its own sources.
#[derive(Debug, Clone, Default)]
pub struct RecomputeGraph {
    sources: FxHashMap<TensorKey, Vec<TensorKey>>,
    /// The tensors forward freed that rebuilds are made through; each
    /// belongs to the chain of one saved tensor.
    transients: FxHashMap<TensorKey, Transient>,
    /// The producing op's recorded time, where timed.
    op_ns: FxHashMap<TensorKey, u64>,
    /// ReLU inputs read in backward only by `relu_backward`: the ReLU's
    /// output, which stands in for them; and tensors an earlier op made
    /// already: that op's output.
    stand_ins: FxHashMap<TensorKey, TensorKey>,
}

impl RecomputeGraph {
    /// The rebuildable tensors of `profile`.
    pub fn of(profile: &Profile) -> Self {
        Self::build(profile, &PlanParams::default())
    }

    /// The tensors plans made with `params` may rebuild: none where they
    /// allow no rebuilds, and through tensors forward freed as they allow
    /// it ([`PlanParams::rebuild_through_freed`]).
    pub fn for_params(profile: &Profile, params: &PlanParams) -> Self {
        match params.rebuild {
            true => Self::build(profile, params),
            false => Self::default(),
        }
    }

    fn build(profile: &Profile, params: &PlanParams) -> Self {
        let by_id: FxHashMap<TensorId, &TensorProfile> =
            profile.tensors.iter().map(|t| (t.id, t)).collect();
        let first_made = first_made_by_same_op(profile);
        let mut graph = Self::default();
        'tensors: for t in profile.saved_tensors() {
            let Some(op) = profile.ops.get(t.key.op as usize) else {
                continue;
            };
            if t.rebuild_refused {
                continue;
            }
            let Some(needed) = t.first_backward_use else {
                continue;
            };
            // An op found not to replay alike (`OpProfile::replayable`)
            // may not give an earlier op's bits either.
            let stand_in = op
                .replayable
                .then(|| earlier_duplicate(&by_id, &first_made, t, needed))
                .flatten()
                .or_else(|| relu_output_standing_in(profile, &by_id, t));
            if let Some(stand_in) = stand_in {
                graph.sources.insert(t.key, vec![stand_in]);
                graph.stand_ins.insert(t.key, stand_in);
                continue;
            }
            if !op.replayable || op.phase != Phase::Forward || op.outputs.len() != 1 {
                continue;
            }
            let mut chain = Chain {
                through_freed: params.rebuild_through_freed,
                ..Chain::default()
            };
            let Some(sources) = chain.sources_of(profile, &by_id, &graph, op, needed) else {
                continue 'tensors;
            };
            let alike = || replays_alike_under_fusion(&op.name) && !chain.unalike;
            if params.under_fusion && t.bytes < COMPARED_REBUILD_MIN_BYTES && !alike() {
                continue 'tensors;
            }
            for (key, transient, sources, ns) in chain.transients {
                graph.transients.insert(key, transient);
                graph.sources.insert(key, sources);
                if let Some(ns) = ns {
                    graph.op_ns.insert(key, ns);
                }
            }
            graph.sources.insert(t.key, sources);
            if let Some(ns) = op.duration_ns {
                graph.op_ns.insert(t.key, ns);
            }
        }
        // An output that stands in for its ReLU's input is not rebuilt from
        // that input (each would wait for the other); rebuilding the input
        // instead frees as much, for nothing. An earlier duplicate that
        // stands in stays too: it is read where the later one is needed.
        for output in graph.stand_ins.values() {
            graph.sources.remove(output);
            graph.op_ns.remove(output);
        }
        graph
            .stand_ins
            .retain(|input, _| graph.sources.contains_key(input));
        graph
    }

    /// The saved tensor that stands in for `key` in backward, where one
    /// does (its ReLU's output, made after it, or an earlier op's equal
    /// output): then rebuilding it costs nothing, and only that tensor must
    /// be there.
    pub fn stand_in(&self, key: TensorKey) -> Option<TensorKey> {
        self.stand_ins.get(&key).copied()
    }

    /// Whether `key` can be rebuilt.
    pub fn can_recompute(&self, key: TensorKey) -> bool {
        self.sources.contains_key(&key)
    }

    /// Whether `key` is a tensor forward freed that rebuilds are made
    /// through, and where it is freed.
    pub fn transient(&self, key: TensorKey) -> Option<Transient> {
        self.transients.get(&key).copied()
    }

    /// The tensors of the iteration rebuilding `key` reads: saved ones, and
    /// ones forward freed made again first.
    pub fn sources(&self, key: TensorKey) -> &[TensorKey] {
        self.sources.get(&key).map_or(&[], Vec::as_slice)
    }

    /// The recorded time of the op that rebuilds `key` (0 where untimed).
    pub fn rebuild_ns(&self, key: TensorKey) -> u64 {
        self.op_ns.get(&key).copied().unwrap_or(0)
    }
}

/// The least bytes of a saved tensor rebuilt under burn's fusion with an
/// op other than element-wise and layout ones ([`replays_alike_under_fusion`]),
/// its own or one of the tensors forward freed it is made through
/// ([`PlanParams::under_fusion`]). Such an op's kernel depends on what
/// fusion fused into its reads, which differs where its inputs are made
/// again or read from a buffer, so only comparing the rebuild with the
/// tensor vouches for it, and only over enough elements: a SmallCnn's
/// 4-element `sum_dim` made again through its `exp` gave forward's bits
/// when compared and other bits two steps later, in most runs on fused
/// `Wgpu`. 4,096 `f32` elements are enough that a kernel summing in
/// another order cannot give all of their bits by chance, and far below
/// the tensors whose rebuild saves memory worth a chain (a GPT-small
/// softmax's `x - max` at batch 4: 192 MiB). Element-wise and layout ops
/// give each element the same bits in any block.
pub const COMPARED_REBUILD_MIN_BYTES: u64 = 16 * 1024;

/// The tensors one rebuild reads, found from the op that makes it.
#[derive(Default)]
struct Chain {
    /// Whether it may run through tensors forward freed.
    through_freed: bool,
    /// Whether one of those is made by an op that may not replay alike
    /// under fusion ([`replays_alike_under_fusion`]).
    unalike: bool,
    /// The tensors forward freed it is made through: each with where it is
    /// freed, its own sources and its op's time.
    transients: Vec<(TensorKey, Transient, Vec<TensorKey>, Option<u64>)>,
}

impl Chain {
    /// What `op` reads, where each is there again at op `needed`: made
    /// before the iteration (not a source), saved and alive then, or forward
    /// freed and made again from such tensors by ops that can run again,
    /// none of them in another tensor's chain (those go to
    /// `self.transients`). `None` where one is not.
    fn sources_of(
        &mut self,
        profile: &Profile,
        by_id: &FxHashMap<TensorId, &TensorProfile>,
        graph: &RecomputeGraph,
        op: &OpProfile,
        needed: u32,
    ) -> Option<Vec<TensorKey>> {
        let mut sources = Vec::with_capacity(op.inputs.len());
        for id in &op.inputs {
            let Some(u) = by_id.get(id) else {
                continue; // made before the iteration: it outlives backward
            };
            if u.saved {
                if u.released_at.is_some_and(|r| r < needed) {
                    return None;
                }
                sources.push(u.key);
                continue;
            }
            if self.transients.iter().any(|(k, ..)| *k == u.key) {
                sources.push(u.key); // read twice in the chain (x - max(x))
                continue;
            }
            // Freed in the iteration without backward reading it, by an
            // op that can run again, and in no other tensor's chain.
            let made_by = profile
                .ops
                .get(u.key.op as usize)
                .filter(|o| o.replayable && o.phase == Phase::Forward && o.outputs.len() == 1);
            let made_by = made_by.filter(|_| self.through_freed)?;
            if u.rebuild_refused
                || u.released_at.is_none()
                || !u.backward_uses.is_empty()
                || graph.transients.contains_key(&u.key)
                || self.transients.len() == MAX_TRANSIENTS
            {
                return None;
            }
            let at = self.transients.len();
            let transient = Transient {
                bytes: u.bytes,
                freed_after: u.last_forward_use,
            };
            self.unalike |= !replays_alike_under_fusion(&made_by.name);
            self.transients
                .push((u.key, transient, Vec::new(), made_by.duration_ns));
            self.transients[at].2 = self.sources_of(profile, by_id, graph, made_by, needed)?;
            sources.push(u.key);
        }
        Some(sources)
    }
}

/// The output of the ReLU that read `t`, where `t` is read in backward only
/// by `relu_backward` as the tensor its mask comes from, and that output is
/// saved too (backward holds it anyway; standing in keeps it until `t`'s
/// last use, a few ops later).
fn relu_output_standing_in(
    profile: &Profile,
    by_id: &FxHashMap<TensorId, &TensorProfile>,
    t: &TensorProfile,
) -> Option<TensorKey> {
    let mask_only = !t.backward_uses.is_empty()
        && t.backward_uses.iter().all(|&u| {
            profile
                .ops
                .get(u as usize)
                .is_some_and(|op| op.name == "relu_backward" && op.inputs.first() == Some(&t.id))
        });
    if !mask_only {
        return None;
    }
    t.forward_uses.iter().find_map(|&u| {
        let op = profile.ops.get(u as usize)?;
        if op.name != "relu" || op.inputs.as_slice() != [t.id] || op.outputs.len() != 1 {
            return None;
        }
        let output = by_id.get(&op.outputs[0])?;
        output.saved.then_some(output.key)
    })
}

/// Element-wise ops of two tensors and nothing else: the same op on the
/// same tensors makes the same bits.
const PURE_BINARY: [&str; 4] = ["float_add", "float_sub", "float_mul", "float_div"];

/// For each forward op of [`PURE_BINARY`] that an earlier one repeats (the
/// same name, the same inputs in the same order), its output's id with the
/// earlier op's.
fn first_made_by_same_op(profile: &Profile) -> FxHashMap<TensorId, TensorId> {
    let mut first: FxHashMap<(&str, &[TensorId]), TensorId> = FxHashMap::default();
    let mut repeats = FxHashMap::default();
    for op in &profile.ops {
        if op.phase != Phase::Forward
            || op.outputs.len() != 1
            || !PURE_BINARY.contains(&op.name.as_ref())
        {
            continue;
        }
        match first.entry((op.name.as_ref(), op.inputs.as_slice())) {
            std::collections::hash_map::Entry::Occupied(made) => {
                repeats.insert(op.outputs[0], *made.get());
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(op.outputs[0]);
            }
        }
    }
    repeats
}

/// The earlier, equal output that stands in for `t`, where it is saved too
/// and backward keeps it until `t` is needed (at `needed`): standing in
/// then costs no memory either.
fn earlier_duplicate(
    by_id: &FxHashMap<TensorId, &TensorProfile>,
    first_made: &FxHashMap<TensorId, TensorId>,
    t: &TensorProfile,
    needed: u32,
) -> Option<TensorKey> {
    let first = by_id.get(first_made.get(&t.id)?)?;
    (first.saved && first.bytes == t.bytes && first.released_at.is_none_or(|r| r >= needed))
        .then_some(first.key)
}

/// Makes the sources of every rebuilt tensor ready in time for it: a
/// source's `needed_at` becomes the earliest op that needs it, its own
/// backward use or the rebuild of a tensor made from it (a swapped source
/// is then brought back by that op, a rebuilt one is rebuilt then). Each
/// rebuilt tensor's `prefetch_at` is its `needed_at`. Decisions that rebuild
/// a tensor `graph` cannot rebuild become `Keep`. The tensors forward frees
/// that rebuilds are made through get decisions of their own, after the
/// saved tensors' (made again where the first tensor made from them is
/// needed; those of an earlier call are taken out first). A swapped tensor
/// that stands in for a freed one leaves the device after it (kept, where
/// it could not leave before backward).
pub fn resolve_needs(graph: &RecomputeGraph, decisions: &mut Vec<Decision>) {
    decisions.retain(|d| !d.transient);
    for d in decisions.iter_mut() {
        if d.action == Action::Recompute && !graph.can_recompute(d.key) {
            *d = Decision::keep(d.key, d.bytes);
        }
        d.stand_in = match d.action {
            Action::Recompute => graph.stand_in(d.key),
            _ => None,
        };
    }
    let mut through: Vec<TensorKey> = decisions
        .iter()
        .filter(|d| d.action == Action::Recompute && d.stand_in.is_none())
        .flat_map(|d| graph.sources(d.key))
        .copied()
        .collect();
    let mut added = rustc_hash::FxHashSet::default();
    while let Some(key) = through.pop() {
        let Some(transient) = graph.transient(key) else {
            continue;
        };
        if !added.insert(key) {
            continue;
        }
        through.extend_from_slice(graph.sources(key));
        decisions.push(Decision {
            action: Action::Recompute,
            offload_after: transient.freed_after,
            // Set below, from the tensors made from it.
            prefetch_at: u32::MAX,
            needed_at: u32::MAX,
            transient: true,
            ..Decision::keep(key, transient.bytes)
        });
    }
    let index: FxHashMap<TensorKey, usize> = decisions
        .iter()
        .enumerate()
        .map(|(i, d)| (d.key, i))
        .collect();
    let mut rebuilt: Vec<usize> = (0..decisions.len())
        .filter(|&i| decisions[i].action == Action::Recompute)
        .collect();
    // A tensor is made after its sources: latest first, so that each one's
    // need is final before it is passed on.
    rebuilt.sort_by_key(|&i| Reverse(decisions[i].key.op));
    for i in rebuilt {
        let need = decisions[i].needed_at;
        decisions[i].prefetch_at = need;
        for source in graph.sources(decisions[i].key) {
            let Some(&j) = index.get(source) else {
                continue;
            };
            let d = &mut decisions[j];
            if d.action != Action::Keep && need < d.needed_at {
                d.needed_at = need;
                d.prefetch_at = d.prefetch_at.min(need);
            }
        }
    }
    // Under fusion a tensor freed for a stand-in takes the stand-in's buffer
    // as it is freed, so the stand-in must still be on the device then: on
    // ResNet-50 b48, 21 earlier equal outputs swapped out first kept the
    // tensors they stood in for (1 GB) on the device.
    for i in 0..decisions.len() {
        let (Some(source), freed_after) = (decisions[i].stand_in, decisions[i].offload_after)
        else {
            continue;
        };
        let Some(&j) = index.get(&source) else {
            continue;
        };
        let d = &mut decisions[j];
        if d.action == Action::Swap && d.offload_after <= freed_after {
            match freed_after + 1 < d.needed_at {
                true => d.offload_after = freed_after + 1,
                false => *d = Decision::keep(d.key, d.bytes),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        replays_alike_under_fusion, resolve_needs, RecomputeGraph, COMPARED_REBUILD_MIN_BYTES,
    };
    use crate::cost::{replay, CodecTime};
    use crate::memory::Footprint;
    use crate::plan::{Action, Decision};
    use crate::profile::{Phase, Profile, Recorder};
    use crate::testing::{chain, gigabyte_link, rebuild, record, record_forward};

    const MIB: u64 = 1 << 20;

    /// A softmax's shape: `scores` (1) is saved, `scaled` (2) and its row
    /// maximum (3) are freed in forward, `shifted = scaled - max` (4) is
    /// saved; `random` (5) is made by an op that cannot run again and read
    /// by `dropped` (6), freed in forward, read by the saved `out` (7).
    /// Every op takes 1 ms; backward reads 7, then 4, then 1, then 5.
    fn softmax_like() -> Profile {
        softmax_of(MIB)
    }

    /// [`softmax_like`] with rows of `bytes`.
    fn softmax_of(bytes: u64) -> Profile {
        let forward = vec![
            ("float_matmul", vec![], 1, bytes),
            ("float_div_scalar", vec![1], 2, bytes),
            ("float_max_dim", vec![2], 3, 1024),
            ("float_sub", vec![2, 3], 4, bytes),
            ("float_random", vec![], 5, bytes),
            ("float_mul", vec![4, 5], 6, bytes),
            ("float_exp", vec![6], 7, bytes),
        ];
        recorded(
            forward,
            &[(2, 3), (3, 3), (6, 6)],
            &[(7, 7), (8, 4), (9, 1), (10, 5)],
        )
    }

    /// The profile of `forward`, its tensors `freed` (id, after op) in
    /// forward, then backward's ops (at, the tensor each reads and frees).
    fn recorded(
        forward: Vec<(&'static str, Vec<u64>, u64, u64)>,
        freed: &[(u64, u32)],
        backward: &[(u32, u64)],
    ) -> Profile {
        let mut recorder = Recorder::new(64, 0);
        let live = record_forward(&mut recorder, forward);
        for &(id, after) in freed {
            recorder.released(id, after);
        }
        recorder.backward_starts(backward[0].0);
        for &(at, read) in backward {
            recorder.op(
                record(at, &[read], &[]),
                Phase::Backward,
                Some(1_000_000),
                live,
                0,
            );
            recorder.released(read, at);
        }
        recorder.finish(0, backward[backward.len() - 1].0 + 1, None)
    }

    #[test]
    fn a_tensor_made_from_ones_forward_freed_is_rebuilt_through_them_in_order() {
        let profile = softmax_like();
        let key = |id: u64| profile.tensors.iter().find(|t| t.id == id).unwrap().key;
        let graph = RecomputeGraph::of(&profile);
        let (scores, scaled, max, shifted) = (key(1), key(2), key(3), key(4));
        assert!(graph.can_recompute(shifted));
        assert_eq!(graph.sources(shifted), &[scaled, max]);
        assert_eq!(graph.sources(max), &[scaled]);
        assert_eq!(graph.sources(scaled), &[scores]);
        assert_eq!(graph.transient(scaled).unwrap().freed_after, 3);
        assert_eq!(graph.transient(scores), None);

        let mut decisions = Decision::keep_all(&profile);
        let i = decisions.iter().position(|d| d.key == shifted).unwrap();
        rebuild(&profile, &mut decisions, i);
        resolve_needs(&graph, &mut decisions);
        resolve_needs(&graph, &mut decisions);
        let transients: Vec<&Decision> = decisions.iter().filter(|d| d.transient).collect();
        assert_eq!(transients.len(), 2, "added once, whatever the calls");
        let needed = decisions[i].needed_at;
        assert_eq!(needed, 8);
        for d in &transients {
            assert_eq!(
                (d.action, d.needed_at, d.prefetch_at),
                (Action::Recompute, needed, needed)
            );
            assert_eq!(d.offload_after, 3);
        }
        // Their ops run again with the sub's: 3 ms.
        let time = replay(&profile, &decisions, &gigabyte_link(), CodecTime::Measured);
        assert_eq!(time.recompute_ns, 3e6);
        // They are counted where the sub is needed, not through backward.
        let footprint = Footprint::of(&profile);
        let timeline = footprint.timeline(&profile, &decisions);
        let kept = footprint.timeline(&profile, &Decision::keep_all(&profile));
        assert_eq!(timeline[8], kept[8] + MIB + 1024);
        assert_eq!(timeline[6], kept[6] - MIB);

        // Not rebuilt, the sub leaves its transients out again.
        decisions[i] = Decision::keep(shifted, MIB);
        resolve_needs(&graph, &mut decisions);
        assert!(decisions.iter().all(|d| !d.transient));
    }

    #[test]
    fn under_fusion_a_rebuild_with_a_matmul_or_a_reduction_is_only_for_tensors_large_enough_to_compare(
    ) {
        let fused = crate::policy::PlanParams {
            under_fusion: true,
            ..Default::default()
        };
        // `x - max`: its row maxima are a reduction's.
        for (bytes, rebuilt) in [(MIB, true), (COMPARED_REBUILD_MIN_BYTES - 4, false)] {
            let profile = softmax_of(bytes);
            let shifted = profile.tensors.iter().find(|t| t.id == 4).unwrap().key;
            let graph = RecomputeGraph::for_params(&profile, &fused);
            assert_eq!(graph.can_recompute(shifted), rebuilt, "{bytes} bytes");
            assert!(RecomputeGraph::of(&profile).can_recompute(shifted));
        }
        // An `exp` of a scaling forward freed: element-wise all through.
        let forward = vec![
            ("float_matmul", vec![], 1, 64),
            ("float_div_scalar", vec![1], 2, 64),
            ("float_exp", vec![2], 3, 64),
        ];
        let profile = recorded(forward, &[(2, 2)], &[(3, 3), (4, 1)]);
        let exp = profile.tensors.iter().find(|t| t.id == 3).unwrap().key;
        let graph = RecomputeGraph::for_params(&profile, &fused);
        assert!(graph.can_recompute(exp));
        assert_eq!(graph.sources(exp).len(), 1);
        // The matmul of 16 elements, run again alone.
        let scores = profile.tensors.iter().find(|t| t.id == 1).unwrap().key;
        assert!(!graph.can_recompute(scores));
        assert!(RecomputeGraph::of(&profile).can_recompute(scores));
    }

    #[test]
    fn plans_that_may_not_run_through_freed_tensors_rebuild_from_kept_ones_only() {
        let profile = softmax_like();
        let key = |id: u64| profile.tensors.iter().find(|t| t.id == id).unwrap().key;
        let params = crate::policy::PlanParams {
            rebuild_through_freed: false,
            ..Default::default()
        };
        let graph = RecomputeGraph::for_params(&profile, &params);
        assert!(
            graph.can_recompute(key(1)),
            "made from tensors before the iteration"
        );
        assert!(!graph.can_recompute(key(4)));
        assert!(!graph.can_recompute(key(7)));
        assert_eq!(graph.transient(key(2)), None);
        let none = crate::policy::PlanParams {
            rebuild: false,
            ..Default::default()
        };
        assert!(!RecomputeGraph::for_params(&profile, &none).can_recompute(key(1)));
    }

    #[test]
    fn no_chain_runs_through_a_random_op_or_a_tensor_backward_reads() {
        let mut profile = softmax_like();
        let key = |p: &Profile, id: u64| p.tensors.iter().find(|t| t.id == id).unwrap().key;
        // `dropped` is made from a random tensor: `out` is not rebuilt
        // (the random tensor is saved, but forward freed its product).
        let graph = RecomputeGraph::of(&profile);
        assert!(graph.can_recompute(key(&profile, 7)));
        let random = profile.tensors.iter_mut().find(|t| t.id == 5).unwrap();
        random.saved = false;
        random.backward_uses.clear();
        let graph = RecomputeGraph::of(&profile);
        assert!(!graph.can_recompute(key(&profile, 7)));
        // A freed tensor that backward reads is not a transient.
        let mut profile = softmax_like();
        profile
            .tensors
            .iter_mut()
            .find(|t| t.id == 2)
            .unwrap()
            .backward_uses = vec![9];
        let graph = RecomputeGraph::of(&profile);
        assert!(!graph.can_recompute(key(&profile, 4)));
    }

    #[test]
    fn a_tensor_its_executor_could_not_free_for_a_rebuild_is_not_rebuilt() {
        let mut profile = chain(&[1 << 20; 3]);
        let second = profile.saved_tensors().nth(1).unwrap().key;
        assert!(RecomputeGraph::of(&profile).can_recompute(second));
        for t in profile.tensors.iter_mut().filter(|t| t.key == second) {
            t.rebuild_refused = true;
        }
        let graph = RecomputeGraph::of(&profile);
        assert!(!graph.can_recompute(second));
        // The others still are.
        let third = profile.saved_tensors().nth(2).unwrap().key;
        assert!(graph.can_recompute(third));
    }

    #[test]
    fn only_element_wise_and_layout_ops_are_replayed_under_fusion() {
        for op in [
            "float_add",
            "float_mul_scalar",
            "float_powi_scalar_impl",
            "gelu",
            "float_exp",
            "float_reshape",
            "relu",
        ] {
            assert!(replays_alike_under_fusion(op), "{op}");
        }
        for op in [
            "float_matmul",
            "linear",
            "conv2d",
            "float_sum_dim",
            "float_mean",
            "softmax",
            "layer_norm",
            "attention",
            "max_pool2d",
            "float_cumsum",
        ] {
            assert!(!replays_alike_under_fusion(op), "{op}");
        }
    }
}
