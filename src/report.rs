//! What burn-swap tells the user about a run: what each of the first
//! iterations did and how long it took ([`IterationReport`], logged with
//! `tracing::info!`), and why it moved nothing or less than its plan asks
//! ([`SwapWarning`], logged with `tracing::warn!` once per cause).

use std::fmt;
use std::time::Duration;

use crate::decorator::OpThreadTime;
use crate::policy::Plan;
use crate::profiler::human_bytes;

/// A first iteration longer than this is mostly kernel compilation and
/// autotune on a GPU backend: its report says so and how to keep them.
pub const SLOW_FIRST_ITERATION: Duration = Duration::from_secs(20);

/// Why a run moves nothing, or less than its plan asks, or uses more of the
/// device than its budget. Each cause is logged once per configuration and
/// kept for [`warnings`](crate::warnings).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SwapWarning {
    /// The plan keeps every saved tensor on the device: the budget holds
    /// them all, every one is under the minimum swap size, or the iteration
    /// saved none.
    PlanMovesNothing {
        /// The policy that made the plan.
        policy: String,
        /// Why, in the plan's words ([`Plan::moves_nothing_because`]).
        why: String,
    },
    /// The plan swaps tensors, but the backend refused every offload of an
    /// iteration: swapping is off for its tensors.
    SwappingOff {
        /// The iteration.
        iteration: u64,
        /// Offloads the plan asked for in it.
        asked: u64,
        /// The transfer layer's reason.
        why: String,
    },
    /// The CUDA engine's pinned host pool refused blocks: those tensors
    /// stayed on the device.
    PinnedPoolRefused {
        /// The first iteration it happened in.
        iteration: u64,
        /// Blocks refused in that iteration.
        blocks: u64,
        /// The pool's reason.
        why: String,
    },
    /// CubeCL's autotune skipped candidate kernels that failed on the
    /// device's thread while it benchmarked them (under a memory cap, their
    /// buffers did not fit beside the iteration's tensors); each op ran
    /// with the fastest candidate that did run.
    AutotuneCandidatesSkipped {
        /// Candidates skipped when this was first seen.
        count: u64,
        /// The first one's failure.
        first: String,
    },
    /// The device's buffers grew past the budget by more than a tenth over
    /// an iteration, by the driver's own count (CUDA's memory pool): the
    /// plan bounds the tensors it sees, and the ops' own buffers and those
    /// fusion frees late come on top.
    DeviceGrewPastBudget {
        /// The first iteration it happened in.
        iteration: u64,
        /// The budget.
        budget_bytes: u64,
        /// How much the device's buffers grew over the iteration's start.
        grew_bytes: u64,
    },
    /// Rebuilt tensors did not have the bits their op made in forward
    /// (compared on the device, `SwapConfig::rebuild_check_bytes`): their
    /// ops are not rebuilt again. Where backward read the rebuilds (without
    /// fusion), that iteration's gradients may be off plain's; under fusion
    /// it read the tensors kept for the comparison.
    RebuildDiffered {
        /// The iteration.
        iteration: u64,
        /// Rebuilds that differed in it.
        tensors: u64,
        /// Their ops.
        ops: String,
        /// Backward read the rebuilds, not the tensors themselves.
        read: bool,
    },
    /// An iteration that followed a plan left the driver little free
    /// memory outside its memory pool, so the pool was capped
    /// ([`PoolCap::HalfFree`](crate::PoolCap::HalfFree)): buffers past the
    /// cap are allocations of their own, which costs speed.
    PoolCapped {
        /// The iteration that left that little.
        iteration: u64,
        /// The least free memory outside the pool in it.
        free_outside_bytes: u64,
        /// The profile's largest tensor.
        largest_tensor_bytes: u64,
        /// What the pool held unused when it was capped.
        pool_unused_bytes: u64,
        /// The cap.
        cap_bytes: u64,
    },
    /// The device added more beyond the plan (the ops' own buffers, those
    /// fusion frees late) than any plan could leave free of the budget: the
    /// plan leaves what the best one tried could, or the plan in force
    /// stays, and the device grows past the budget.
    UnseenOverBudget {
        /// The budget.
        budget_bytes: u64,
        /// What the device added beyond the plan, measured.
        unseen_bytes: u64,
        /// What the new plan leaves free instead; `None`: the plan in
        /// force stays.
        left_bytes: Option<u64>,
        /// Why no plan leaves it free.
        why: String,
    },
}

