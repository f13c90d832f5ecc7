//! The device's memory as the executor holds it: the budget taken from its
//! free memory and the margin left for the pieces that memory comes in, the
//! driver's pool (its cap, the free buffers given back, the reclaimer), and
//! the out-of-memory report.

use super::*;

/// The free device memory a planned iteration keeps by giving freed memory
/// back, in the profile's largest tensors. Under fusion the ops' own
/// buffers are not profiled; on VGG16-CIFAR under a 12 GiB cap (H100) the
/// data gradient autotune picked for the 8x8 convolutions took a column
/// buffer of 2.25 times the largest activation (b4096 and b6144).
const RECLAIM_MARGIN_TENSORS: u64 = 3;

/// Free memory outside the driver's pool, in tensors of the largest size,
/// under which a planned iteration caps the pool ([`PoolCap::HalfFree`]).
/// Under a 12 GiB cap on an H200, GPT-small b4 first came to 1.01-1.13 of
/// its largest tensor and ran out of memory uncapped; GPT-small b3 (1.74)
/// and ResNet-50 b92 (1.94) trained 90 and 71 iterations uncapped, at 0.81x
/// and 0.77x of plain's speed against 0.52x and 0.62x capped.
const PRESSED_MARGIN_TENSORS: f64 = 1.5;

/// A budget taken from the device's free memory leaves at least this much of
/// it free, whatever share `SwapConfig::free_memory_margin` says.
const MIN_FREE_MEMORY_MARGIN: u64 = 512 << 20;

impl Executor {
    /// Caps the driver's memory pool at a size given
    /// ([`PoolCap::AtMost`]); under [`PoolCap::HalfFree`], notes the free
    /// memory the cap would be half of (see [`Self::cap_pool_when_pressed`]).
    pub(super) fn set_up_pool_cap(&mut self) {
        let Some(probe) = self.probe.as_ref() else {
            return;
        };
        match self.config.pool_cap {
            PoolCap::Off => {}
            PoolCap::AtMost(bytes) => {
                probe.cap_allocator(bytes);
                self.pool_capped = true;
            }
            PoolCap::HalfFree => {
                self.free_at_start = probe.free_for_buffers().map(|(free, _)| free);
            }
        }
    }

    /// Under [`PoolCap::HalfFree`], where the device is the limit (a budget
    /// from its free memory, exact allocations): once an iteration that
    /// followed a plan left the driver less free memory outside its pool
    /// than [`PRESSED_MARGIN_TENSORS`] of the largest tensor, caps the pool
    /// at half the free memory training began with. The next buffer could
    /// then only come from the pool's freed ranges, and those may be in
    /// pieces (GPT-small b4 under a 12 GiB cap ran out of memory so after
    /// 14 to 71 iterations). Called as an iteration begins; once per process.
    pub(super) fn cap_pool_when_pressed(&mut self) {
        let Some(probe) = self.probe.as_ref() else {
            return;
        };
        // Asked every iteration, so that each answer covers one.
        let least = probe.least_free_outside_allocator();
        let last_followed_plan = std::mem::replace(&mut self.iteration_on_plan, self.on_plan);
        let device_is_the_limit = self.config.budget_bytes.is_none()
            && self.config.budget_from_free_memory
            && self.config.exact_allocations();
        if self.pool_capped
            || self.config.pool_cap != PoolCap::HalfFree
            || !device_is_the_limit
            || !last_followed_plan
            || self.largest_tensor == 0
        {
            return;
        }
        let (Some(least), Some(free)) = (least, self.free_at_start) else {
            return;
        };
        if least as f64 >= PRESSED_MARGIN_TENSORS * self.largest_tensor as f64 {
            return;
        }
        let cap = free / 2;
        let pool_unused_bytes = probe.allocator_unused().unwrap_or(0);
        probe.cap_allocator(cap);
        self.pool_capped = true;
        self.warnings.raise(SwapWarning::PoolCapped {
            iteration: self.iteration.saturating_sub(1),
            free_outside_bytes: least,
            largest_tensor_bytes: self.largest_tensor,
            pool_unused_bytes,
            cap_bytes: cap,
        });
    }

