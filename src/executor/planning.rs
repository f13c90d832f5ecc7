//! Plans made and made again at iteration boundaries (for the budget, the
//! room the device adds beyond a plan, the evaluator fitted to the measured
//! pace) and timed on the device against the same plan without codecs and
//! the rivals' plans.

use super::*;

/// The device memory reserved in the driver's pool as one range, in budgets
/// (see `DeviceMemory::reserve_one_range`).
const RESERVE_PER_BUDGET: u64 = 4;

impl Executor {
    /// The next step of timing the plan in force against the same plan
    /// without codecs and its rivals' (see [`PlanTrial`]), after an
    /// iteration that followed it.
    pub(super) fn time_plans(&mut self, report: &mut IterationReport) {
        let (Some(active), Some(profile)) = (
            self.active.as_ref().map(|a| a.plan.clone()),
            self.plan_profile.clone(),
        ) else {
            return;
        };
        if !self.plan_trial.began_for(&active) {
            let started = Instant::now();
            let (others, not_timed) = self.candidates(&profile, &active);
            self.planning_took(report, started.elapsed());
            for why in &not_timed {
                tracing::info!(rival = %why, "a rival's plan is not timed");
            }
            if let TrialStep::Restart = self.plan_trial.begin(active, others, not_timed) {
                self.step_clock.restart();
            }
            return;
        }
        let step = self
            .step_clock
            .measured
            .map(|m| Duration::from_nanos(m.compute_ns + m.wait_ns));
        match self
            .plan_trial
            .next(&active, step, self.config.policy.name())
        {
            TrialStep::Wait => {}
            TrialStep::Restart => self.step_clock.restart(),
            TrialStep::Try(plan) => {
                let plan = self.without_excluded_rebuilds(plan, report);
                report.plan = Some(plan_reason(
                    &plan,
                    " (timed on the device against the plans before it)",
                ));
                self.install_plan(&profile, (*plan).clone());
                if let Some(now) = &self.active {
                    self.plan_trial.timing(now.plan.clone());
                }
                self.step_clock.restart();
            }
            TrialStep::Decided { verdict, restore } => {
                // Said at once: the report's line is at `debug` by then.
                tracing::info!("burn-swap: {verdict}");
                report.plans_timed = Some(verdict);
                if let Some(winner) = restore {
                    let winner = self.without_excluded_rebuilds(winner, report);
                    report.plan = Some(plan_reason(
                        &winner,
                        " (back in force: it was the fastest on the device)",
                    ));
                    self.install_plan(&profile, (*winner).clone());
                }
                // The evaluator was fitted to the policy's own plan; the
                // plan that stays is measured anew and fitted to.
                self.calibrate_after_trial = true;
                self.step_clock.restart();
            }
        }
    }

    /// `plan`, a candidate made as the trial began, or where it rebuilds
    /// an op whose rebuilds the device's comparisons have ruled out since
    /// (a rebuild differed while other plans were timed), the plan made
    /// anew the same way from the plan's profile without those rebuilds. Put back
    /// as it was, such a plan frees tensors the executor no longer rebuilds,
    /// which then leave for the host unplanned and are fetched when
    /// backward reads them (GPT-small b4 at 6 GiB on an H200: 8 attention
    /// tensors of 192 MiB, 56 ms of waits a step).
    fn without_excluded_rebuilds(
        &mut self,
        plan: Arc<Plan>,
        report: &mut IterationReport,
    ) -> Arc<Plan> {
        if !plan.reruns_any_of(&self.rebuild_checks.differing()) {
            return plan;
        }
        let started = Instant::now();
        let Some(profile) = self.profile_without_differing_rebuilds() else {
            return plan;
        };
        let remade = self.plan_with(&profile, &self.plan_params());
        self.planning_took(report, started.elapsed());
        match remade {
            Ok(remade) => Arc::new(remade),
            // Kept as it was: the executor swaps what it no longer rebuilds.
            Err(err) => {
                tracing::warn!(%err, "a plan timed on the device could not be made without the rebuilds ruled out since");
                plan
            }
        }
    }