impl SwapWarning {
    /// Two warnings of one cause are logged once.
    fn same_cause(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::PlanMovesNothing { why: a, .. }, Self::PlanMovesNothing { why: b, .. }) => {
                a == b
            }
            (Self::SwappingOff { .. }, Self::SwappingOff { .. }) => true,
            (Self::PinnedPoolRefused { .. }, Self::PinnedPoolRefused { .. }) => true,
            (Self::AutotuneCandidatesSkipped { .. }, Self::AutotuneCandidatesSkipped { .. }) => {
                true
            }
            (Self::DeviceGrewPastBudget { .. }, Self::DeviceGrewPastBudget { .. }) => true,
            (Self::UnseenOverBudget { .. }, Self::UnseenOverBudget { .. }) => true,
            (Self::PoolCapped { .. }, Self::PoolCapped { .. }) => true,
            (Self::RebuildDiffered { ops: a, .. }, Self::RebuildDiffered { ops: b, .. }) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for SwapWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PlanMovesNothing { policy, why } => {
                write!(f, "the plan ({policy}) moves nothing: {why}")
            }
            Self::SwappingOff {
                iteration,
                asked,
                why,
            } => write!(
                f,
                "the plan asked for {asked} offloads in iteration {iteration} and none happened: \
                 swapping is off on this backend ({why})"
            ),
            Self::PinnedPoolRefused {
                iteration,
                blocks,
                why,
            } => write!(
                f,
                "the pinned pool refused {blocks} blocks in iteration {iteration} and those \
                 tensors stayed on the device ({why}): raise BURN_SWAP_PINNED_POOL or \
                 lower BURN_SWAP_HOST_RESERVE"
            ),
            Self::AutotuneCandidatesSkipped { count, first } => write!(
                f,
                "CubeCL's autotune skipped {count} candidate kernel(s) that failed on the \
                 device's thread ({first}); the ops ran with the fastest candidates that did \
                 run, and autotune keeps that choice for the next runs"
            ),
            Self::DeviceGrewPastBudget {
                iteration,
                budget_bytes,
                grew_bytes,
            } => write!(
                f,
                "in iteration {iteration} the device's buffers grew by {} against a budget of \
                 {} (the driver's count): the budget bounds the tensors the plan sees, and the \
                 ops' own buffers and those fusion frees late come on top; leave the rest of \
                 the device for them (this is said once)",
                human_bytes(*grew_bytes),
                human_bytes(*budget_bytes)
            ),
            Self::PoolCapped {
                iteration,
                free_outside_bytes,
                largest_tensor_bytes,
                pool_unused_bytes,
                cap_bytes,
            } => write!(
                f,
                "in iteration {iteration} the driver had as little as {} free outside its \
                 memory pool (the largest tensor: {}; the pool held {} unused): the pool now \
                 holds at most {} (half the device's free memory as training began), and \
                 larger needs are allocations of their own, given back whole, so that freed \
                 memory in pieces cannot leave the next buffer without room; they cost speed \
                 (BURN_SWAP_POOL_CAP=off: never capped; a size: capped from the start)",
                human_bytes(*free_outside_bytes),
                human_bytes(*largest_tensor_bytes),
                human_bytes(*pool_unused_bytes),
                human_bytes(*cap_bytes)
            ),
            Self::UnseenOverBudget {
                budget_bytes,
                unseen_bytes,
                left_bytes,
                why,
            } => {
                let outcome = match left_bytes {
                    Some(left) => format!("the plan leaves {} free instead", human_bytes(*left)),
                    None => "the plan in force stays".into(),
                };
                write!(
                    f,
                    "the device added {} beyond the plan (the ops' own buffers and those fusion \
                     frees late, by the driver's count), and no plan leaves all of it free of \
                     the budget of {} ({why}): {outcome}, and the device grows past the budget; \
                     raise it to bound what the device holds",
                    human_bytes(*unseen_bytes),
                    human_bytes(*budget_bytes)
                )
            }
            Self::RebuildDiffered {
                iteration,
                tensors,
                ops,
                read,
            } => {
                write!(
                    f,
                    "{tensors} rebuilt tensors did not have the bits their op made in forward \
                     ({ops}; under fusion an op run again alone can round otherwise): "
                )?;
                match read {
                    true => write!(
                        f,
                        "the gradients of the iteration before iteration {iteration}, which \
                         read them, may be off plain's"
                    )?,
                    false => write!(
                        f,
                        "backward read the tensors kept to compare them with, so the gradients \
                         are plain's"
                    )?,
                }
                write!(f, "; those ops are not rebuilt again")
            }
        }
    }
}