    /// Puts the device's allocator in the mode the configuration asks for
    /// (again after Burn switched it for its parameters).
    pub(crate) fn apply_allocator(&mut self) {
        let exact = self.config.exact_allocations();
        // The runtime's own mode is left alone unless burn-swap changed it.
        if let (Some(probe), true) = (&self.probe, exact || self.exact_applied) {
            probe.exact_allocations(exact);
            self.exact_applied = exact;
        }
    }

    /// The device bytes the op just finished took and gave back inside
    /// itself. Under exact allocations, with free buffers given back after
    /// every op of an iteration without a plan, what the stream's allocator
    /// holds now beyond what was in use when the op began is the op's new
    /// buffers: its outputs, the inputs brought back for it, and the rest,
    /// its workspace. (A download that finished meanwhile frees memory in
    /// use without shrinking what is held, so it does not count.) Read only
    /// in iterations without a plan: each read is a round trip to the
    /// runtime's thread. Not under fusion: there an op runs later than it is
    /// called, and the memory seen after it is other ops'.
    pub(super) fn op_workspace(&mut self, outputs: u64) -> u64 {
        let loaded = std::mem::take(&mut self.loaded_in_op);
        if self.on_plan || self.fused || !self.config.exact_allocations() {
            self.in_use_mark = None;
            return 0;
        }
        let Some(usage) = self.probe.as_ref().and_then(|p| p.usage()) else {
            return 0;
        };
        let workspace = self.in_use_mark.map_or(0, |before| {
            usage.reserved.saturating_sub(before + outputs + loaded)
        });
        self.in_use_mark = Some(usage.in_use);
        workspace
    }