    /// The plans to time against `active`: without its codecs, where the
    /// policy checks them on the device, then each of its rivals' plans
    /// that fits, the one the replay puts nearest first. Last, the rivals
    /// not timed, each as `name: why` (no plan, or the same plan as
    /// `active`).
    pub(super) fn candidates(
        &self,
        profile: &Profile,
        active: &Plan,
    ) -> (Vec<Candidate>, Vec<String>) {
        let params = self.plan_params();
        let policy = &*self.config.policy;
        let mut others = Vec::new();
        if policy.checks_codecs_on_device() && active.compressed_count() > 0 {
            if let Ok(plain) = policy::without_codecs(policy, profile, &params, active) {
                others.push(Candidate {
                    way: Way::WithoutCodecs,
                    plan: Arc::new(plain),
                });
            }
        }
        let mut not_timed = Vec::new();
        let mut rivals: Vec<(f64, Candidate)> = policy
            .rivals()
            .into_iter()
            .filter_map(|rival| {
                let plan = match rival.plan(profile, &params) {
                    Ok(plan) => plan,
                    Err(err) => {
                        not_timed.push(format!(
                            "{}: no plan, {}",
                            rival.name(),
                            why_no_plan(&err, params.unseen_bytes)
                        ));
                        return None;
                    }
                };
                if plan.same_actions(active) {
                    not_timed.push(format!("{}: the same plan", rival.name()));
                    return None;
                }
                let ns = plan
                    .predicted
                    .as_ref()
                    .map_or(f64::INFINITY, |p| p.iteration_ns);
                let way = Way::Rival(rival);
                Some((
                    ns,
                    Candidate {
                        way,
                        plan: Arc::new(plan),
                    },
                ))
            })
            .collect();
        rivals.sort_by(|a, b| a.0.total_cmp(&b.0));
        others.extend(rivals.into_iter().map(|(_, c)| c));
        (others, not_timed)
    }

    /// The plan for `profile` made the way the device timed fastest for
    /// its op sequence (or is timing now), else the policy's own.
    pub(super) fn plan_with(
        &self,
        profile: &Profile,
        params: &PlanParams,
    ) -> Result<Plan, PlanError> {
        let policy = &*self.config.policy;
        match self.plan_trial.way_for(&profile.op_signatures) {
            Some(Way::Rival(rival)) => rival.plan(profile, params),
            Some(Way::WithoutCodecs) => {
                let own = policy.plan(profile, params)?;
                policy::without_codecs(policy, profile, params, &own)
            }
            Some(Way::Own) | None => policy.plan(profile, params),
        }
    }

    /// Counts planning that `took` this long at the end of the iteration of
    /// `report`, in the report and out of the measured pace.
    fn planning_took(&mut self, report: &mut IterationReport, took: Duration) {
        report.planning = Some(report.planning.unwrap_or_default() + took);
        self.step_clock.set_aside(took);
    }

    /// Plans from `profile` and says so in the iteration's `report`: the
    /// planner's time and the plan in one line, followed by `why`.
    pub(super) fn replan_reported(
        &mut self,
        profile: &Profile,
        report: &mut IterationReport,
        why: &str,
    ) -> Result<(), SwapError> {
        let started = Instant::now();
        let result = self.replan(profile);
        self.planning_took(report, started.elapsed());
        report.plan = Some(match (&self.status, self.plan()) {
            (Err(err), _) => format!("no plan fits: {err}"),
            (Ok(()), Some(plan)) => plan_reason(&plan, why),
            (Ok(()), None) => "no plan".into(),
        });
        result
    }

    /// What the policy plans for: the configuration's parameters, the link
    /// as fast as copies were, and room for what the device adds unseen.
    pub(super) fn plan_params(&self) -> PlanParams {
        let mut params = self.config.plan_params();
        params.budget_bytes = self.budget;
        params.costs = self.calibrated_costs.clone().or_else(|| self.base_costs());
        params.unseen_bytes = self.unseen.in_force;
        params.under_fusion = self.fused;
        params.host_budget_bytes = self.probe.as_ref().and_then(|p| {
            p.pinned_capacity(
                self.config.pinned_pool_bytes,
                self.config.host_ram_reserve_bytes,
            )
        });
        params
    }

