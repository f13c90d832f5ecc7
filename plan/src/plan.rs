//! Plans: one decision per saved tensor.
//!
//! A [`Plan`] names, for each saved activation of the profiled iteration (by
//! [`TensorKey`]), an [`Action`] and its triggers: the op after which it is
//! offloaded and the op before which it is brought back. The executor applies
//! it as long as the op sequence matches the profiled one.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::cost::{Codec, SwapReplay};
use crate::human_bytes;
use crate::profile::{Profile, TensorKey};

/// What happens to one saved activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Stays on the device.
    Keep,
    /// Copied to host memory after its last forward use, brought back before
    /// its first backward use.
    Swap,
    /// Freed after its last forward use and rebuilt before its first
    /// backward use by running the op that made it again, on inputs that
    /// are kept, swapped or themselves rebuilt (see [`crate::recompute`]).
    Recompute,
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
    /// For `Swap`: offload once this op has run; for `Recompute`: free it
    /// once this op has run.
    pub offload_after: u32,
    /// For `Swap`: bring it back before this op runs; for `Recompute`: the
    /// same as `needed_at`.
    pub prefetch_at: u32,
    /// For `Swap` and `Recompute`: the first op that needs it again (its
    /// first backward use, or earlier where a rebuilt tensor is made from it).
    #[serde(default)]
    pub needed_at: u32,
    /// For `Swap`: compressed on the device with this codec before it
    /// crosses the link, decompressed once it is back; `None` moves it as it
    /// is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codec: Option<Codec>,
    /// For `Recompute`: a saved tensor that stands in for it in backward
    /// instead of running its op again, the output of the ReLU that read it
    /// or an earlier op's equal output (see
    /// [`RecomputeGraph::stand_in`](crate::recompute::RecomputeGraph::stand_in)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stand_in: Option<TensorKey>,
    /// For `Recompute`: not a saved tensor but one forward frees once read,
    /// made again only on the way to a rebuilt tensor that is made from it
    /// (see [`RecomputeGraph::transient`](crate::recompute::RecomputeGraph::transient)),
    /// and freed once that tensor is made.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transient: bool,
}

impl Decision {
    /// The earlier op's equal output that stands in for it, where that is
    /// its stand-in (a ReLU's output is made after the input it stands in
    /// for).
    pub fn earlier_stand_in(&self) -> Option<TensorKey> {
        self.stand_in.filter(|s| s.op < self.key.op)
    }

    /// Keeps tensor `key` of `bytes` on the device.
    pub fn keep(key: TensorKey, bytes: u64) -> Self {
        Self {
            key,
            bytes,
            action: Action::Keep,
            offload_after: 0,
            prefetch_at: 0,
            needed_at: 0,
            codec: None,
            stand_in: None,
            transient: false,
        }
    }

    /// Keeps every saved tensor of `profile` on the device.
    pub fn keep_all(profile: &Profile) -> Vec<Self> {
        profile
            .saved_tensors()
            .map(|t| Self::keep(t.key, t.bytes))
            .collect()
    }
}