    /// The device's free and total memory (from the driver) and the budget,
    /// in words, for an out-of-memory error.
    pub(crate) fn memory_when_failed(&self, failed: Option<u64>) -> Option<String> {
        let (free, total) = self.probe.as_ref()?.driver_free_total()?;
        let budget = self.budget.map_or("no budget".to_string(), |b| {
            format!("budget {}", human_bytes(b))
        });
        // What held the memory, for the person who must decide what to lower.
        let runtime = self
            .probe
            .as_ref()
            .and_then(|p| p.usage())
            .map_or(String::new(), |u| {
                format!(
                    ", the runtime's buffers on burn-swap's streams {} in use of {} held",
                    human_bytes(u.in_use),
                    human_bytes(u.reserved)
                )
            });
        let pool = self
            .probe
            .as_ref()
            .and_then(|p| p.allocator_unused())
            .map_or(String::new(), |unused| {
                // Capped, the pool strands at most the cap; uncapped, a
                // cap from the start is the remedy (see `PoolCap`).
                let cap = match (self.pool_capped, self.free_at_start) {
                    (false, Some(free)) => format!(
                        "; BURN_SWAP_POOL_CAP={} caps the pool from the start, so that \
                         pieces strand at most that",
                        human_bytes(free / 2).replace(' ', "")
                    ),
                    _ => String::new(),
                };
                let pieces = match failed {
                    // The pool could not place the buffer in what it held.
                    Some(bytes) if unused >= bytes => format!(
                        " (more than the {} buffer, but in pieces smaller than it, between \
                         live buffers: a lower budget or batch leaves larger ones{cap})",
                        human_bytes(bytes)
                    ),
                    _ => String::new(),
                };
                format!(
                    ", the driver's memory pool {} held unused{pieces}",
                    human_bytes(unused)
                )
            });
        // Larger than any tensor the plan knows: a buffer an op takes inside
        // itself, often one that autotune's pick of kernel needs (VGG16's
        // data gradients at the default level).
        let own_buffer = match failed {
            Some(bytes) if self.largest_tensor > 0 && bytes > self.largest_tensor => {
                // Free buffers held for reuse, or freed ranges in pieces,
                // can be what such a buffer lacks: given back whole after
                // every op they are one piece to the driver.
                let give_back = if !matches!(self.config.pool_cap, PoolCap::AtMost(_))
                    || self.config.release_after_bytes != Some(0)
                {
                    let settings = crate::fit::key_values(&crate::fit::WHOLE_FREES);
                    format!(
                        "; {} gives free buffers back to the driver whole after every op \
                         (VGG16 b6144 trained that way under a 12 GiB cap at the default \
                         level, where it failed without)",
                        settings.join(" ")
                    )
                } else {
                    String::new()
                };
                format!(
                    "; the {} buffer is larger than any tensor of the iteration (the largest: \
                     {}), so an op takes it inside itself, where no plan sees it: often a \
                     kernel autotune picked for a few percent of speed while profiling left it \
                     room{give_back}; CUBECL_AUTOTUNE_LEVEL=minimal tunes fewer shapes and may \
                     pick another",
                    human_bytes(bytes),
                    human_bytes(self.largest_tensor)
                )
            }
            _ => String::new(),
        };
        let (waiting, waiting_bytes) = crate::transfer::fusion_waiting();
        let fusion = if waiting > 0 {
            format!(
                ", {waiting} of whose offloads ({}) waited for fusion to run the ops before them",
                human_bytes(waiting_bytes)
            )
        } else {
            String::new()
        };
        // A plan the device was timing may be the one that did not fit.
        let under = match self.active.as_ref().filter(|_| self.on_plan) {
            Some(active) => {
                let policy = self.config.policy.name();
                let way = self
                    .plan_trial
                    .way_for(&active.plan.op_signatures)
                    .unwrap_or(&Way::Own)
                    .describe(policy);
                match self.plan_trial.trying() {
                    true => format!(" under {way}, timed on the device against others"),
                    false => format!(" under {way}"),
                }
            }
            None => " under no plan".into(),
        };
        Some(format!(
            "the device had {} free of {} after the failure, {budget}; at op {} of iteration \
             {}{under}, burn-swap's tracked tensors held {} on the device{fusion} ({} more in \
             downloads still under way){runtime}{pool}{own_buffer}",
            human_bytes(free),
            human_bytes(total),
            self.next_op,
            self.iteration,
            human_bytes(self.live_bytes),
            human_bytes(self.download_bytes),
        ))
    }

    /// Gives free device buffers back (exact allocations only), and what
    /// the driver's pool holds of the buffers given back before: a buffer
    /// larger than any range freed in it needs memory from the driver.
    pub(super) fn release_free_memory(&mut self) {
        if let (true, Some(probe)) = (self.config.exact_allocations(), &self.probe) {
            let on_plan = self.on_plan;
            let watched = self.reclaimer.is_some();
            let watch = &self.driver_watch;
            timed(Part::Release, || {
                probe.release_free();
                match (on_plan, watched) {
                    (true, true) => watch.want_trim(),
                    (true, false) => probe.trim(),
                    (false, _) => {}
                }
            });
            self.freed_since_release = 0;
        }
    }

    /// After an op: gives free device buffers back after every op of an
    /// iteration without a plan (each op's workspace is measured from
    /// there), else once enough was freed to be worth a pass over the
    /// runtime's buffers.
    pub(super) fn release_freed_memory(&mut self) {
        if !self.on_plan || self.freed_since_release >= self.release_after_bytes() {
            self.release_free_memory();
        }
    }

    /// [`SwapConfig::release_after_bytes`], or by default a quarter of the
    /// budget between 256 MiB and 1 GiB.
    pub(super) fn release_after_bytes(&self) -> u64 {
        const LEAST: u64 = 256 << 20;
        self.config.release_after_bytes.unwrap_or_else(|| {
            self.budget
                .map_or(LEAST, |budget| (budget / 4).clamp(LEAST, 1 << 30))
        })
    }