    /// The cost model given, else the link timed on this device.
    pub(super) fn base_costs(&self) -> Option<Arc<CostModel>> {
        self.config
            .cost_model
            .clone()
            .or_else(|| self.measured_costs.clone().flatten())
    }

    /// The evaluator fitted to `measured`, a pace of the plan in force, on
    /// iterations like `base` ([`calibrate`]): the profile with the ops'
    /// times from it, and the link it fitted, kept for the plans to come
    /// (none without a cost model), with its share in words for the report.
    pub(super) fn calibrate_on_plan_in_force(
        &mut self,
        base: &Profile,
        measured: MeasuredStep,
    ) -> (Profile, Option<Arc<CostModel>>, String) {
        let Some(active) = self.active.as_ref() else {
            let mut profile = base.clone();
            profile.share_compute_time(measured.compute_ns, true);
            return (profile, None, String::new());
        };
        let base_costs = self.base_costs();
        let fitted = calibrate(
            base,
            &active.plan.decisions,
            base_costs.as_deref(),
            measured,
        );
        let Some(costs) = fitted.costs.map(Arc::new) else {
            return (fitted.profile, None, String::new());
        };
        self.calibrated_costs = Some(costs.clone());
        let link = format!(
            "; copies at {:.0}% of the link's measured bandwidth",
            fitted.link_factor * 100.0
        );
        (fitted.profile, Some(costs), link)
    }

    /// Fits the evaluator to `measured`, a pace of the plan in force after
    /// the device timed it fastest, and predicts that plan's step with it
    /// (the plan's actions unchanged): before, a rival's plan that won kept
    /// the prediction made with the evaluator fitted to the policy's own,
    /// 8-76% off its measured step on ResNet-50 and 17-19% on VGG16. Says
    /// what it did in words, for the iteration's report; nothing without a
    /// cost model, where nothing is predicted.
    pub(super) fn predict_plan_in_force(
        &mut self,
        base: &Profile,
        measured: MeasuredStep,
    ) -> Option<String> {
        let (profile, costs, link) = self.calibrate_on_plan_in_force(base, measured);
        let costs = costs?;
        let active = self.active.as_mut()?;
        let before = active.plan.predicted.as_ref().map(|p| p.iteration_ns);
        let predicted = replay(
            &profile,
            &active.plan.decisions,
            &costs,
            CodecTime::Measured,
        );
        let mut plan = (*active.plan).clone();
        plan.predicted = Some(predicted);
        active.plan = Arc::new(plan);
        self.plan_profile = Some(Arc::new(profile));
        let step_ms = (measured.compute_ns + measured.wait_ns) as f64 / 1e6;
        Some(format!(
            "evaluator fitted to the plan in force: {:.1} ms a step measured, {:.1} ms predicted now{}{link}",
            step_ms,
            predicted.iteration_ns / 1e6,
            before.map_or(String::new(), |b| format!(
                " ({:.1} ms, {:+.1}%, before)",
                b / 1e6,
                (b / 1e6 / step_ms - 1.0) * 100.0
            )),
        ))
    }

    /// Times the host link on the device once, before the first plan of a
    /// policy that moves tensors, where no cost model was given: the plans
    /// that price copies by time need it, and the others' predictions use
    /// it.
    pub(super) fn measure_link_once(&mut self) {
        if self.config.policy.moves_tensors() {
            self.measure_link();
        }
    }

