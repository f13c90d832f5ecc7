//! The evaluator fitted to an iteration that followed a plan: its ops'
//! times from the measured step, the link from what the step waited.

use super::{replay, CodecTime, CostModel};
use crate::plan::Decision;
use crate::profile::Profile;

/// An iteration that followed a plan, as the training thread measured it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeasuredStep {
    /// Its time less what it waited for copies: the ops, the ops run again
    /// to rebuild tensors and the codec kernels.
    pub compute_ns: u64,
    /// What it waited for copies.
    pub wait_ns: u64,
}

/// What [`calibrate`] fitted.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The profile with its ops' times scaled to the step.
    pub profile: Profile,
    /// The cost model with the link at the share of its measured bandwidth
    /// the step's copies got (none without a cost model).
    pub costs: Option<CostModel>,
    /// That share (1 without a cost model).
    pub link_factor: f64,
}

/// Fits the evaluator to `step`, an iteration that followed `decisions`
/// on iterations like `profile`. The ops' times are scaled so that the
/// ops, the ops the plan runs again to rebuild tensors, and the codec
/// kernels `costs` predicts take the measured compute time together.
/// Scaled to all of it, as before, the rebuilt ops were counted twice (in
/// the ops' times and again as rebuilds), and a plan that rebuilds more
/// than the one measured was predicted slower than it ran. Then the link is
/// slowed until the replay waits what the step waited
/// ([`CostModel::calibrated_to`]).
pub fn calibrate(
    profile: &Profile,
    decisions: &[Decision],
    costs: Option<&CostModel>,
    step: MeasuredStep,
) -> Calibration {
    let mut profile = profile.clone();
    if !profile.is_timed() {
        // Shares by work, to be scaled below.
        profile.share_compute_time(step.compute_ns, true);
    }
    let ops_ns: f64 = profile
        .ops
        .iter()
        .filter_map(|o| o.duration_ns)
        .sum::<u64>() as f64;
    let rebuild_ns = rebuild_ns(&profile, decisions);
    let codec_ns = costs.map_or(0.0, |costs| {
        replay(&profile, decisions, costs, CodecTime::Measured).codec_ns
    });
    let compute = step.compute_ns as f64;
    // A codec model far off the device's kernels leaves the ops all of it.
    let for_ops_and_rebuilds = match compute - codec_ns {
        rest if rest > 0.0 => rest,
        _ => compute,
    };
    let ops_share = match ops_ns + rebuild_ns {
        own if own > 0.0 => for_ops_and_rebuilds * ops_ns / own,
        _ => for_ops_and_rebuilds,
    };
    profile.share_compute_time(ops_share as u64, true);
    let (costs, link_factor) = match costs {
        Some(costs) => {
            let (costs, factor) = costs.calibrated_to(&profile, decisions, step.wait_ns as f64);
            (Some(costs), factor)
        }
        None => (None, 1.0),
    };
    Calibration {
        profile,
        costs,
        link_factor,
    }
}

/// The time the ops `decisions` run again to rebuild tensors take, as
/// [`replay`] counts it.
fn rebuild_ns(profile: &Profile, decisions: &[Decision]) -> f64 {
    super::replay::rebuild_times(profile, decisions)
        .map(|(_, ns)| ns)
        .sum::<u64>() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recompute::{resolve_needs, RecomputeGraph};
    use crate::testing::{chain, gigabyte_link, rebuild, timed};

    #[test]
    fn a_step_that_rebuilt_tensors_predicts_itself_and_a_plan_that_rebuilds_less() {
        // Ten ops of 1 ms each: a step that rebuilt two of them took 12 ms.
        let profile = timed(chain(&[1 << 20; 4]), 1_000_000);
        let costs = gigabyte_link();
        let mut rebuilt = Decision::keep_all(&profile);
        for i in [1, 2] {
            rebuild(&profile, &mut rebuilt, i);
        }
        resolve_needs(&RecomputeGraph::of(&profile), &mut rebuilt);
        let step = MeasuredStep {
            compute_ns: (profile.ops.len() as u64 + 2) * 1_000_000,
            wait_ns: 0,
        };
        let fitted = calibrate(&profile, &rebuilt, Some(&costs), step);
        let costs = fitted.costs.as_ref().unwrap();
        let itself = replay(&fitted.profile, &rebuilt, costs, CodecTime::Measured);
        assert!((itself.iteration_ns - step.compute_ns as f64).abs() < 10.0);
        // Keeping every tensor is the step less its two rebuilds.
        let keep = Decision::keep_all(&profile);
        let kept = replay(&fitted.profile, &keep, costs, CodecTime::Measured);
        assert!((kept.iteration_ns - profile.ops.len() as f64 * 1e6).abs() < 10.0);
    }

    #[test]
    fn without_rebuilds_or_codecs_the_ops_take_the_whole_step() {
        let profile = timed(chain(&[1 << 20; 4]), 1_000_000);
        let keep = Decision::keep_all(&profile);
        let step = MeasuredStep {
            compute_ns: 20_000_000,
            wait_ns: 0,
        };
        let fitted = calibrate(&profile, &keep, None, step);
        let ops: u64 = fitted
            .profile
            .ops
            .iter()
            .filter_map(|o| o.duration_ns)
            .sum();
        assert!(ops.abs_diff(20_000_000) < 100, "{ops}");
        assert!(fitted.costs.is_none());
        assert_eq!(fitted.link_factor, 1.0);
    }
}