    /// Keeps the reclaimer running while a budget is held with exact
    /// allocations, acting always in an iteration without a plan and below
    /// the plan's margin of free memory in one that follows it.
    pub(super) fn reclaim(&mut self) {
        if !(self.holds_budget() && self.config.exact_allocations()) {
            self.reclaimer = None;
            return;
        }
        let below = if self.on_plan {
            RECLAIM_MARGIN_TENSORS * self.largest_tensor
        } else {
            u64::MAX
        };
        self.driver_watch.free_below.store(below, Ordering::Relaxed);
        if self.reclaimer.is_none() {
            let watch = self.driver_watch.clone();
            self.reclaimer = self.probe.as_ref().and_then(|p| p.reclaim(watch));
        }
    }

    /// The budget from the device's free memory as this iteration begins
    /// ([`SwapConfig::budget_from_free_memory`]). Without a plan it follows
    /// the free memory; with one, only less free than it was made for
    /// changes it, and the plan is made again for what there is.
    pub(super) fn budget_from_free_memory(&mut self) {
        if self.config.budget_bytes.is_some()
            || !self.config.budget_from_free_memory
            || !self.config.policy.moves_tensors()
        {
            return;
        }
        let Some(probe) = self.probe.as_ref() else {
            return;
        };
        let Some((free, _)) = probe.free_for_buffers() else {
            return;
        };
        self.margin.free = Some(free);
        let budget = budget_leaving(free, self.margin.share);
        let before = self.budget;
        let changed = match before {
            None => true,
            // Without a plan the budget follows the free memory; a plan
            // in force is made again only for less than it was made for.
            Some(b) if self.active.is_none() => budget != b,
            Some(b) => budget < b - b / 32,
        };
        if !changed {
            return;
        }
        self.budget = Some(budget);
        if before.is_none() {
            crate::notice::say(|| {
                format!(
                    "budget {}: the device's free memory as the iteration began ({}) less {} of it as a margin for the pieces it comes in{} (BURN_SWAP_BUDGET sets one, BURN_SWAP_BUDGET_MARGIN the share)",
                    human_bytes(budget),
                    human_bytes(free),
                    percent(self.margin.share),
                    if self.margin.may_narrow() {
                        format!(
                            ", {} where that leaves no plan or a slower one",
                            percent(self.margin.least)
                        )
                    } else {
                        String::new()
                    }
                )
            });
        }
        let Some(profile) = self.active.as_ref().and(self.plan_profile.clone()) else {
            return;
        };
        tracing::info!(
            budget,
            ?before,
            "less free device memory than the plan was made for"
        );
        crate::notice::say(|| {
            format!(
                "budget {}: less free device memory as iteration {} began than the plan in force was made for: planning again",
                human_bytes(budget),
                self.iteration,
            )
        });
        if let Err(err) = self.replan(&profile) {
            // Raised now, on the training thread: without a plan nothing
            // holds this iteration to the budget, and raised as it ends
            // (as a profiled iteration's error is) it came after its ops
            // ran the device out of memory (GPT-small b4 under a 12 GiB
            // cap, with half the free memory left as the margin).
            self.on_plan = false;
            panic!("{err}");
        }
        self.on_plan = self.active.is_some();
        // The pace is the new plan's, from its own steps: this one holds the
        // planning, and GPT-small's pace, with two such 3 s re-plans among
        // four steps of 0.5 s, read 0.89 s; the plan refined from it
        // predicted +70%.
        self.step_clock.restart();
    }
}