    /// Times the host link on the device, unless a cost model was given or
    /// it was timed already.
    pub(super) fn measure_link(&mut self) {
        if self.config.cost_model.is_some() || self.measured_costs.is_some() {
            return;
        }
        let link = self.probe.as_ref().and_then(|p| p.measure_link());
        if let Some(link) = &link {
            crate::notice::say(|| {
                format!(
                    "no cost model given (BURN_SWAP_COST_MODEL): the host link measured on the device, {:.1} GB/s to the host, {:.1} GB/s back, {:.1} GB/s each way at once; codecs are planned only with their time model (the bitmap codec, for dropout masks, is timed here once such tensors are counted)",
                    link.to_host_bytes_per_s / 1e9,
                    link.to_device_bytes_per_s / 1e9,
                    link.duplex_to_host_bytes_per_s / 1e9
                )
            });
        }
        self.measured_costs = Some(link.map(|link| Arc::new(CostModel { link, codecs: None })));
    }

    /// Times the bitmap codec on the device once, where the link was timed
    /// here (no cost model given) and `profile` counted tensors of zeros
    /// and one value that a policy reading them could compress (dropout
    /// masks): plans price codecs only with a model of their time, and the
    /// bitmap's takes a second or two to measure (24 short timings), so
    /// models without such tensors never pay for it. Its tensors take at
    /// most an eighth of the device's free memory.
    pub(super) fn time_bitmap_once(&mut self, profile: &Profile) {
        let Some(Some(measured)) = &self.measured_costs else {
            return;
        };
        if self.bitmap_timed
            || measured.codecs.is_some()
            || !self.config.policy.uses_sparsity()
            || !profile.saved_tensors().any(|t| t.two_valued == Some(true))
        {
            return;
        }
        self.bitmap_timed = true;
        let Some(probe) = self.probe.as_ref() else {
            return;
        };
        let Some((free, _)) = probe.free_for_buffers() else {
            return;
        };
        let started = Instant::now();
        let Some(model) = probe.time_bitmap(free / 8) else {
            return;
        };
        crate::notice::say(|| {
            format!(
                "saved tensors of zeros and one value (dropout masks): the bitmap codec timed on the device in {:.1} s, so plans may compress them (other codecs still need BURN_SWAP_COST_MODEL)",
                started.elapsed().as_secs_f64()
            )
        });
        let with_bitmap = |costs: &Arc<CostModel>| {
            Arc::new(CostModel {
                link: costs.link,
                codecs: Some(model.clone()),
            })
        };
        self.measured_costs = Some(Some(with_bitmap(measured)));
        if let Some(calibrated) = &self.calibrated_costs {
            if calibrated.codecs.is_none() {
                self.calibrated_costs = Some(with_bitmap(calibrated));
            }
        }
    }

    /// What a profiled iteration's device added beyond the tensors it kept
    /// (mostly its ops' own buffers), as a first measure of what plans do
    /// not see, where it is more than the plan in force leaves free. Not in
    /// the first iteration, whose kernels were autotuned (the candidates'
    /// buffers count), nor without a budget or a high-water mark.
    pub(super) fn unseen_in_profiled(&self, profile: &Profile) -> Option<u64> {
        if !self.config.budget_counts_unseen || profile.iteration == 0 {
            return None;
        }
        let budget = self.budget?;
        let grew = profile.device.as_ref()?.allocator_growth()?;
        let kept = profile
            .peak_live_bytes
            .saturating_sub(profile.start_live_bytes);
        let unseen = grew.saturating_sub(kept);
        self.unseen.worth(unseen, budget).then_some(unseen)
    }