/// A per-tensor plan for an iteration whose op sequence matches `op_signatures`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Plan {
    /// The policy that made it.
    pub policy: String,
    /// The profiled iteration it was made from.
    pub iteration: u64,
    /// One decision per saved activation, then one per tensor forward
    /// frees that a rebuild is made through ([`Decision::transient`]).
    pub decisions: Vec<Decision>,
    /// The op sequence the plan is valid for.
    pub op_signatures: Vec<u64>,
    /// The device budget, if any: bytes the iteration may add to what the
    /// device held when it began (saved activations, working tensors and
    /// copies still in flight).
    pub budget_bytes: Option<u64>,
    /// Peak of the iteration's device bytes under this plan (simulated on
    /// the profile, plus [`Self::unseen_bytes`]): what the budget is held
    /// against.
    #[serde(default)]
    pub expected_peak_bytes: u64,
    /// Device bytes the iteration adds beyond what the profile shows,
    /// measured on iterations that followed an earlier plan, and left free
    /// by this one (see `PlanParams::unseen_bytes`).
    #[serde(default)]
    pub unseen_bytes: u64,
    /// Op of that peak.
    #[serde(default)]
    pub expected_peak_op: u32,
    /// Most bytes the swapped tensors hold in host memory at once (the
    /// pinned pool's need; simulated on the profile).
    #[serde(default)]
    pub expected_host_peak_bytes: u64,
    /// Peak resident saved bytes under this plan (simulated on the profile).
    pub expected_peak_saved_bytes: u64,
    /// Peak resident saved bytes if everything were kept.
    pub keep_all_peak_saved_bytes: u64,
    /// Why the plan moves no tensor, when it moves none.
    #[serde(default)]
    pub moves_nothing_because: Option<String>,
    /// The iteration replayed under this plan with the device's cost model
    /// (policies that price copies fill it in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted: Option<SwapReplay>,
}

impl Plan {
    /// How many tensors are swapped.
    pub fn swapped_count(&self) -> usize {
        self.decisions
            .iter()
            .filter(|d| d.action == Action::Swap)
            .count()
    }
    /// How many swapped tensors are compressed first.
    pub fn compressed_count(&self) -> usize {
        self.decisions
            .iter()
            .filter(|d| d.action == Action::Swap && d.codec.is_some())
            .count()
    }

    /// How many saved tensors are rebuilt in backward.
    pub fn recomputed_count(&self) -> usize {
        self.decisions
            .iter()
            .filter(|d| d.action == Action::Recompute && !d.transient)
            .count()
    }

    /// How many saved tensors it has a decision for.
    pub fn saved_count(&self) -> usize {
        self.decisions.len() - self.transient_count()
    }

    /// How many tensors forward frees are made again on the way to rebuilt ones.
    pub fn transient_count(&self) -> usize {
        self.decisions.iter().filter(|d| d.transient).count()
    }

    /// Of the rebuilt tensors, those an earlier tensor stands in for (a
    /// ReLU's output for its input, an earlier equal output for a repeated
    /// element-wise op's): rebuilt with no kernel.
    pub fn stand_in_count(&self) -> usize {
        self.decisions
            .iter()
            .filter(|d| d.stand_in.is_some())
            .count()
    }

    /// Of the rebuilt tensors, those rebuilt by running their op again.
    pub fn rerun_count(&self) -> usize {
        self.recomputed_count() - self.stand_in_count()
    }

    /// Bytes swapped out (and back) per iteration.
    pub fn swapped_bytes(&self) -> u64 {
        self.decisions
            .iter()
            .filter(|d| d.action == Action::Swap)
            .map(|d| d.bytes)
            .sum()
    }

    /// Whether the plan runs an op of one of `signatures` again to rebuild
    /// a tensor (a stand-in runs nothing): where the device found rebuilds
    /// of those ops differ, a plan made before that is out of date.
    pub fn reruns_any_of(&self, signatures: &HashSet<u64>) -> bool {
        !signatures.is_empty()
            && self.decisions.iter().any(|d| {
                d.action == Action::Recompute
                    && d.stand_in.is_none()
                    && self
                        .op_signatures
                        .get(d.key.op as usize)
                        .is_some_and(|s| signatures.contains(s))
            })
    }