/// The warnings raised so far, each cause once.
#[derive(Debug, Default)]
pub(crate) struct Warnings(Vec<SwapWarning>);

impl Warnings {
    /// Logs `warning` unless its cause was logged before.
    pub(crate) fn raise(&mut self, warning: SwapWarning) {
        if self.0.iter().any(|w| w.same_cause(&warning)) {
            return;
        }
        // Also written to standard error by burn-swap itself (unless
        // `BURN_SWAP_QUIET`): a subscriber that prints to the terminal can
        // leave out this target, `burn_swap::warning`.
        tracing::warn!(target: "burn_swap::warning", "burn-swap: {warning}");
        crate::notice::say(|| warning.to_string());
        self.0.push(warning);
    }

    pub(crate) fn all(&self) -> Vec<SwapWarning> {
        self.0.clone()
    }
}

/// What one iteration did: profiled (and, at its end, planned) or followed
/// the plan, and how long it took.
#[derive(Debug, Clone, Default)]
pub struct IterationReport {
    /// The iteration (0 is the first backward).
    pub iteration: u64,
    /// Wall time from its first op to the end of its backward (before planning).
    pub wall: Duration,
    /// It followed a plan made from an earlier iteration.
    pub followed_plan: bool,
    /// What it did, in a few words (profiled, profiled again, followed the plan).
    pub doing: &'static str,
    /// Bytes it moved to the host.
    pub swapped_out_bytes: u64,
    /// Tensors it freed after forward and rebuilt in backward by running
    /// their op again.
    pub rebuilt_tensors: u64,
    /// The last iteration's rebuilds compared bit for bit with the tensors
    /// they stand for as this one began (`SwapConfig::rebuild_check_bytes`)...
    pub rebuilds_checked: u64,
    /// ...those that differed...
    pub rebuilds_differed: u64,
    /// ...and the time the comparisons took (reading both back).
    pub rebuild_check_time: Duration,
    /// Reads of the device's memory from the driver while it followed a
    /// plan under a budget (see `SwapConfig::budget_bytes`): at most one a
    /// millisecond.
    pub driver_reads: u32,
    /// The training thread's time in them.
    pub driver_read_time: Duration,
    /// A plan was made from it: how long the planner took.
    pub planning: Option<Duration>,
    /// That plan in one line, or why none fits.
    pub plan: Option<String>,
    /// The plan in force was timed on the device against the same plan
    /// without its codecs (`cswap`, `home`) and its rivals' plans that fit
    /// (`home`: `capuchin`, `superneurons`, `swap-all`), in turn and back,
    /// and this is each one's paces, their mean and the one kept.
    pub plans_timed: Option<String>,
    /// After plans were timed, the evaluator was fitted to the pace of the
    /// one that stayed: the step measured, the one predicted now and
    /// before.
    pub calibrated: Option<String>,
    /// Plans are being timed on the device against each other: the one in
    /// force may change for a few more steps.
    pub trying_plans: bool,
    /// The first iteration of this thread: kernels are compiled and tuned in it.
    pub first: bool,
    /// The training thread's time in the iteration's ops: the backend's op
    /// calls and burn-swap's own work, by part (all training threads
    /// together, where there are several).
    pub training_thread: OpThreadTime,
}

impl fmt::Display for IterationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "iteration {} took {:.2} s: {}",
            self.iteration,
            self.wall.as_secs_f64(),
            self.doing
        )?;
        if self.followed_plan {
            write!(
                f,
                ", moved {} to the host",
                human_bytes(self.swapped_out_bytes)
            )?;
            if self.rebuilt_tensors > 0 {
                write!(f, ", rebuilt {} tensors", self.rebuilt_tensors)?;
            }
            write!(f, "; its ops: {}", self.training_thread)?;
        }
        if self.rebuilds_checked > 0 {
            write!(
                f,
                "; {} rebuilds of the iteration before compared with their tensors in {:.1} ms: {}",
                self.rebuilds_checked,
                self.rebuild_check_time.as_secs_f64() * 1e3,
                match self.rebuilds_differed {
                    0 => "the same bits".to_string(),
                    n => format!("{n} differed"),
                }
            )?;
        }
        if self.first && self.wall > SLOW_FIRST_ITERATION {
            write!(
                f,
                " (a long first iteration is mostly kernel compilation and autotune on a GPU: \
                 a cubecl.toml in the working directory keeps kernels and autotune results for \
                 the next run; CUBECL_AUTOTUNE_LEVEL=minimal rounds shapes more coarsely, so fewer of them \
                 are tuned)"
            )?;
        }
        if let (Some(took), Some(plan)) = (self.planning, &self.plan) {
            write!(f, "; planned in {:.1} ms: {plan}", took.as_secs_f64() * 1e3)?;
        }
        if let Some(verdict) = &self.plans_timed {
            write!(f, "; {verdict}")?;
        }
        if let Some(calibrated) = &self.calibrated {
            write!(f, "; {calibrated}")?;
        }
        Ok(())
    }
}