    /// Plans from `profile` leaving `unseen` bytes of the budget free for
    /// what the device adds beyond the plan. Where no plan leaves all of
    /// it, the plan leaves as much as the best one tried could, and a
    /// warning says so; where that is no more than the plan in force
    /// leaves, that plan stays. Returns whether a new plan is in force.
    pub(super) fn replan_for_unseen(
        &mut self,
        profile: &Profile,
        unseen: u64,
        report: &mut IterationReport,
        why: &str,
    ) -> bool {
        let _span = tracing::info_span!("plan", iteration = profile.iteration).entered();
        let started = Instant::now();
        let budget = self.budget.unwrap_or(0);
        let plan_leaving = |executor: &Self, unseen_bytes| {
            let params = PlanParams {
                unseen_bytes,
                ..executor.plan_params()
            };
            executor.plan_with(profile, &params)
        };
        let mut leave = unseen;
        let mut planned = plan_leaving(self, leave);
        if let Err(err @ PlanError::BudgetTooSmall { need, .. }) = &planned {
            // Beside the best plan's own bytes, what is left, if it is
            // worth a plan.
            let left = room_left(budget, *need, leave);
            if self.unseen.worth(left, budget) {
                self.warnings.raise(SwapWarning::UnseenOverBudget {
                    budget_bytes: budget,
                    unseen_bytes: unseen,
                    left_bytes: Some(left),
                    why: err.to_string(),
                });
                leave = left;
                planned = plan_leaving(self, leave);
            }
        }
        self.planning_took(report, started.elapsed());
        match planned {
            Ok(plan) => {
                self.unseen.planned(leave);
                self.unseen.gave_up |= leave < unseen;
                report.plan = Some(plan_reason(&plan, why));
                self.install_plan(profile, plan);
                true
            }
            Err(err @ PlanError::BudgetTooSmall { .. }) => {
                self.unseen.gave_up = true;
                self.warnings.raise(SwapWarning::UnseenOverBudget {
                    budget_bytes: budget,
                    unseen_bytes: unseen,
                    left_bytes: None,
                    why: err.to_string(),
                });
                false
            }
            // Another reason (the pinned pool, a missing cost model): the
            // ordinary re-plan says it.
            Err(_) => false,
        }
    }

    /// Plans from `profile` leaving `unseen` free where given and a plan
    /// does, else as [`Self::replan_reported`] does.
    pub(super) fn replan_leaving(
        &mut self,
        profile: &Profile,
        unseen: Option<u64>,
        report: &mut IterationReport,
        why: &str,
    ) -> Result<(), SwapError> {
        match unseen.is_some_and(|u| self.replan_for_unseen(profile, u, report, why)) {
            true => Ok(()),
            false => self.replan_reported(profile, report, why),
        }
    }

    /// Puts `plan`, made from `profile`, in force.
    pub(super) fn install_plan(&mut self, profile: &Profile, plan: Plan) {
        // The iteration's report says it in words at `info`.
        tracing::debug!(
            iteration = profile.iteration,
            policy = %plan.policy,
            swapped = plan.swapped_count(),
            peak_saved = plan.expected_peak_saved_bytes,
            "new plan"
        );
        if let (true, Some(why)) = (
            self.config.policy.moves_tensors(),
            &plan.moves_nothing_because,
        ) {
            self.warnings.raise(SwapWarning::PlanMovesNothing {
                policy: plan.policy.clone(),
                why: why.clone(),
            });
        }
        let plan = Arc::new(plan);
        if let Some(path) = &self.config.profile_path {
            if let Err(err) = write_json(path, profile, Some(&plan)) {
                tracing::warn!(path = %path.display(), %err, "could not write the profile");
            }
        }
        let mut active = ActivePlan::new(plan);
        // Only for the debug events that set it beside the executor's count.
        if tracing::enabled!(target: "burn_swap::executor", tracing::Level::DEBUG) {
            active.expected = Footprint::of(profile).timeline(profile, &active.plan.decisions);
        }
        self.active = Some(active);
        self.status = Ok(());
        // Once per profiled iteration: tensors that never leave are
        // never counted (under fusion), and asking again each plan
        // would count every iteration.
        if !self.on_plan {
            self.zeros_missing = self.config.policy.uses_sparsity()
                && profile.saved_tensors().any(|t| t.zero_fraction.is_none());
        }
        self.largest_tensor = profile.tensors.iter().map(|t| t.bytes).max().unwrap_or(0);
        // Where asked (`SwapConfig::reserve_pool`), from the first
        // plan on (autotune is done for these shapes: while it runs,
        // trimming to the driver gave its candidates room), buffers
        // are carved from one range of the device: room for the
        // budget, the model and the ops' own buffers.
        // Otherwise the pool keeps some freed memory for the next
        // step (`SwapConfig::pool_keep_bytes`).
        if let (true, Some(budget), Some(probe)) =
            (self.config.exact_allocations(), self.budget, &self.probe)
        {
            if self.config.reserve_pool {
                probe.reserve_one_range(budget.saturating_mul(RESERVE_PER_BUDGET));
            } else {
                probe.keep_in_pool(self.config.pool_keep_bytes.unwrap_or(budget / 2));
            }
        }
        // What the plan was made from (`burn_swap::plan_profile`);
        // zeros counted later are merged into it.
        self.plan_profile = Some(Arc::new(profile.clone()));
    }

