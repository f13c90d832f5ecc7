//! The plan evaluator: what an iteration would cost under a plan, in time
//! and in device memory, predicted from its profile and the device's cost
//! model without running it.
//!
//! Time is the [`replay`] of the iteration: the
//! profiled ops at their recorded times, the codec kernels and the ops that
//! rebuild recomputed tensors on the compute stream, one copy queue per
//! direction (slower while both run), and the waits where a tensor is not
//! back in time. Memory is the [`Footprint`] of the iteration: its working
//! tensors and op workspaces, plus the saved tensors each plan keeps on the
//! device op by op (a download holds its memory through the next op, a
//! rebuilt tensor is back from the op that needs it). Host memory is what
//! the swapped tensors hold there between their two copies.

use serde::{Deserialize, Serialize};

use crate::cost::{replay, CodecTime, CostModel, SwapReplay};
use crate::memory::{host_peak, Footprint};
use crate::plan::Decision;
use crate::profile::Profile;
use crate::recompute::RecomputeGraph;

/// What the evaluator predicts for one plan.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The iteration's time on the compute stream, and what it is made of.
    pub time: SwapReplay,
    /// Peak device bytes the iteration adds over what it began with.
    pub peak_bytes: u64,
    /// Op of that peak.
    pub peak_op: u32,
    /// Peak bytes held in host memory by swapped tensors (the pinned
    /// pool's need).
    pub host_peak_bytes: u64,
}

/// Predicts iterations like one profile under any plan.
#[derive(Debug, Clone)]
pub struct Evaluator<'a> {
    profile: &'a Profile,
    costs: &'a CostModel,
    footprint: Footprint,
    graph: RecomputeGraph,
}

impl<'a> Evaluator<'a> {
    /// An evaluator for iterations like `profile` on a device `costs` describes.
    pub fn new(profile: &'a Profile, costs: &'a CostModel) -> Self {
        Self::with_graph(profile, costs, RecomputeGraph::of(profile))
    }

    /// [`Evaluator::new`], with plans rebuilding only what `graph` allows
    /// (none, where the executor rebuilds nothing).
    pub fn with_graph(profile: &'a Profile, costs: &'a CostModel, graph: RecomputeGraph) -> Self {
        Self {
            profile,
            costs,
            footprint: Footprint::of(profile),
            graph,
        }
    }

    /// The profile it predicts from.
    pub fn profile(&self) -> &'a Profile {
        self.profile
    }

    /// The iteration's working bytes, op by op.
    pub fn footprint(&self) -> &Footprint {
        &self.footprint
    }

    /// The tensors a plan may rebuild.
    pub fn graph(&self) -> &RecomputeGraph {
        &self.graph
    }

    /// Time and memory of the iteration under `decisions`.
    pub fn evaluate(&self, decisions: &[Decision]) -> Evaluation {
        let time = replay(self.profile, decisions, self.costs, CodecTime::Measured);
        let (peak_bytes, peak_op) = self.footprint.peak(self.profile, decisions);
        Evaluation {
            time,
            peak_bytes,
            peak_op,
            host_peak_bytes: host_peak(self.profile, decisions),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recompute::resolve_needs;
    use crate::testing::{chain, gigabyte_link, rebuild, timed};

    #[test]
    fn a_rebuilt_tensor_costs_its_op_again_and_frees_its_memory_in_between() {
        // Four 1 MB tensors, each op 1 ms.
        let profile = timed(chain(&[1 << 20; 4]), 1_000_000);
        let costs = gigabyte_link();
        let evaluator = Evaluator::new(&profile, &costs);
        let keep = Decision::keep_all(&profile);
        let base = evaluator.evaluate(&keep);
        assert_eq!(base.time.recompute_ns, 0.0);
        let mut decisions = keep.clone();
        rebuild(&profile, &mut decisions, 1);
        resolve_needs(evaluator.graph(), &mut decisions);
        let rebuilt = evaluator.evaluate(&decisions);
        assert_eq!(rebuilt.time.recompute_ns, 1e6);
        assert_eq!(rebuilt.time.iteration_ns, base.time.iteration_ns + 1e6);
        assert!(rebuilt.peak_bytes < base.peak_bytes);
        assert_eq!(rebuilt.host_peak_bytes, 0);
    }

    #[test]
    fn a_chain_of_rebuilt_tensors_is_rebuilt_from_the_first_kept_one() {
        let profile = timed(chain(&[1 << 20; 4]), 1_000_000);
        let costs = gigabyte_link();
        let evaluator = Evaluator::new(&profile, &costs);
        let mut decisions = Decision::keep_all(&profile);
        for i in [1, 2] {
            rebuild(&profile, &mut decisions, i);
        }
        resolve_needs(evaluator.graph(), &mut decisions);
        // Tensor 2 is made from tensor 1: rebuilding 2 needs 1 first, at 2's use.
        assert_eq!(decisions[1].needed_at, decisions[2].needed_at);
        let e = evaluator.evaluate(&decisions);
        assert_eq!(e.time.recompute_ns, 2e6);
    }
}