    /// Whether `other` does the same to every tensor (keeps, swaps with the
    /// same codec, or rebuilds it), whenever it moves it.
    pub fn same_actions(&self, other: &Plan) -> bool {
        self.decisions.len() == other.decisions.len()
            && self
                .decisions
                .iter()
                .zip(&other.decisions)
                .all(|(a, b)| a.key == b.key && a.action == b.action && a.codec == b.codec)
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "burn-swap plan ({}, from iteration {}): {} saved tensors, {} swapped ({} per iteration each way){}",
            self.policy,
            self.iteration,
            self.saved_count(),
            self.swapped_count(),
            human_bytes(self.swapped_bytes()),
            match self.compressed_count() {
                0 => String::new(),
                n => format!(", {n} of them compressed first"),
            }
        )?;
        let (mut relu, mut equal, mut stood_in_bytes) = (0, 0, 0);
        for d in self.decisions.iter().filter(|d| d.stand_in.is_some()) {
            match d.earlier_stand_in() {
                Some(_) => equal += 1,
                None => relu += 1,
            }
            stood_in_bytes += d.bytes;
        }
        let rerun = self.rerun_count();
        if rerun + relu + equal > 0 {
            let mut how = Vec::new();
            if rerun > 0 {
                how.push(format!("{rerun} by running their op again"));
            }
            if relu > 0 {
                how.push(format!("{relu} ReLU inputs by the ReLU's output"));
            }
            if equal > 0 {
                how.push(format!(
                    "{equal} repeated ops' outputs by the earlier equal one"
                ));
            }
            write!(
                f,
                "  {} rebuilt in backward: {}",
                rerun + relu + equal,
                how.join(", ")
            )?;
            match self.transient_count() {
                0 => {}
                n => write!(
                    f,
                    ", through {n} tensors forward freed, made again for them"
                )?,
            }
            if relu + equal > 0 {
                write!(
                    f,
                    " (the stand-ins free {} at no cost)",
                    human_bytes(stood_in_bytes)
                )?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "  peak device bytes of the iteration: {} at op {}, budget: {}; peak resident saved: {} (keep-all: {})",
            human_bytes(self.expected_peak_bytes),
            self.expected_peak_op,
            self.budget_bytes.map_or("none".to_string(), human_bytes),
            human_bytes(self.expected_peak_saved_bytes),
            human_bytes(self.keep_all_peak_saved_bytes),
        )?;
        if self.unseen_bytes > 0 {
            write!(
                f,
                "; {} of the peak is what the device added beyond the plan on earlier steps",
                human_bytes(self.unseen_bytes)
            )?;
        }
        if self.expected_host_peak_bytes > 0 {
            write!(
                f,
                "\n  peak host bytes of the swapped tensors: {}",
                human_bytes(self.expected_host_peak_bytes)
            )?;
        }
        if let Some(p) = &self.predicted {
            write!(
                f,
                "\n  predicted: {:.3} ms a step ({:.3} ms of ops, {:.3} ms of codec kernels, {:.3} ms rebuilding tensors, {:.3} ms waiting for copies), {} to the host",
                p.iteration_ns / 1e6,
                p.ops_ns / 1e6,
                p.codec_ns / 1e6,
                p.recompute_ns / 1e6,
                p.wait_ns / 1e6,
                human_bytes(p.to_host_bytes)
            )?;
        }
        match &self.moves_nothing_because {
            Some(why) => write!(f, "\n  moves nothing: {why}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(op: u32, action: Action, stand_in: Option<TensorKey>) -> Decision {
        Decision {
            key: TensorKey { op, output: 0 },
            bytes: 1 << 20,
            action,
            offload_after: op + 1,
            prefetch_at: 9,
            needed_at: 9,
            codec: None,
            stand_in,
            transient: false,
        }
    }

    #[test]
    fn a_plan_reruns_an_op_only_where_it_rebuilds_its_tensor_without_a_stand_in() {
        let plan = Plan {
            decisions: vec![
                decision(0, Action::Swap, None),
                decision(1, Action::Recompute, Some(TensorKey { op: 0, output: 0 })),
                decision(2, Action::Recompute, None),
            ],
            op_signatures: vec![10, 11, 12],
            ..Plan::default()
        };
        let of = |s: &[u64]| s.iter().copied().collect::<HashSet<u64>>();
        assert!(plan.reruns_any_of(&of(&[12])));
        // Swapped, or stood in for: no op runs again.
        assert!(!plan.reruns_any_of(&of(&[10, 11])));
        assert!(!plan.reruns_any_of(&of(&[])));
    }
}