    /// `planned`, or where no plan leaves what the device adds beyond the
    /// plan free of a budget taken from the free memory with the default,
    /// narrowing margin, and the best plan tried and what the device adds
    /// fit in that free memory, the plan leaving what is left of the budget
    /// beside it, with a warning, as [`Self::replan_for_unseen`] does. A
    /// budget that shrank as an iteration began must not end training over
    /// its margin alone (GPT-small b4 under a 12 GiB cap on an H200: a
    /// budget of 6.2 GiB, 3.6 GiB of it to leave, and the best plan needed
    /// 6.7 GiB, with 8.3 GiB free).
    fn leaving_less_unseen(
        &mut self,
        profile: &Profile,
        planned: Result<Plan, PlanError>,
    ) -> Result<Plan, PlanError> {
        // The budget in force now: a narrower margin may have been taken.
        let params = self.plan_params();
        let (Err(err @ PlanError::BudgetTooSmall { need, .. }), Some(budget), Some(free)) =
            (&planned, params.budget_bytes, self.margin.free())
        else {
            return planned;
        };
        // Only under the default margin, which narrows where the first
        // share leaves no plan, not under a share the user fixed.
        let narrows = self.config.least_free_memory_margin < self.config.free_memory_margin;
        if !narrows || *need > free {
            return planned;
        }
        let leave = params.unseen_bytes;
        let left = room_left(budget, *need, leave);
        if leave == 0 || left >= leave {
            return planned;
        }
        let retry = self.plan_with(
            profile,
            &PlanParams {
                unseen_bytes: left,
                ..params
            },
        );
        if retry.is_err() {
            return planned;
        }
        self.warnings.raise(SwapWarning::UnseenOverBudget {
            budget_bytes: budget,
            unseen_bytes: leave,
            left_bytes: Some(left),
            why: err.to_string(),
        });
        self.unseen.in_force = left;
        self.unseen.gave_up = true;
        retry
    }