/// The budget `free` device memory leaves with `share` of it kept free (at
/// least [`MIN_FREE_MEMORY_MARGIN`]).
fn budget_leaving(free: u64, share: f64) -> u64 {
    let margin = (free as f64 * share) as u64;
    free.saturating_sub(margin.max(MIN_FREE_MEMORY_MARGIN))
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// How much slower, by the evaluator, the plan under the first margin may
/// be than the plan under the least before the least is taken instead: a
/// wider margin is worth a little speed (it is what keeps a run from
/// ending in pieces of free memory), not much.
const WIDER_MARGIN_COST: f64 = 1.05;

/// Whether the plan under the first margin, predicted to take `wide_ns` a
/// step, loses to the least margin's, predicted to take `narrow_ns`.
pub(super) fn wider_margin_loses(wide_ns: Option<f64>, narrow_ns: Option<f64>) -> bool {
    matches!((wide_ns, narrow_ns), (Some(wide), Some(narrow)) if wide > narrow * WIDER_MARGIN_COST)
}

/// The share of the free memory a budget taken from it leaves free
/// ([`SwapConfig::free_memory_margin`]): the first share until a plan under
/// it fails or loses to the least's, the least from then on.
#[derive(Debug)]
pub(super) struct FreeMemoryMargin {
    pub(super) share: f64,
    least: f64,
    /// The first plan under the first share was compared with the least's.
    pub(super) compared: bool,
    /// The free memory the budget was last taken from: set only where the
    /// budget is taken from it.
    free: Option<u64>,
}

impl FreeMemoryMargin {
    pub(super) fn new(config: &SwapConfig) -> Self {
        let share = config.free_memory_margin;
        Self {
            share,
            least: config.least_free_memory_margin.min(share),
            compared: false,
            free: None,
        }
    }

    fn may_narrow(&self) -> bool {
        self.least < self.share
    }

    /// The free memory the budget was last taken from, where it is.
    pub(super) fn free(&self) -> Option<u64> {
        self.free
    }

    /// The budget under the least share, where the budget in force was
    /// taken from the free memory under a wider one.
    fn narrower_budget(&self) -> Option<u64> {
        self.may_narrow()
            .then_some(self.free)
            .flatten()
            .map(|free| budget_leaving(free, self.least))
    }
}

impl Executor {
    /// `planned` under the budget in force, or, where that budget was taken
    /// from the free memory under a wider margin than the least, the plan
    /// under the least margin when `planned` failed for the budget or (the
    /// first time) the evaluator predicts it more than
    /// [`WIDER_MARGIN_COST`] slower. The least margin is then the one in
    /// force.
    pub(super) fn plan_with_narrower_margin(
        &mut self,
        profile: &Profile,
        params: &PlanParams,
        planned: Result<Plan, PlanError>,
    ) -> Result<Plan, PlanError> {
        let Some(narrower) = self.margin.narrower_budget() else {
            return planned;
        };
        let compare = !self.margin.compared;
        self.margin.compared = true;
        let failed = matches!(planned, Err(PlanError::BudgetTooSmall { .. }));
        if !(failed || compare && planned.is_ok()) {
            return planned;
        }
        let narrower_params = PlanParams {
            budget_bytes: Some(narrower),
            ..params.clone()
        };
        let narrow = self.plan_with(profile, &narrower_params);
        let step = |plan: &Plan| plan.predicted.as_ref().map(|p| p.iteration_ns);
        let why = match (&planned, &narrow) {
            (Err(err), _) => format!(
                "no plan fits the budget leaving {} ({err})",
                percent(self.margin.share)
            ),
            (Ok(_), Err(_)) => return planned,
            (Ok(wide), Ok(narrow)) => match step(wide).zip(step(narrow)) {
                Some((wide, narrow)) if wider_margin_loses(Some(wide), Some(narrow)) => format!(
                    "the plan leaving {} of the free memory is predicted {:.0}% slower ({:.1} against {:.1} ms a step)",
                    percent(self.margin.share),
                    (wide / narrow - 1.0) * 100.0,
                    wide / 1e6,
                    narrow / 1e6
                ),
                _ => return planned,
            },
        };
        let before = self.margin.share;
        self.margin.share = self.margin.least;
        self.budget = Some(narrower);
        self.unseen.budget_grew();
        tracing::info!(
            budget = narrower,
            before,
            share = self.margin.share,
            "narrower margin"
        );
        crate::notice::say(|| {
            format!(
                "budget {}: {why}; the budget leaves {} of the free memory from now on",
                human_bytes(narrower),
                percent(self.margin.share)
            )
        });
        narrow
    }
}