/// What an iteration did, from whether it followed the plan, was the
/// thread's first, and had a plan in force when it began.
pub(crate) fn doing(followed_plan: bool, first: bool, had_plan: bool) -> &'static str {
    match (followed_plan, first, had_plan) {
        (true, _, _) => "followed the plan",
        (false, true, _) => {
            "profiled (the first iteration: on a GPU, kernels are compiled and autotuned in it)"
        }
        (false, false, true) => "profiled again: its op sequence differs from the plan's",
        (false, false, false) => "profiled (no plan in force)",
    }
}

/// A plan in one line.
pub(crate) fn plan_line(plan: &Plan) -> String {
    let budget = plan
        .budget_bytes
        .map_or(String::new(), |b| format!(" (budget {})", human_bytes(b)));
    match &plan.moves_nothing_because {
        Some(why) => format!("{} moves nothing: {why}", plan.policy),
        None => format!(
            "{} swaps {} of {} saved tensors ({} each way{}), device peak {}{budget}",
            plan.policy,
            plan.swapped_count(),
            plan.saved_count(),
            human_bytes(plan.swapped_bytes()),
            match plan.compressed_count() {
                0 => String::new(),
                n => format!(", {n} compressed first"),
            },
            human_bytes(plan.expected_peak_bytes),
        ),
    }
}

/// What the transfer layer did with this iteration's offloads.
#[derive(Debug, Default)]
pub(crate) struct OffloadTally {
    /// Offloads the plan asked for.
    pub asked: u64,
    /// Offloads that started.
    pub moved: u64,
    /// Refused by the transfer layer (`TransferError::Unsupported` or a
    /// failure other than the pool's)...
    pub refused: u64,
    /// ...and the first reason.
    pub refused_why: Option<String>,
    /// Refused by the pinned pool (plan offloads, evictions, fusion copies)...
    pub pool_refused: u64,
    /// ...and the first reason.
    pub pool_why: Option<String>,
    /// Tensors rebuilt by running their op again.
    pub rebuilt: u64,
}

impl OffloadTally {
    /// The warnings the iteration `iteration` calls for.
    pub(crate) fn warnings(&self, iteration: u64) -> Vec<SwapWarning> {
        let mut out = Vec::new();
        if self.asked > 0 && self.moved == 0 && self.refused > 0 {
            out.push(SwapWarning::SwappingOff {
                iteration,
                asked: self.asked,
                why: self.refused_why.clone().unwrap_or_default(),
            });
        }
        if self.pool_refused > 0 {
            out.push(SwapWarning::PinnedPoolRefused {
                iteration,
                blocks: self.pool_refused,
                why: self.pool_why.clone().unwrap_or_default(),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::SwapWarning;

    #[test]
    fn a_capped_pool_is_said_with_its_cause_and_how_to_choose_otherwise() {
        let said = SwapWarning::PoolCapped {
            iteration: 3,
            free_outside_bytes: 597 << 20,
            largest_tensor_bytes: 785 << 20,
            pool_unused_bytes: 3 << 30,
            cap_bytes: 6 << 30,
        }
        .to_string();
        assert!(
            said.starts_with("in iteration 3 the driver had as little as 597.0 MiB free outside")
                && said.contains("the pool now holds at most 6.0 GiB")
                && said.contains("BURN_SWAP_POOL_CAP=off"),
            "{said}"
        );
    }

    #[test]
    fn a_differing_rebuild_is_said_to_touch_the_gradients_only_where_backward_read_it() {
        let warning = |read| {
            SwapWarning::RebuildDiffered {
                iteration: 9,
                tensors: 2,
                ops: "linear".into(),
                read,
            }
            .to_string()
        };
        assert!(warning(true).contains("may be off plain's"));
        let unread = warning(false);
        assert!(!unread.contains("may be off"), "{unread}");
        assert!(unread.contains("the gradients are plain's"), "{unread}");
    }
}