    /// Plans again from the plan's profile with the tensors of `refused`
    /// (the plan rebuilds them, but their slots could not free them) kept
    /// or swapped, at most [`REFUSED_REPLANS`] times from one profile; past
    /// that the plan in force stays, and says so once.
    pub(super) fn replan_without_refused_rebuilds(
        &mut self,
        refused: &[(TensorKey, u64, &'static str)],
        report: &mut IterationReport,
    ) -> Result<(), SwapError> {
        if self.refused_replans == REFUSED_REPLANS {
            crate::notice::once("refused rebuilds stay", || {
                format!(
                    "tensors the plan rebuilds still stay on the device after {REFUSED_REPLANS} plans made without the ones before ({}): the plan in force stays, and they are counted where they are",
                    refused_in_words(refused)
                )
            });
            return Ok(());
        }
        let Some(profile) = self.profile_without_refused_rebuilds(refused) else {
            return Ok(());
        };
        self.refused_replans += 1;
        let why = format!(
            " ({} tensors the plan rebuilds stayed on the device, {}: plans keep or swap them)",
            refused.len(),
            refused_in_words(refused)
        );
        crate::notice::say(|| format!("planning again{why}"));
        self.replan_reported(&profile, report, &why)
    }

    /// The plan's profile with the tensors of `refused` (their executor
    /// could not free them for their rebuild) kept out of rebuilds.
    pub(super) fn profile_without_refused_rebuilds(
        &mut self,
        refused: &[(TensorKey, u64, &'static str)],
    ) -> Option<Profile> {
        let keys: std::collections::HashSet<TensorKey> = refused.iter().map(|r| r.0).collect();
        self.plan_profile_amended(|profile| {
            for t in profile.tensors.iter_mut().filter(|t| keys.contains(&t.key)) {
                t.rebuild_refused = true;
            }
        })
    }

    pub(super) fn replan(&mut self, profile: &Profile) -> Result<(), SwapError> {
        let _span = tracing::info_span!("plan", iteration = profile.iteration).entered();
        self.time_bitmap_once(profile);
        let params = self.plan_params();
        let planned = self.plan_with(profile, &params);
        let planned = self.plan_with_narrower_margin(profile, &params, planned);
        let planned = self.leaving_less_unseen(profile, planned);
        match planned {
            Ok(plan) => {
                self.install_plan(profile, plan);
                Ok(())
            }
            Err(err) => {
                let err = SwapError::from(err);
                tracing::error!(%err, "no plan fits");
                let notice = match self.config.on_budget_error {
                    OnBudgetError::Panic => format!("no plan fits: {err}"),
                    OnBudgetError::KeepAll => format!(
                        "no plan fits: {err}; every tensor stays on the device (keep-all fallback) until the op sequence or the budget changes; burn_swap::status() has the reason"
                    ),
                };
                crate::notice::once("no plan fits", || notice);
                self.active = None;
                self.status = Err(err.clone());
                // A few sequences: those of a training loop's own passes.
                if self.failed_for.len() == 8 {
                    self.failed_for.remove(0);
                }
                self.failed_for.push(profile.op_signatures.clone());
                if let Some(path) = &self.config.profile_path {
                    let _ = write_json(path, profile, None);
                }
                match self.config.on_budget_error {
                    OnBudgetError::Panic => Err(err),
                    OnBudgetError::KeepAll => Ok(()),
                }
            }
        }
    }
}

/// How many times what the device adds beyond the plan may make one op
/// sequence's plan again: each plan leaves more of the budget free, and
/// growth that keeps rising past that is not the plan's to bound.
pub(super) const UNSEEN_CORRECTIONS: u32 = 3;

/// The device bytes iterations that followed a plan added beyond it (the
/// allocator's high-water mark over the plan's own peak), and what the plan
/// in force leaves of the budget free for them, so that the budget bounds
/// what the device holds ([`SwapConfig::budget_counts_unseen`]).
#[derive(Debug, Default)]
pub(super) struct UnseenBytes {
    /// What the plan in force leaves free.
    pub(super) in_force: u64,
    /// The op sequence they were measured on.
    pub(super) ops: u64,
    /// Measured on the last [`PACE_STEPS`] iterations that followed a plan.
    pub(super) measured: Vec<u64>,
    /// Plans they caused for this op sequence.
    pub(super) corrections: u32,
    /// No plan left them free: the plan in force stays.
    pub(super) gave_up: bool,
}

impl UnseenBytes {
    pub(super) fn may_correct(&self) -> bool {
        !self.gave_up && self.corrections < UNSEEN_CORRECTIONS
    }

    /// The budget grew (a narrower margin): plans may try again to leave
    /// all of it free. GPT-small b4 under a 12 GiB cap, whose plans had
    /// given up on part of it under the first margin's smaller budget, ran
    /// out of memory in iteration 21 after the margin narrowed.
    pub(super) fn budget_grew(&mut self) {
        self.gave_up = false;
        self.corrections = 0;
    }

    /// Whether a plan leaving `unseen` free is worth making: corrections
    /// are still allowed and it leaves more than the plan in force by over
    /// a twentieth of the budget.
    pub(super) fn worth(&self, unseen: u64, budget: u64) -> bool {
        self.may_correct() && unseen > self.in_force + budget / 20
    }

    /// An iteration that followed `plan` grew the device's buffers by
    /// `grew`. Returns what the next plan should leave free: the most of
    /// the last [`PACE_STEPS`] (one step can miss a late buffer), as soon as
    /// that is over what the plan in force leaves by more than a twentieth
    /// of the budget (under a tight cap the next step may not fit).
    pub(super) fn iteration_followed(
        &mut self,
        plan: &Plan,
        grew: u64,
        budget: u64,
    ) -> Option<u64> {
        let seen = plan.expected_peak_bytes.saturating_sub(plan.unseen_bytes);
        if self.measured.len() == PACE_STEPS {
            self.measured.remove(0);
        }
        self.measured.push(grew.saturating_sub(seen));
        let most = self.measured.iter().copied().max()?;
        self.worth(most, budget).then_some(most)
    }

    /// A plan leaving `unseen` free is in force.
    pub(super) fn planned(&mut self, unseen: u64) {
        self.in_force = unseen;
        self.measured.clear();
        self.corrections += 1;
    }

    /// A plan is made from a profiled iteration of `ops`: what was measured
    /// on another op sequence does not hold for it.
    pub(super) fn profiled(&mut self, ops: &[u64]) {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        ops.hash(&mut hasher);
        let ops = hasher.finish();
        if ops != self.ops {
            *self = Self {
                ops,
                ..Self::default()
            };
        }
        self.measured.clear();
    }
}

/// Why a rival made no plan, briefly, for the trial's verdict; `unseen`:
/// the bytes of the budget the plans leave for what the device adds.
pub(super) fn why_no_plan(err: &PlanError, unseen: u64) -> String {
    match err {
        PlanError::BudgetTooSmall { budget, need, .. } => {
            let leaving = if unseen > 0 {
                format!(" leaving {} for what the device adds", human_bytes(unseen))
            } else {
                String::new()
            };
            format!(
                "needs {} against a budget of {}{leaving}",
                human_bytes(*need),
                human_bytes(*budget)
            )
        }
        PlanError::HostTooSmall {
            host_budget, need, ..
        } => format!(
            "needs {} of host memory, where the pinned pool takes {}",
            human_bytes(*need),
            human_bytes(*host_budget)
        ),
        other => other
            .to_string()
            .trim_start_matches("burn-swap: ")
            .to_string(),
    }
}

/// What a budget has beside the best plan tried, which needed `need`
/// leaving `leave` for what the device adds beyond it (a hundredth kept
/// back): what a plan can leave instead.
fn room_left(budget: u64, need: u64, leave: u64) -> u64 {
    budget.saturating_sub(need.saturating_sub(leave)) / 100 * 99
}

/// The report's line for a new plan: the plan, `why` it was made, and the
/// room it leaves for what the device adds beyond it.
fn plan_reason(plan: &Plan, why: &str) -> String {
    match plan.unseen_bytes {
        0 => format!("{}{why}", plan_line(plan)),
        leave => format!(
            "{}{why} (leaving {} of the budget for what the device added beyond the plan)",
            plan_line(plan),
            human_bytes(leave)
        ),
    }
}

/// How many plans, at most, are made again from one profile for tensors the
/// plan rebuilds that stayed on the device: each leaves those out, and a
/// new plan can rebuild others that stay. On ResNet-50 b92 under a 12 GiB
/// cap seven such plans, before plans kept stand-ins on the device long
/// enough, kept it from its timed steps for 170 s.
pub(super) const REFUSED_REPLANS: u32 = 3;

/// `refused` rebuilds summed up: their bytes, and each reason with how many.
pub(super) fn refused_in_words(refused: &[(TensorKey, u64, &'static str)]) -> String {
    let bytes: u64 = refused.iter().map(|r| r.1).sum();
    let mut reasons: Vec<(&'static str, usize)> = Vec::new();
    for (_, _, why) in refused {
        match reasons.iter_mut().find(|(w, _)| w == why) {
            Some((_, n)) => *n += 1,
            None => reasons.push((why, 1)),
        }
    }
    let reasons: Vec<String> = reasons
        .iter()
        .map(|(why, n)| format!("{n}: {why}"))
        .collect();
    format!("{} ({})", human_bytes(bytes), reasons.join("; "))
}
