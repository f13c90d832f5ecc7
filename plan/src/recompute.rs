//! Which saved tensors a plan may rebuild in backward instead of keeping
//! them, and what rebuilding one needs.
//!
//! A saved tensor can be rebuilt when the op that made it can run again
//! ([`OpProfile::replayable`](crate::profile::OpProfile::replayable)) and
//! everything it read is still there in backward: tensors made before the
//! iteration (parameters, the batch), or saved tensors of the iteration
//! (kept, swapped or themselves rebuilt, a chain) that live at least until
//! the rebuilt tensor is needed. A tensor forward made and freed cannot be a
//! source: keeping it for the rebuild would cost the memory the rebuild saves.
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
use crate::profile::{Phase, Profile, TensorId, TensorKey, TensorProfile};

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

/// The saved tensors that can be rebuilt, each with the saved tensors its op reads.
#[derive(Debug, Clone, Default)]
pub struct RecomputeGraph {
    sources: FxHashMap<TensorKey, Vec<TensorKey>>,
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
            let mut sources = Vec::with_capacity(op.inputs.len());
            for id in &op.inputs {
                match by_id.get(id) {
                    None => {} // made before the iteration: it outlives backward
                    Some(u) if u.saved && u.released_at.is_none_or(|r| r >= needed) => {
                        sources.push(u.key)
                    }
                    Some(_) => continue 'tensors,
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

    /// The saved tensors rebuilding `key` reads.
    pub fn sources(&self, key: TensorKey) -> &[TensorKey] {
        self.sources.get(&key).map_or(&[], Vec::as_slice)
    }

    /// The recorded time of the op that rebuilds `key` (0 where untimed).
    pub fn rebuild_ns(&self, key: TensorKey) -> u64 {
        self.op_ns.get(&key).copied().unwrap_or(0)
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
/// a tensor `graph` cannot rebuild become `Keep`. A swapped tensor that
/// stands in for a freed one leaves the device after it (kept, where it
/// could not leave before backward).
pub fn resolve_needs(graph: &RecomputeGraph, decisions: &mut [Decision]) {
    for d in decisions.iter_mut() {
        if d.action == Action::Recompute && !graph.can_recompute(d.key) {
            *d = Decision::keep(d.key, d.bytes);
        }
        d.stand_in = match d.action {
            Action::Recompute => graph.stand_in(d.key),
            _ => None,
        };
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
    use super::{replays_alike_under_fusion, RecomputeGraph};
    use crate::testing::chain;

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
