//! The executor: one per thread, it numbers ops within an iteration, records
//! the profile, turns the profile into a plan at each iteration boundary and
//! carries the plan out (offload after a tensor's last forward use, prefetch
//! before its first backward use).
//!
//! Iterations are delimited by `SwapAutodiff::backward`: the ops of
//! `SwapAutodiff` since the previous backward are the forward phase
//! (including the data upload), the ops inside backward are the backward
//! phase. Ops called on the inner backend directly (the optimizer step, a
//! validation pass on `model.valid()`) are not the iteration's: they are
//! counted on the device but never numbered, recorded or moved. A pass under
//! autodiff that ends without backward is dropped from the iteration when
//! the plan's first op comes again ([`Executor::starts_over`]). A tensor
//! is identified across iterations by the op that produced it, counted from
//! the start of the iteration ([`TensorKey`]). Each op's signature (name and
//! float input shapes) is checked against the profiled iteration; at the
//! first difference the plan stops being applied for the rest of the
//! iteration, and the iteration's own profile becomes the basis of a new plan.
//!
//! Burn calls ops from the thread that runs the model (burn-autodiff runs
//! backward on the calling thread too), so the executor is thread-local and
//! needs no locking on the per-op path. Handles dropped on other threads
//! report to their executor through a [`Tracker`] inbox.

use std::any::Any;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use crate::config::{OnBudgetError, PoolCap, SwapConfig};
use crate::error::SwapError;
use crate::handle::{ManagedSlot, SlotEvent, TensorId, Tracker};
use crate::plan_trial::{Candidate, PlanTrial, TrialStep, Way, RIVAL_WINDOW};
use crate::policy::{self, Action, Codec, CostModel, Plan, PlanError, PlanParams};
use crate::profiler::{human_bytes, write_json, OpRecord, Phase, Profile, Recorder, TensorKey};
use crate::rebuild_check::{Checked, Differed, RebuildAs, RebuildCheck, RebuildChecks};
use crate::report::{plan_line, IterationReport, OffloadTally, SwapWarning, Warnings};
use crate::runtime_failure::SkippedCandidates;
use crate::sparsity::PendingZeros;
use crate::transfer::{DeviceMemory, DeviceReport, DeviceUsage, TransferError, TransferOptions};
use burn_swap_plan::cost::{calibrate, replay, CodecTime, MeasuredStep};

static NEXT_TENSOR_ID: AtomicU64 = AtomicU64::new(1);

/// The free device memory a planned iteration keeps by giving freed memory
/// back, in the profile's largest tensors. Under fusion the ops' own
/// buffers are not profiled; on VGG16-CIFAR under a 12 GiB cap (H100) the
/// data gradient autotune picked for the 8x8 convolutions took a column
/// buffer of 2.25 times the largest activation (b4096 and b6144).
const RECLAIM_MARGIN_TENSORS: u64 = 3;

/// Free memory outside the driver's pool, in tensors of the largest size,
/// under which a planned iteration caps the pool ([`PoolCap::HalfFree`]).
const PRESSED_MARGIN_TENSORS: u64 = 2;

/// The device memory reserved in the driver's pool as one range, in budgets
/// (see `DeviceMemory::reserve_one_range`).
const RESERVE_PER_BUDGET: u64 = 4;

/// A budget taken from the device's free memory leaves at least this much of
/// it free, whatever share `SwapConfig::free_memory_margin` says.
const MIN_FREE_MEMORY_MARGIN: u64 = 512 << 20;

/// A fresh process-unique tensor id.
pub(crate) fn next_tensor_id() -> TensorId {
    NEXT_TENSOR_ID.fetch_add(1, Ordering::Relaxed)
}

/// What the decorator must do when an op begins.
pub(crate) struct OpStart {
    pub index: u32,
    pub timing: bool,
    pub prefetch: Vec<Arc<dyn ManagedSlot>>,
    /// The plan rebuilds the op's output in backward: keep what it takes.
    pub keeps_recipe: bool,
}

/// A live tensor, as the executor accounts for it.
struct Live {
    bytes: u64,
    resident: bool,
    /// Set for tensors produced in the current iteration.
    key: Option<TensorKey>,
    /// The last op that produced or read it (kept while profiling under a budget).
    last_use: u32,
    /// Its slot, kept while profiling under a budget so that it can be moved off.
    slot: Option<Weak<dyn ManagedSlot>>,
    /// A move off the device was refused (e.g. a fusion tensor): not asked again.
    unmovable: bool,
}

/// How the plan takes a tensor off the device once its trigger op ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leave {
    /// Copied to the host, compressed with the codec first where one is given.
    ToHost(Option<Codec>),
    /// Freed, to be rebuilt in backward by running its op again; with
    /// `check`, kept aside instead and compared with its rebuild
    /// ([`crate::rebuild_check`]).
    ForRebuild { check: bool },
}

/// What the decorator must do once an op finished.
pub(crate) struct OpEnd {
    /// Tensors of the op (inputs and outputs, by id) the plan takes off the
    /// device now, and how.
    pub leave: Vec<(TensorId, Leave)>,
    /// Other tensors to move off now: the profiled iteration went over the budget.
    pub evict: Vec<Arc<dyn ManagedSlot>>,
    /// Inputs of this ReLU (by id) the plan rebuilds from its output (by
    /// output index), which stands in for them in backward.
    pub stand_ins: Vec<(TensorId, u16)>,
    /// Outputs of this op (by id) that stand in for a later op's equal
    /// output: the decorator hands their slots to
    /// [`Executor::remember_stand_ins`].
    pub remember: Vec<TensorId>,
    /// Outputs of this op (by id) an earlier op made already, with that
    /// op's output (a `Slot` of the decorator's backend), which stands in
    /// for them in backward.
    pub equal_to: Vec<(TensorId, Arc<dyn Any + Send + Sync>)>,
    /// Downloads count against the budget: after its offloads, the op may
    /// have to wait for some ([`Executor::downloads_to_wait_for`]).
    pub holds_budget: bool,
    /// The iteration is profiled under a budget: the training thread keeps
    /// pace with fusion's server after the op (`transfer::progress`).
    pub keep_pace: bool,
    /// How the offloads and evictions are to be made.
    pub transfer: TransferOptions,
}

/// The last iteration's profile. An iteration that followed the plan is
/// kept as its raw recording and only turned into a [`Profile`] when asked
/// for: building one walks every op and tensor, a cost a steady training
/// loop does not need to pay each step.
enum LastProfile {
    None,
    Recorded {
        recorder: Box<Recorder>,
        iteration: u64,
        end: u32,
        device: Option<DeviceReport>,
    },
    Built(Arc<Profile>),
}

impl LastProfile {
    fn get(&mut self) -> Option<Arc<Profile>> {
        if let LastProfile::Recorded { .. } = self {
            if let LastProfile::Recorded {
                recorder,
                iteration,
                end,
                device,
            } = std::mem::replace(self, LastProfile::None)
            {
                *self = LastProfile::Built(Arc::new(recorder.finish(iteration, end, device)));
            }
        }
        match self {
            LastProfile::Built(profile) => Some(profile.clone()),
            _ => None,
        }
    }
}

/// The plan being applied, indexed for the per-op path.
struct ActivePlan {
    plan: Arc<Plan>,
    /// Swapped and rebuilt tensors: key -> op after which it leaves the
    /// device, and how.
    leave_after: HashMap<TensorKey, (u32, Leave)>,
    /// op index -> keys to prefetch before it runs.
    prefetch_at: BTreeMap<u32, Vec<TensorKey>>,
    /// Swapped tensors: key -> (first backward use, bytes).
    needed: HashMap<TensorKey, (u32, u64)>,
    /// Ops whose output is rebuilt: they keep what they take.
    recipe_ops: std::collections::HashSet<u32>,
    /// Those whose rebuild must have given their tensors' bits once before
    /// backward reads one: under fusion, ops other than element-wise and
    /// layout ones (their kernels alone can sum in another order than in
    /// the fused block of forward). Filled as they run (names are not in
    /// the plan).
    verify_first: std::collections::HashSet<u32>,
    /// Rebuilt ReLU inputs -> the ReLU's output that stands in for them.
    stand_ins: HashMap<TensorKey, TensorKey>,
    /// Rebuilt tensors an earlier op made already -> that op's output,
    /// which stands in for them.
    earlier_equals: HashMap<TensorKey, TensorKey>,
    /// Those earlier outputs.
    equal_sources: std::collections::HashSet<TensorKey>,
    /// See [`Executor::starts_over`].
    restart_signature: Option<u64>,
}

/// Whether the plan's rebuilt tensors are rebuilt: not in a build without
/// the `recompute` feature, which says so once (they stay on the device).
fn rebuilds(plan: &Plan) -> bool {
    if cfg!(feature = "recompute") {
        return true;
    }
    if plan.recomputed_count() > 0 {
        crate::notice::once("recompute feature off", || {
            format!("the plan rebuilds {} tensors in backward, but burn-swap was built without its `recompute` feature: they stay on the device", plan.recomputed_count())
        });
    }
    false
}

/// The codec a swapped tensor is compressed with: none in a build without
/// the `compression` feature, which says so once.
fn compressed_with(codec: Option<Codec>) -> Option<Codec> {
    if cfg!(feature = "compression") {
        return codec;
    }
    if let Some(codec) = codec {
        crate::notice::once("compression feature off", || {
            format!("the plan compresses swapped tensors ({codec} first), but burn-swap was built without its `compression` feature: they are swapped as they are")
        });
    }
    None
}

impl ActivePlan {
    fn new(plan: Arc<Plan>) -> Self {
        let mut leave_after = HashMap::default();
        let mut needed = HashMap::default();
        let mut prefetch_at: BTreeMap<u32, Vec<TensorKey>> = BTreeMap::new();
        let mut swapped: Vec<_> = plan
            .decisions
            .iter()
            .filter(|d| d.action == Action::Swap)
            .collect();
        // Copies run in the order they are asked for: the one needed first goes first.
        swapped.sort_by_key(|d| (d.prefetch_at, d.needed_at));
        for d in swapped {
            let leave = Leave::ToHost(compressed_with(d.codec));
            leave_after.insert(d.key, (d.offload_after, leave));
            needed.insert(d.key, (d.needed_at, d.bytes));
            prefetch_at.entry(d.prefetch_at).or_default().push(d.key);
        }
        let mut recipe_ops = std::collections::HashSet::default();
        let mut stand_ins = HashMap::default();
        let mut earlier_equals = HashMap::default();
        let mut equal_sources = std::collections::HashSet::default();
        if rebuilds(&plan) {
            let rebuilt: std::collections::HashSet<TensorKey> = plan
                .decisions
                .iter()
                .filter(|d| d.action == Action::Recompute)
                .map(|d| d.key)
                .collect();
            for d in plan
                .decisions
                .iter()
                .filter(|d| d.action == Action::Recompute)
            {
                // An output rebuilt itself cannot stand in (a plan not
                // made by `resolve_needs`): the input stays.
                if d.stand_in.is_some_and(|output| rebuilt.contains(&output)) {
                    continue;
                }
                leave_after.insert(d.key, (d.offload_after, Leave::ForRebuild { check: false }));
                if let Some(earlier) = d.earlier_stand_in() {
                    earlier_equals.insert(d.key, earlier);
                    equal_sources.insert(earlier);
                } else if let Some(output) = d.stand_in {
                    stand_ins.insert(d.key, output);
                } else {
                    recipe_ops.insert(d.key.op);
                }
            }
        }
        // The plan's first op marks where an iteration starts over after a
        // pass without backward, where no other op of the plan looks like it.
        let first = plan.op_signatures.first().copied();
        let restart_signature =
            first.filter(|&f| plan.op_signatures.iter().filter(|&&s| s == f).count() == 1);
        Self {
            plan,
            leave_after,
            prefetch_at,
            needed,
            recipe_ops,
            verify_first: Default::default(),
            stand_ins,
            earlier_equals,
            equal_sources,
            restart_signature,
        }
    }
}

pub(crate) struct Executor {
    config: SwapConfig,
    tracker: Arc<Tracker>,
    iteration: u64,
    phase: Phase,
    next_op: u32,
    recorder: Recorder,
    live: HashMap<TensorId, Live>,
    live_bytes: u64,
    /// `live_bytes` when the iteration began: the budget counts growth over it.
    start_live: u64,
    /// Downloads still holding their device memory, oldest first (one copy
    /// stream: they finish in this order), while a budget is set.
    downloads: VecDeque<(u64, Weak<dyn ManagedSlot>)>,
    /// Their bytes.
    download_bytes: u64,
    /// The current iteration's tensors, by key (for prefetch).
    by_key: HashMap<TensorKey, TensorId>,
    /// This iteration's outputs that stand in for a later op's equal output
    /// (see [`OpEnd::remember`]).
    stand_in_slots: HashMap<TensorId, Weak<dyn Any + Send + Sync>>,
    /// Offloaded tensors that a prefetch may bring back.
    offloaded: HashMap<TensorId, Weak<dyn ManagedSlot>>,
    active: Option<ActivePlan>,
    /// The current iteration still follows the active plan's op sequence.
    on_plan: bool,
    status: Result<(), SwapError>,
    last_profile: LastProfile,
    events: Vec<SlotEvent>,
    /// Reads the device's real memory use (installed by the first op).
    probe: Option<Box<dyn DeviceMemory>>,
    /// Gives free device memory back from another thread while a budget is
    /// held (see `DeviceMemory::reclaim`): always in an iteration without a
    /// plan (autotune tries kernels at new shapes there), and while the
    /// driver's free memory is below `reclaim_below` when following one.
    reclaimer: Option<Box<dyn Send>>,
    reclaim_below: Arc<AtomicU64>,
    /// Whether the driver's memory pool was capped (see [`PoolCap`]).
    pool_capped: bool,
    /// The device's free memory as training began, under
    /// [`PoolCap::HalfFree`].
    free_at_start: Option<u64>,
    /// Whether the iteration under way followed a plan as it began.
    iteration_on_plan: bool,
    /// The largest tensor of the profile the plan was made from: below
    /// [`RECLAIM_MARGIN_TENSORS`] of it free, a planned iteration reclaims
    /// (room for the largest op workspace the plan cannot see), and a failed
    /// buffer larger than it is an op's own, which no plan sees.
    largest_tensor: u64,
    device_samples: Vec<(u32, DeviceUsage)>,
    /// Bytes in the driver's allocator's buffers when the iteration began,
    /// its high-water mark restarted there (where it keeps one).
    allocator_start: Option<u64>,
    /// Device bytes in use when the current op began, while op workspaces
    /// are measured ([`Self::op_workspace`]).
    in_use_mark: Option<u64>,
    /// Bytes brought back for the current op.
    loaded_in_op: u64,
    /// See [`Self::trains_here`].
    trains: bool,
    /// The op sequences no plan fitted (the budget unchanged since): a
    /// training loop that alternates sequences (a validation pass between
    /// epochs changes one iteration's) is told once for each.
    failed_for: Vec<Vec<u64>>,
    /// Exact allocations are in force on this thread's stream.
    exact_applied: bool,
    /// Device bytes of the tensors freed since free buffers were last given
    /// back ([`SwapConfig::release_after_bytes`]).
    freed_since_release: u64,
    /// The least device memory the driver reported used this iteration
    /// (while a plan is followed under a budget).
    driver_floor: u64,
    /// Device memory used over that floor at the end of the last op
    /// ([`Self::measure_real_growth`]).
    real_growth: u64,
    /// When the driver was last read for it, and the bytes the iteration's
    /// tensors and downloads held then.
    last_driver_read: Option<(Instant, u64)>,
    /// The driver reads of this iteration, and their time.
    driver_reads: (u32, Duration),
    /// [`DRIVER_READ_INTERVAL`] (tests read at every call).
    driver_read_interval: Duration,
    /// Prefetches put off because the device was over the budget: (first
    /// backward use, bytes, slot).
    deferred: Vec<(u32, u64, Weak<dyn ManagedSlot>)>,
    /// When the current iteration's first op began.
    iteration_started: Option<Instant>,
    /// The iterations' pace, for op times taken without timing each op.
    step_clock: StepClock,
    /// The training thread's backend is burn's fusion (set at each op).
    fused: bool,
    /// The profile the plan in force was made from while its op times were
    /// only estimated: planned again, once, with the step time measured on
    /// an iteration that followed that plan.
    refine_from: Option<Arc<Profile>>,
    /// The device timed the plans and one stays: the evaluator is fitted
    /// to its measured pace once.
    calibrate_after_trial: bool,
    /// The plan in force timed on the device against itself without codecs
    /// and against its rivals' plans.
    plan_trial: PlanTrial,
    /// The profile the plan in force was made from: zeros counted later
    /// (under fusion, from the copies of tensors that left) are merged into
    /// it to plan again.
    plan_profile: Option<Arc<Profile>>,
    /// The plan in force was made without the zeros of some saved tensors:
    /// its next iteration counts them.
    zeros_missing: bool,
    /// The budget in force: the configuration's, or the device's free
    /// memory when an iteration began (`SwapConfig::budget_from_free_memory`).
    budget: Option<u64>,
    /// The share of the free memory a budget taken from it leaves, and the
    /// free memory it was last taken from.
    margin: FreeMemoryMargin,
    /// The host link timed on the device, where no cost model was given:
    /// measured once, when the first plan is made.
    measured_costs: Option<Option<Arc<CostModel>>>,
    /// The cost model with the link as fast as copies really were in an
    /// iteration that followed the plan (set by that re-plan).
    calibrated_costs: Option<Arc<CostModel>>,
    /// What the device adds beyond the plan, as measured, and what the plan
    /// in force leaves free for it.
    unseen: UnseenBytes,
    /// Rebuilt tensors compared with the tensors they stand for.
    rebuild_checks: RebuildChecks,
    /// The last iteration's rebuilds and their tensors, to compare.
    checks_due: Vec<Box<dyn RebuildCheck>>,
    /// What the comparison at this iteration's start found, and its time.
    found_checks: Option<(Checked, Duration)>,
    /// Zero counts queued this iteration, read when it ends.
    zero_counts: Vec<(TensorId, Option<TensorKey>, PendingZeros)>,
    /// What the transfer layer did with this iteration's offloads.
    tally: OffloadTally,
    warnings: Warnings,
    last_report: Option<IterationReport>,
    /// An iteration that followed the plan was reported at `info` level;
    /// the ones after it go to `debug`.
    reported_following: bool,
}

thread_local! {
    static EXECUTOR: RefCell<Executor> = RefCell::new(Executor::new(SwapConfig::from_env()));
}

/// Runs `f` on this thread's executor. `f` must not call back into the
/// decorator (no ops, no handle drops that it relies on being seen at once).
pub(crate) fn with<R>(f: impl FnOnce(&mut Executor) -> R) -> R {
    EXECUTOR.with(|e| f(&mut e.borrow_mut()))
}

impl Executor {
    fn new(config: SwapConfig) -> Self {
        crate::runtime_failure::watch(config.runtime_failure_grace);
        let recorder = Recorder::new(config.max_recorded_ops, 0);
        let budget = config.budget_bytes;
        let margin = FreeMemoryMargin::new(&config);
        Self {
            config,
            tracker: Arc::new(Tracker::default()),
            iteration: 0,
            phase: Phase::Forward,
            next_op: 0,
            recorder,
            live: HashMap::default(),
            live_bytes: 0,
            start_live: 0,
            downloads: VecDeque::new(),
            download_bytes: 0,
            by_key: HashMap::default(),
            stand_in_slots: HashMap::default(),
            offloaded: HashMap::default(),
            active: None,
            on_plan: false,
            status: Ok(()),
            last_profile: LastProfile::None,
            events: Vec::new(),
            probe: None,
            reclaimer: None,
            reclaim_below: Arc::new(AtomicU64::new(u64::MAX)),
            pool_capped: false,
            free_at_start: None,
            iteration_on_plan: false,
            largest_tensor: 0,
            device_samples: Vec::new(),
            allocator_start: None,
            in_use_mark: None,
            loaded_in_op: 0,
            trains: false,
            failed_for: Vec::new(),
            exact_applied: false,
            freed_since_release: 0,
            driver_floor: u64::MAX,
            real_growth: 0,
            last_driver_read: None,
            driver_reads: (0, Duration::ZERO),
            driver_read_interval: DRIVER_READ_INTERVAL,
            deferred: Vec::new(),
            iteration_started: None,
            step_clock: StepClock::default(),
            fused: false,
            refine_from: None,
            calibrate_after_trial: false,
            plan_trial: PlanTrial::Idle,
            plan_profile: None,
            zeros_missing: false,
            budget,
            margin,
            measured_costs: None,
            calibrated_costs: None,
            unseen: UnseenBytes::default(),
            rebuild_checks: RebuildChecks::default(),
            checks_due: Vec::new(),
            found_checks: None,
            zero_counts: Vec::new(),
            tally: OffloadTally::default(),
            warnings: Warnings::default(),
            last_report: None,
            reported_following: false,
        }
    }

    /// Replaces the configuration and forgets the plan and profile (tensors
    /// already alive stay tracked).
    pub(crate) fn configure(&mut self, config: SwapConfig) {
        crate::runtime_failure::watch(config.runtime_failure_grace);
        self.recorder = Recorder::new(config.max_recorded_ops, self.start_live);
        self.budget = config.budget_bytes;
        self.margin = FreeMemoryMargin::new(&config);
        self.config = config;
        self.active = None;
        self.on_plan = false;
        self.status = Ok(());
        self.last_profile = LastProfile::None;
        self.failed_for.clear();
        self.tally = OffloadTally::default();
        self.warnings = Warnings::default();
        self.last_report = None;
        self.reported_following = false;
        self.step_clock = StepClock::default();
        self.refine_from = None;
        self.calibrate_after_trial = false;
        self.plan_trial = PlanTrial::Idle;
        self.calibrated_costs = None;
        self.unseen = UnseenBytes::default();
        self.rebuild_checks = RebuildChecks::default();
        self.checks_due.clear();
        self.found_checks = None;
        // The device is known already: the policy is chosen for it now.
        if self.probe.is_some() {
            self.choose_policy();
        }
        self.apply_allocator();
    }

    pub(crate) fn config(&self) -> &SwapConfig {
        &self.config
    }

    /// What the transfer engine may do for this thread's tensors.
    pub(crate) fn transfer_options(&self) -> TransferOptions {
        TransferOptions::of(&self.config)
    }

    pub(crate) fn tracker(&self) -> Arc<Tracker> {
        self.tracker.clone()
    }

    pub(crate) fn status(&self) -> Result<(), SwapError> {
        self.status.clone()
    }

    pub(crate) fn plan(&self) -> Option<Arc<Plan>> {
        self.active.as_ref().map(|a| a.plan.clone())
    }

    pub(crate) fn plan_profile(&self) -> Option<Arc<Profile>> {
        self.active.as_ref()?;
        self.plan_profile.clone()
    }

    pub(crate) fn last_profile(&mut self) -> Option<Arc<Profile>> {
        self.last_profile.get()
    }

    pub(crate) fn iteration(&self) -> u64 {
        self.iteration
    }

    pub(crate) fn warnings(&self) -> Vec<SwapWarning> {
        self.warnings.all()
    }

    pub(crate) fn last_report(&self) -> Option<IterationReport> {
        self.last_report.clone()
    }

    /// An offload of the plan's that the transfer layer refused.
    pub(crate) fn transfer_refused(&mut self, err: &TransferError) {
        // The pool's refusals are counted where the pool refuses.
        if !matches!(err, TransferError::Pool(_)) {
            self.tally.refused += 1;
            self.tally
                .refused_why
                .get_or_insert_with(|| err.to_string());
        }
    }

    /// Whether the device-memory probe still has to be installed.
    pub(crate) fn wants_probe(&self) -> bool {
        self.probe.is_none()
    }

    pub(crate) fn install_probe(&mut self, probe: Box<dyn DeviceMemory>) {
        self.probe = Some(probe);
        self.choose_policy();
        self.cap_pool();
        self.apply_allocator();
        // The first op has run: its output counts as in use, which leaves
        // the budget a little smaller than at the iteration's start.
        self.budget_from_free_memory();
    }

    /// Caps the driver's memory pool at a size given
    /// ([`PoolCap::AtMost`]); under [`PoolCap::HalfFree`], notes the free
    /// memory the cap would be half of (see [`Self::cap_pool_when_pressed`]).
    fn cap_pool(&mut self) {
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
    /// 14 to 71 steps). Called as an iteration begins; once per process.
    fn cap_pool_when_pressed(&mut self) {
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
        if least >= PRESSED_MARGIN_TENSORS * self.largest_tensor {
            return;
        }
        let cap = free / 2;
        let unused = probe.allocator_unused().unwrap_or(0);
        crate::notice::say(|| {
            format!(
                "in iteration {} the driver had as little as {} free outside its memory pool (the largest tensor: {}; the pool holds {} unused): the pool now holds at most {} (half the device's free memory as training began), and larger needs are allocations of their own, given back whole, so that freed memory in pieces cannot leave the next buffer without room (BURN_SWAP_POOL_CAP=off: never capped; a size: capped from the start)",
                self.iteration.saturating_sub(1),
                human_bytes(least),
                human_bytes(self.largest_tensor),
                human_bytes(unused),
                human_bytes(cap)
            )
        });
        probe.cap_allocator(cap);
        self.pool_capped = true;
    }

    /// Puts the policy the configured one chooses for this device in its
    /// place (the default, `auto`): whether a budget is known (given, or
    /// the device's free memory) and the host link's cost (given, or timed
    /// here, which is done only where there is a budget).
    fn choose_policy(&mut self) {
        let has_budget = self.config.budget_bytes.is_some()
            || (self.config.budget_from_free_memory
                && self
                    .probe
                    .as_ref()
                    .is_some_and(|p| p.free_for_buffers().is_some()));
        let has_link_cost = has_budget && {
            self.measure_link();
            self.base_costs().is_some()
        };
        let Some(chosen) = self
            .config
            .policy
            .chosen_for_device(has_budget, has_link_cost)
        else {
            return;
        };
        let why = match (has_budget, has_link_cost) {
            (true, true) => "a budget, and the host link's cost",
            (true, false) => "a budget, but not the host link's cost (BURN_SWAP_COST_MODEL)",
            (false, _) => {
                "no budget: the device does not say its free memory (BURN_SWAP_BUDGET sets one)"
            }
        };
        crate::notice::say(|| {
            format!(
                "policy auto (the default) chose {} for this device: {why}",
                chosen.name()
            )
        });
        self.config.policy = chosen;
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
    fn op_workspace(&mut self, outputs: u64) -> u64 {
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
                    || self.config.release_after_bytes > 0
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

    /// CubeCL's autotune skipped candidates that failed on the device's
    /// thread.
    pub(crate) fn autotune_candidates_skipped(&mut self, skipped: SkippedCandidates) {
        let SkippedCandidates { count, first } = skipped;
        self.warnings
            .raise(SwapWarning::AutotuneCandidatesSkipped { count, first });
    }

    /// Gives free device buffers back (exact allocations only), and what
    /// the driver's pool holds of the buffers given back before: a buffer
    /// larger than any range freed in it needs memory from the driver.
    fn release_free_memory(&mut self) {
        if let (true, Some(probe)) = (self.config.exact_allocations(), &self.probe) {
            probe.release_free();
            if self.on_plan {
                probe.trim();
            }
            self.freed_since_release = 0;
        }
    }

    /// After an op: gives free device buffers back after every op of an
    /// iteration without a plan (each op's workspace is measured from
    /// there), else once enough was freed to be worth a pass over the
    /// runtime's buffers.
    fn release_freed_memory(&mut self) {
        if !self.on_plan || self.freed_since_release >= self.config.release_after_bytes {
            self.release_free_memory();
        }
    }

    /// Whether the device's real memory use is sampled after op `index`:
    /// densely while profiling; in an iteration that follows the plan, at
    /// its first op (its growth is measured from there), at the op where the
    /// plan's peak is predicted (where the evaluator's peak is checked) and
    /// at phase boundaries only, as each sample is a blocking round trip to
    /// the device's runtime thread.
    fn samples_after(&self, index: u32) -> bool {
        let every = self.config.device_sample_ops;
        let dense = !self.on_plan || self.config.device_sample_planned;
        let predicted_peak = self.on_plan
            && self
                .active
                .as_ref()
                .is_some_and(|a| a.plan.expected_peak_op == index);
        index == 0 || predicted_peak || (dense && every > 0 && index.is_multiple_of(every))
    }

    /// Records the device's real memory use at op `at`.
    fn sample_device(&mut self, at: u32) {
        if let Some(usage) = self.probe.as_ref().and_then(|p| p.usage()) {
            tracing::debug!(
                iteration = self.iteration,
                op = at,
                in_use = usage.in_use,
                held = usage.reserved,
                tracked = self.live_bytes,
                downloads = self.download_bytes,
                driver_used = usage.driver_used,
                pool_unused = self.probe.as_ref().and_then(|p| p.allocator_unused()),
                "device memory"
            );
            self.device_samples.push((at, usage));
        }
    }

    /// Applies slot events reported since the last call, at op `at`.
    fn absorb_events(&mut self, at: u32) {
        let mut events = std::mem::take(&mut self.events);
        self.tracker.drain(&mut events);
        for event in events.drain(..) {
            match event {
                SlotEvent::Released { id } => {
                    self.offloaded.remove(&id);
                    self.set_resident(id, false);
                    if let Some(live) = self.live.remove(&id) {
                        if let Some(key) = live.key {
                            self.by_key.remove(&key);
                        }
                        self.recorder.released(id, at);
                    }
                }
                SlotEvent::Offloaded { id, bytes } => {
                    self.set_resident(id, false);
                    self.recorder.offloaded(id, bytes, at);
                }
                SlotEvent::Loaded { id, bytes } => {
                    self.loaded_in_op += bytes;
                    self.offloaded.remove(&id);
                    self.set_resident(id, true);
                    if let Some(live) = self.live.get_mut(&id) {
                        live.last_use = at;
                    }
                    self.recorder.loaded(id, bytes, at);
                }
                SlotEvent::Stalled {
                    id,
                    nanos,
                    on_demand,
                } => self.recorder.stalled(id, nanos, on_demand),
                SlotEvent::Dropped { id } => {
                    self.set_resident(id, false);
                    self.recorder.dropped(id, at);
                }
                SlotEvent::Rebuilt { id } | SlotEvent::Restored { id } => {
                    self.set_resident(id, true);
                    if let Some(live) = self.live.get_mut(&id) {
                        live.last_use = at;
                    }
                    if matches!(event, SlotEvent::Rebuilt { .. }) {
                        self.recorder.rebuilt(id, at);
                        self.tally.rebuilt += 1;
                    }
                }
            }
        }
        self.events = events;
    }

    /// Marks a tracked tensor as on the device or not, keeping the byte counts.
    fn set_resident(&mut self, id: TensorId, resident: bool) {
        let Some(live) = self.live.get_mut(&id) else {
            return;
        };
        if live.resident == resident {
            return;
        }
        live.resident = resident;
        if resident {
            self.live_bytes += live.bytes;
        } else {
            self.live_bytes -= live.bytes;
            self.freed_since_release += live.bytes;
        }
    }

    /// Device bytes the iteration added so far (tensors on the device, not
    /// counting downloads still under way).
    fn growth(&self) -> u64 {
        self.live_bytes.saturating_sub(self.start_live)
    }

    /// Whether the budget is being held by moving tensors (a plan or
    /// profiling under the budget), so downloads count against it.
    fn holds_budget(&self) -> bool {
        self.trains
            && self.budget.is_some()
            && self.status.is_ok()
            && self.config.policy.moves_tensors()
    }

    /// This thread made a model's parameters or ran backward: it trains, and
    /// its tensors are managed. A thread that does neither (a data loader)
    /// only hands tensors to the one that trains: nothing of it is moved.
    pub(crate) fn trains_here(&mut self) {
        self.trains = true;
    }

    /// A download has started: until its copy is done the tensor still holds
    /// its device memory, and the budget counts it.
    pub(crate) fn downloading(&mut self, bytes: u64, slot: Weak<dyn ManagedSlot>) {
        if self.holds_budget() {
            self.downloads.push_back((bytes, slot));
            self.download_bytes += bytes;
        }
    }

    /// The downloads the compute thread must wait for, oldest first, so that
    /// the iteration's device bytes (tensors on the device plus downloads
    /// still holding theirs) fit the budget again. Where the link keeps up
    /// with compute this is empty; where it does not, waiting is what keeps
    /// the device under the budget (the alternative is running out of it).
    pub(crate) fn downloads_to_wait_for(&mut self) -> Vec<Arc<dyn ManagedSlot>> {
        while let Some((bytes, slot)) = self.downloads.front() {
            if slot.upgrade().is_some_and(|s| s.download_in_flight()) {
                break;
            }
            self.download_bytes -= bytes;
            self.downloads.pop_front();
        }
        let Some(budget) = self.device_budget() else {
            return Vec::new();
        };
        // Following a plan, the memory really in use counts too: it holds
        // what the plan does not see (workspaces; under fusion, the buffers
        // of ops queued but not yet run, which free later than called).
        let mut real = if self.on_plan {
            self.measure_real_growth()
        } else {
            0
        };
        let mut waits = Vec::new();
        let mut next = 0;
        while (self.growth() + self.download_bytes).max(real) > budget
            && next < self.downloads.len()
        {
            let slot = self.downloads[next].1.upgrade();
            if slot
                .as_ref()
                .is_some_and(|s| s.download_in_flight() && !s.download_waitable())
            {
                // Under fusion its copy starts only once the ops before it
                // ran: the ones after it are waited for instead.
                next += 1;
                continue;
            }
            let (bytes, _) = self.downloads.remove(next).expect("in range");
            self.download_bytes -= bytes;
            real = real.saturating_sub(bytes);
            waits.extend(slot);
        }
        waits
    }

    /// The compute thread waited `nanos` for downloads to stay under the budget.
    pub(crate) fn waited_for_budget(&mut self, nanos: u64) {
        self.recorder.waited_for_budget(nanos);
    }

    /// While an iteration is profiled (no plan to follow) under a budget and
    /// the policy moves tensors, burn-swap keeps the iteration's resident
    /// bytes under the budget by moving the least recently used ones off (as
    /// Capuchin's passive mode does), so that a model that does not fit the
    /// device can be profiled at all.
    pub(crate) fn evicts_while_profiling(&self) -> bool {
        !self.on_plan && self.holds_budget()
    }

    /// The tensors to move off after op `index` so that this iteration's
    /// resident bytes fit the budget again: least recently used first, never
    /// one the op itself used.
    fn choose_evictions(&mut self, index: u32) -> Vec<Arc<dyn ManagedSlot>> {
        let Some(budget) = self.device_budget() else {
            return Vec::new();
        };
        if self.growth() <= budget {
            return Vec::new();
        }
        let min_bytes = self.config.min_swap_bytes.max(1);
        let mut candidates: Vec<(u32, TensorId)> = self
            .live
            .iter()
            .filter(|(_, l)| {
                l.resident
                    && l.key.is_some()
                    && !l.unmovable
                    && l.bytes >= min_bytes
                    && l.last_use < index
                    && l.slot.is_some()
            })
            .map(|(&id, l)| (l.last_use, id))
            .collect();
        candidates.sort_unstable();
        let mut evict = Vec::new();
        for (_, id) in candidates {
            if self.growth() <= budget {
                break;
            }
            let slot = self.live[&id].slot.as_ref().and_then(Weak::upgrade);
            if let Some(slot) = slot {
                // Counted as gone now, so the next op does not pick it again;
                // a refused move puts it back (`eviction_refused`).
                self.set_resident(id, false);
                evict.push(slot);
            }
        }
        evict
    }

    /// The device bytes the iteration may hold, its tensors and downloads
    /// still under way: the budget while it follows a plan. An iteration
    /// without one keeps none but what the current op uses: it is where
    /// kernels are compiled and autotuned at new shapes, and where ops' own
    /// workspaces (buffers they take and give back inside themselves, at
    /// large batches several times an activation's size) are not known yet;
    /// no budget sees them, so the rest of the device is left to them.
    fn device_budget(&self) -> Option<u64> {
        let budget = self.budget?;
        Some(match self.on_plan {
            true => budget.saturating_sub(self.unseen.in_force),
            false => 0,
        })
    }

    /// A tensor chosen for eviction stayed on the device. `for_good`: the
    /// engine will never move it (do not ask again).
    pub(crate) fn eviction_refused(&mut self, id: TensorId, for_good: bool) {
        self.set_resident(id, true);
        if let Some(live) = self.live.get_mut(&id) {
            live.unmovable |= for_good;
        }
    }

    /// An op starts, on a backend that is burn's fusion (`fused`) or not:
    /// its index and the prefetches due before it.
    pub(crate) fn begin_op(&mut self, fused: bool) -> OpStart {
        let index = self.next_op;
        self.next_op += 1;
        self.fused = fused;
        if index == 0 {
            if fused && self.config.sparsity_every > 0 && self.config.policy.uses_sparsity() {
                crate::notice::once("zeros under fusion", || {
                    "under burn's fusion the zeros of saved tensors are counted on the host, from the copies of the tensors that leave the device uncompressed (a counting kernel on the training stream would change which ops fuse): tensors that stay are priced as if they did not compress".to_string()
                });
            }
            self.compare_rebuilds();
            let now = Instant::now();
            self.iteration_started = Some(now);
            self.step_clock.iteration_starts(now);
        }
        if index == 0 && self.config.exact_allocations() {
            // What the last iteration freed has been released by now if the
            // training loop synchronised (read its loss) in between.
            if let Some(probe) = &self.probe {
                probe.trim();
            }
        }
        if index == 0 {
            self.budget_from_free_memory();
        }
        self.absorb_events(index.saturating_sub(1));
        self.reclaim();
        if index == 0 {
            self.cap_pool_when_pressed();
            // The iteration's growth is counted from here: what the
            // optimizer step made since the last backward is not its own.
            self.start_live = self.live_bytes;
            self.recorder.starts_with(self.live_bytes);
            self.allocator_start = self.probe.as_ref().and_then(|p| p.restart_allocator_peak());
        }
        let prefetch = if self.on_plan {
            self.prefetches_due(index)
        } else {
            Vec::new()
        };
        let keeps_recipe = self.on_plan
            && self
                .active
                .as_ref()
                .is_some_and(|a| a.recipe_ops.contains(&index));
        // A policy that prices by op time plans from timed iterations, but
        // not under fusion: there synchronising around each op changes which
        // ops fuse (the gradients would differ) and the times are not the
        // fused kernels'. There the iteration's measured time is shared out
        // over its ops by their work instead (see `end_backward`).
        let timing =
            self.config.timing || (!self.on_plan && !fused && self.config.policy.needs_op_times());
        OpStart {
            index,
            timing,
            prefetch,
            keeps_recipe,
        }
    }

    /// Keeps the reclaimer running while a budget is held with exact
    /// allocations, acting always in an iteration without a plan and below
    /// the plan's margin of free memory in one that follows it.
    fn reclaim(&mut self) {
        if !(self.holds_budget() && self.config.exact_allocations()) {
            self.reclaimer = None;
            return;
        }
        let below = if self.on_plan {
            RECLAIM_MARGIN_TENSORS * self.largest_tensor
        } else {
            u64::MAX
        };
        self.reclaim_below.store(below, Ordering::Relaxed);
        if self.reclaimer.is_none() {
            let below = self.reclaim_below.clone();
            self.reclaimer = self.probe.as_ref().and_then(|p| p.reclaim(below));
        }
    }

    /// The prefetches to start before op `index`: the plan's for this op and
    /// those put off before, needed first first. Where the runtime reports
    /// the memory really in use and it leaves no room under the budget, a
    /// prefetch waits for a later op, until the op before its first use.
    fn prefetches_due(&mut self, index: u32) -> Vec<Arc<dyn ManagedSlot>> {
        let mut due = std::mem::take(&mut self.deferred);
        if let Some(active) = &self.active {
            for key in active.prefetch_at.get(&index).into_iter().flatten() {
                let slot = self.by_key.get(key).and_then(|id| self.offloaded.get(id));
                if let (Some(slot), Some(&(needed, bytes))) = (slot, active.needed.get(key)) {
                    due.push((needed, bytes, slot.clone()));
                }
            }
        }
        due.sort_by_key(|&(needed, _, _)| needed);
        let measured = self.real_growth > 0;
        let mut room = self.device_budget().filter(|_| measured).map(|budget| {
            budget.saturating_sub(self.real_growth.max(self.growth() + self.download_bytes))
        });
        let mut prefetch = Vec::with_capacity(due.len());
        for (needed, bytes, weak) in due {
            let Some(slot) = weak.upgrade() else {
                continue;
            };
            match &mut room {
                Some(room) if bytes > *room && index + 1 < needed => {
                    self.deferred.push((needed, bytes, weak));
                }
                Some(room) => {
                    *room = room.saturating_sub(bytes);
                    prefetch.push(slot);
                }
                None => prefetch.push(slot),
            }
        }
        prefetch
    }

    /// The device memory the iteration really added so far, as the driver
    /// reports the device's used memory (0 where it does not): what the plan
    /// cannot see counts too (an op's workspace; under fusion, buffers of
    /// ops queued but not yet run, which are freed later than called; the
    /// allocator's pool keeping freed buffers in pieces). One driver call,
    /// no round trip to the runtime's thread.
    ///
    /// The driver is read at most every [`DRIVER_READ_INTERVAL`]; in
    /// between, the last reading moves with the bytes the iteration's
    /// tensors and downloads gained or lost since.
    fn measure_real_growth(&mut self) -> u64 {
        if self.probe.is_none() {
            return 0;
        }
        let tracked = self.growth() + self.download_bytes;
        if let Some((at, tracked_then)) = self.last_driver_read {
            if at.elapsed() < self.driver_read_interval {
                self.real_growth = (self.real_growth + tracked).saturating_sub(tracked_then);
                self.last_driver_read = Some((at, tracked));
                return self.real_growth;
            }
        }
        let started = Instant::now();
        let real = self.read_real_growth();
        self.driver_reads.0 += 1;
        self.driver_reads.1 += started.elapsed();
        self.last_driver_read = Some((started, tracked));
        real
    }

    fn read_real_growth(&mut self) -> u64 {
        let Some(probe) = self.probe.as_ref() else {
            return 0;
        };
        // What the driver's pool holds unused is room for the next buffers.
        let used = || {
            probe
                .free_for_buffers()
                .map(|(free, total)| total.saturating_sub(free))
        };
        let Some(mut now) = used() else {
            return 0;
        };
        self.driver_floor = self.driver_floor.min(now);
        // Past the budget, the pool gives back what it holds unused before
        // anything waits.
        if now - self.driver_floor > self.budget.unwrap_or(u64::MAX) {
            probe.trim();
            now = used().unwrap_or(now);
            self.driver_floor = self.driver_floor.min(now);
        }
        self.real_growth = now - self.driver_floor;
        self.real_growth
    }

    /// Registers a tensor an op produced.
    fn produced(
        &mut self,
        id: TensorId,
        key: TensorKey,
        bytes: u64,
        slot: Option<Weak<dyn ManagedSlot>>,
    ) {
        self.live.insert(
            id,
            Live {
                bytes,
                resident: true,
                key: Some(key),
                last_use: key.op,
                slot,
                unmovable: false,
            },
        );
        self.by_key.insert(key, id);
        self.live_bytes += bytes;
    }

    /// The slots of [`OpEnd::remember`], for the later op whose equal
    /// output they stand in for.
    pub(crate) fn remember_stand_ins(
        &mut self,
        slots: impl IntoIterator<Item = (TensorId, Weak<dyn Any + Send + Sync>)>,
    ) {
        self.stand_in_slots.extend(slots);
    }

    /// A tensor another thread made is used here (a batch from a data
    /// loader): it is counted on this thread's device while it lives, never
    /// moved (its key is another thread's op).
    pub(crate) fn adopt(&mut self, id: TensorId, bytes: u64, resident: bool) {
        self.count_unplanned(id, bytes, resident);
    }

    /// Counts a tensor no plan moves on the device while it lives.
    fn count_unplanned(&mut self, id: TensorId, bytes: u64, resident: bool) {
        let last_use = self.next_op.saturating_sub(1);
        let live = Live {
            bytes,
            resident,
            key: None,
            last_use,
            slot: None,
            unmovable: true,
        };
        self.live.insert(id, live);
        if resident {
            self.live_bytes += bytes;
        }
    }

    /// An op called on the inner backend directly, outside any op of
    /// `SwapAutodiff` (the optimizer step, a validation pass on
    /// `model.valid()`, a metric): not part of the training iteration, so it
    /// is neither numbered nor recorded, and its outputs are never moved.
    /// They are counted on the device while they live.
    pub(crate) fn outside_op(&mut self, outputs: &[(TensorId, u64)]) {
        for &(id, bytes) in outputs {
            self.count_unplanned(id, bytes, true);
        }
        self.absorb_events(self.next_op.saturating_sub(1));
        self.release_freed_memory();
    }

    /// Whether op `index` with `signature` starts the planned iteration over:
    /// in the forward phase, the iteration has strayed from the plan (or
    /// strays here), and the op is the plan's first, one the plan has nowhere
    /// else. The ops before it were a pass under autodiff that ended without
    /// backward (an inference or validation pass on the autodiff model; Burn
    /// frees its graph at the next backward): they are not the iteration's,
    /// and the plan is followed from here.
    fn starts_over(&self, index: u32, signature: u64) -> bool {
        let Some(active) = &self.active else {
            return false;
        };
        index > 0
            && self.phase == Phase::Forward
            && active.restart_signature == Some(signature)
            && (!self.on_plan || active.plan.op_signatures.get(index as usize) != Some(&signature))
    }

    /// Forgets what the iteration recorded so far and makes the current op
    /// its first (see [`Self::starts_over`]). The tensors the dropped ops
    /// made stay counted on the device, outside the plan.
    fn start_over(&mut self) {
        tracing::debug!(
            dropped_ops = self.next_op - 1,
            "a pass without backward ended; the plan is followed from its first op"
        );
        self.stand_in_slots.clear();
        for (_, id) in self.by_key.drain() {
            if let Some(live) = self.live.get_mut(&id) {
                live.key = None;
                live.slot = None;
            }
        }
        self.next_op = 1;
        self.start_live = self.live_bytes;
        self.recorder = Recorder::new(self.config.max_recorded_ops, self.live_bytes);
        self.device_samples.clear();
        self.deferred.clear();
        self.zero_counts.clear();
        self.driver_floor = u64::MAX;
        self.real_growth = 0;
        self.last_driver_read = None;
        self.iteration_started = Some(Instant::now());
        self.on_plan = true;
    }

    /// An op finished: registers its outputs (with their slots, in output
    /// order, when [`Self::evicts_while_profiling`]) and says which tensors
    /// to move off now.
    pub(crate) fn finish_op(
        &mut self,
        mut record: OpRecord,
        started: Option<Instant>,
        slots: Vec<Weak<dyn ManagedSlot>>,
    ) -> OpEnd {
        if self.starts_over(record.index, record.signature) {
            self.start_over();
            record.index = 0;
        }
        let index = record.index;
        if let Some(active) = self.active.as_mut().filter(|_| self.on_plan && self.fused) {
            if active.recipe_ops.contains(&index)
                && !burn_swap_plan::recompute::replays_alike_under_fusion(record.name)
            {
                active.verify_first.insert(index);
            }
        }
        let mut slots = slots.into_iter();
        for info in &record.output_info {
            let key = TensorKey {
                op: index,
                output: info.output,
            };
            self.produced(info.id, key, info.bytes, slots.next());
        }
        self.absorb_events(index);
        let mut end = OpEnd {
            leave: Vec::new(),
            evict: Vec::new(),
            stand_ins: Vec::new(),
            remember: Vec::new(),
            equal_to: Vec::new(),
            holds_budget: false,
            keep_pace: false,
            transfer: self.transfer_options(),
        };
        let evicting = self.evicts_while_profiling();
        if evicting {
            for id in &record.inputs {
                if let Some(live) = self.live.get_mut(id) {
                    live.last_use = index;
                }
            }
        }
        if self.on_plan {
            let active = self.active.as_ref().expect("on_plan implies a plan");
            let expected = active.plan.op_signatures.get(index as usize);
            if expected != Some(&record.signature) {
                tracing::info!(
                    op = index,
                    name = record.name,
                    "op sequence differs from the profiled iteration; plan suspended, re-planning at the end of this iteration"
                );
                self.on_plan = false;
            } else {
                for &id in record.inputs.iter().chain(record.outputs.iter()) {
                    let Some(key) = self.live.get(&id).and_then(|l| l.key) else {
                        continue;
                    };
                    // Only an input made before this ReLU can name it.
                    let stand_in = active.stand_ins.get(&key).filter(|o| o.op == index);
                    if let Some(output) = stand_in {
                        end.stand_ins.push((id, output.output));
                    }
                    if key.op == index {
                        if active.equal_sources.contains(&key) {
                            end.remember.push(id);
                        }
                        // Without the earlier output (the plan was not
                        // followed when it was made) no recipe is set, and
                        // the tensor stays.
                        let earlier = active.earlier_equals.get(&key).and_then(|earlier| {
                            let id = self.by_key.get(earlier)?;
                            self.stand_in_slots.get(id)?.upgrade()
                        });
                        if let Some(earlier) = earlier {
                            end.equal_to.push((id, earlier));
                        }
                    }
                    let Some(&(at, leave)) = active.leave_after.get(&key) else {
                        continue;
                    };
                    if at == index {
                        let leave = match leave {
                            Leave::ForRebuild { .. } => {
                                let signature = active.plan.op_signatures[key.op as usize];
                                let bytes = self.live.get(&id).map_or(0, |l| l.bytes);
                                // A ReLU's output stands in for its input
                                // with other bits (backward reads only their signs).
                                let comparable = !active.stand_ins.contains_key(&key);
                                let verify_first =
                                    comparable && active.verify_first.contains(&key.op);
                                match self.rebuild_checks.on_drop(
                                    id,
                                    key,
                                    signature,
                                    bytes,
                                    self.rebuild_check_bytes(),
                                    comparable,
                                    verify_first,
                                ) {
                                    RebuildAs::Checked => Leave::ForRebuild { check: true },
                                    RebuildAs::Unchecked => Leave::ForRebuild { check: false },
                                    // Not to be rebuilt yet (or ever): swapped
                                    // meanwhile, so the device holds what the
                                    // plan holds; fetched when backward reads it.
                                    RebuildAs::Kept => Leave::ToHost(None),
                                }
                            }
                            to_host => to_host,
                        };
                        end.leave.push((id, leave));
                        if let Leave::ToHost(_) = leave {
                            self.tally.asked += 1;
                        }
                    }
                }
            }
        }
        if self.counts_zeros() {
            let offloaded = end
                .leave
                .iter()
                .filter(|(_, l)| matches!(l, Leave::ToHost(_)));
            for &(id, _) in offloaded {
                let slot = self.live.get(&id).and_then(|l| l.slot.as_ref()?.upgrade());
                if let Some(slot) = slot {
                    self.count_zeros_of(slot.as_ref());
                }
            }
        }
        if self.samples_after(index) {
            self.sample_device(index);
        }
        if evicting {
            end.evict = self.choose_evictions(index);
            if self.counts_zeros() {
                for slot in &end.evict {
                    self.count_zeros_of(slot.as_ref());
                }
            }
        }
        // Its rebuild differed once: later plans keep or swap its outputs.
        if record.replayable && self.rebuild_checks.differs(record.signature) {
            record.replayable = false;
        }
        let outputs = record.output_info.iter().map(|o| o.bytes).sum();
        let workspace_bytes = self.op_workspace(outputs);
        // The buffers ops take and give back inside themselves (workspaces,
        // autotune's) are never seen as tensors, and a free buffer kept for
        // its size is memory the next op of another size cannot have.
        self.release_freed_memory();
        end.holds_budget = self.holds_budget();
        end.keep_pace = end.holds_budget && !self.on_plan;
        let duration = started.map(|s| s.elapsed().as_nanos() as u64);
        self.recorder.op(
            record,
            self.phase,
            duration,
            self.live_bytes,
            workspace_bytes,
        );
        end
    }

    /// An offloaded slot that a later prefetch may bring back.
    pub(crate) fn offloaded(&mut self, id: TensorId, bytes: u64, slot: Weak<dyn ManagedSlot>) {
        self.tally.moved += 1;
        self.downloading(bytes, slot.clone());
        self.offloaded.insert(id, slot);
    }

    /// This iteration counts the zeros of its saved tensors: the policy
    /// reads them and the iteration has no plan (its profile may make one)
    /// or is one of every `sparsity_every`. Under burn's fusion only the
    /// tensors that leave the device are counted, on the host.
    pub(crate) fn counts_zeros(&self) -> bool {
        let every = self.config.sparsity_every;
        every > 0
            && self.config.policy.uses_sparsity()
            && (!self.on_plan || self.zeros_missing || self.iteration.is_multiple_of(every))
    }

    /// Queues the zero count of `slot` (once per tensor and iteration).
    fn count_zeros_of(&mut self, slot: &dyn ManagedSlot) {
        let id = slot.id();
        if self.zero_counts.iter().any(|(counted, ..)| *counted == id) {
            return;
        }
        if let Some(pending) = slot.count_zeros() {
            // The key now: the tensor is gone when the count is read.
            let key = self.live.get(&id).and_then(|l| l.key);
            self.zero_counts.push((id, key, pending));
        }
    }

    pub(crate) fn begin_backward(&mut self) {
        self.trains = true;
        self.absorb_events(self.next_op.saturating_sub(1));
        // Forward's end is where the iteration peaks.
        self.release_free_memory();
        if self.counts_zeros() {
            // What forward made and backward will read: the saved tensors
            // still on the device (those moved off were counted as they left).
            let min_bytes = self.config.min_swap_bytes.max(1);
            let slots: Vec<Arc<dyn ManagedSlot>> = self
                .live
                .values()
                .filter(|l| l.resident && l.key.is_some() && l.bytes >= min_bytes)
                .filter_map(|l| l.slot.as_ref()?.upgrade())
                .collect();
            for slot in slots {
                self.count_zeros_of(slot.as_ref());
            }
        }
        self.recorder.backward_starts(self.next_op);
        self.sample_device(self.next_op);
        self.phase = Phase::Backward;
    }

    /// The iteration boundary: finalise the profile, re-plan if the graph
    /// changed, and start numbering again. Returns an error for the caller to
    /// raise when the configuration says a budget failure is fatal.
    pub(crate) fn end_backward(&mut self) -> Result<(), SwapError> {
        let wall = self
            .iteration_started
            .take()
            .map_or(std::time::Duration::ZERO, |t| t.elapsed());
        let end = self.next_op;
        self.absorb_events(end.saturating_sub(1));
        self.checks_due.extend(self.tracker.take_checks());
        // Those of the iteration before, compared when this one began.
        let (checked, check_took) = self.found_checks.take().unwrap_or_default();
        let mut counted = Vec::new();
        for (id, key, pending) in std::mem::take(&mut self.zero_counts) {
            if let Some(fraction) = pending.read() {
                self.recorder.sparsity(id, fraction);
                counted.extend(key.map(|key| (key, fraction)));
            }
        }
        // Counted on a plan: for the tensors it lacked, or on schedule.
        let scheduled = self.on_plan && !self.zeros_missing;
        self.zeros_missing &= !self.on_plan;
        // The next iteration's growth is counted from here.
        self.start_live = self.live_bytes;
        let followed_plan = self.on_plan
            && self
                .active
                .as_ref()
                .is_some_and(|a| a.plan.op_signatures.len() as u32 == end);
        let recorder = std::mem::replace(
            &mut self.recorder,
            Recorder::new(self.config.max_recorded_ops, self.start_live),
        );
        self.recorder.reserve(end as usize);
        // What autodiff dropped after the last op.
        self.release_free_memory();
        self.sample_device(end);
        let mut device = DeviceReport::from_samples(std::mem::take(&mut self.device_samples));
        if let Some(device) = &mut device {
            device.allocator_start = self.allocator_start.take();
            device.allocator_peak = device
                .allocator_start
                .and(self.probe.as_ref().and_then(|p| p.allocator_peak()));
        }
        if let (Some(device), Some(budget)) = (&device, self.budget) {
            // The budget is held against the device's own count too: the
            // growth of its buffers over the iteration.
            let grew = device.measured_growth();
            tracing::debug!(
                iteration = self.iteration,
                budget,
                device_growth = grew,
                sampled_in_use_growth = device.peak_growth(),
                "device memory the iteration added"
            );
            // Until re-plans have tried to leave the budget room for it.
            let corrects =
                followed_plan && self.config.budget_counts_unseen && self.unseen.may_correct();
            if grew > budget + budget / 10 && !corrects {
                self.warnings.raise(SwapWarning::DeviceGrewPastBudget {
                    iteration: self.iteration,
                    budget_bytes: budget,
                    grew_bytes: grew,
                });
            }
        }

        let mut tally = std::mem::take(&mut self.tally);
        (tally.pool_refused, tally.pool_why) = crate::transfer::take_pool_refusals();
        for warning in tally.warnings(self.iteration) {
            self.warnings.raise(warning);
        }
        if !checked.differed.is_empty() {
            self.warnings
                .raise(self.rebuilds_differed(&checked.differed));
        }
        if self.rebuild_checks.too_large() > 0 {
            let (count, allowance) = (self.rebuild_checks.too_large(), self.rebuild_check_bytes());
            crate::notice::once("rebuilds too large to check", || {
                format!(
                    "{count} rebuilt tensors are larger than half of the device bytes for rebuild checks ({}, BURN_SWAP_REBUILD_CHECK): they are rebuilt without being compared with the tensors themselves",
                    human_bytes(allowance)
                )
            });
        }
        let mut report = IterationReport {
            iteration: self.iteration,
            wall,
            followed_plan,
            doing: crate::report::doing(followed_plan, self.iteration == 0, self.active.is_some()),
            swapped_out_bytes: recorder.swapped_out_bytes(),
            rebuilt_tensors: tally.rebuilt,
            rebuilds_checked: checked.compared,
            rebuilds_differed: checked.differed.len() as u64,
            rebuild_check_time: check_took,
            driver_reads: std::mem::take(&mut self.driver_reads.0),
            driver_read_time: std::mem::take(&mut self.driver_reads.1),
            planning: None,
            plan: None,
            plans_timed: None,
            calibrated: None,
            trying_plans: false,
            first: self.iteration == 0,
        };
        self.step_clock
            .iteration_ends(followed_plan, recorder.stalls().total_ns());
        let mut result = Ok(());
        let refine = match (followed_plan, self.step_clock.measured) {
            (true, Some(measured)) => self.refine_from.take().map(|p| (p, measured)),
            _ => None,
        };
        let unseen = match (&device, &self.active, self.budget) {
            (Some(device), Some(active), Some(budget))
                if followed_plan && self.config.budget_counts_unseen =>
            {
                device
                    .allocator_growth()
                    .and_then(|grew| self.unseen.iteration_followed(&active.plan, grew, budget))
            }
            _ => None,
        };
        if let (Some(unseen), None) = (unseen, &refine) {
            if let Some(profile) = self.plan_profile.clone() {
                self.replan_for_unseen(&profile, unseen, &mut report, "");
            }
        }
        if let Some((base, measured)) = refine {
            // The plan was made from op times the profiled iteration could
            // only estimate: plan again with the pace of one that followed
            // it, and the link as fast as its copies really were.
            let (profile, _, link) = self.calibrate_on_plan_in_force(&base, measured);
            let why = format!(
                " (op times from the measured step, {:.1} ms{link})",
                measured.compute_ns as f64 / 1e6
            );
            result = self.replan_leaving(&profile, unseen, &mut report, &why);
        }
        // Not where a plan was made this iteration: the pace is the plan's
        // before it.
        if self.calibrate_after_trial && followed_plan && result.is_ok() && report.plan.is_none() {
            if let (Some(measured), Some(base)) =
                (self.step_clock.measured, self.plan_profile.clone())
            {
                self.calibrate_after_trial = false;
                report.calibrated = self.predict_plan_in_force(&base, measured);
                if let Some(calibrated) = &report.calibrated {
                    // Said at once, as the verdict: the report's line is at `debug`.
                    tracing::info!("burn-swap: {calibrated}");
                }
            }
        }
        if followed_plan && !counted.is_empty() && result.is_ok() {
            if let Some(profile) = self.profile_with_new_zeros(&counted, scheduled) {
                let why = format!(" (zeros counted in iteration {})", self.iteration);
                result = self.replan_reported(&profile, &mut report, &why);
            }
        }
        if (!checked.differed.is_empty() || checked.unverifiable > 0) && result.is_ok() {
            if let Some(profile) = self.profile_without_differing_rebuilds() {
                let why = match checked.differed.len() {
                    0 => format!(
                        " ({} tensors to rebuild cannot be compared with their first run within the bytes for checks: their ops are not rebuilt again)",
                        checked.unverifiable
                    ),
                    n => format!(
                        " ({n} rebuilt tensors differed from their first run: their ops are not rebuilt again)"
                    ),
                };
                result = self.replan_reported(&profile, &mut report, &why);
            }
        }
        // Once the plan was refined from the measured step, it is timed on
        // the device against the same plan without codecs and its rivals'.
        if followed_plan
            && result.is_ok()
            && self.refine_from.is_none()
            && (self.config.policy.checks_codecs_on_device()
                || !self.config.policy.rivals().is_empty())
        {
            self.time_plans(&mut report);
        }
        report.trying_plans = self.plan_trial.trying();
        if followed_plan {
            self.last_profile = LastProfile::Recorded {
                recorder: Box::new(recorder),
                iteration: self.iteration,
                end,
                device,
            };
        } else {
            let mut profile = recorder.finish(self.iteration, end, device);
            let prices_by_time = self.config.policy.needs_op_times();
            if prices_by_time && !profile.is_timed() {
                // A first estimate, from this iteration's own wall time; the
                // plan is made again once an iteration followed it.
                profile.share_compute_time(wall.as_nanos() as u64, false);
            }
            let profile = Arc::new(profile);
            self.refine_from = prices_by_time.then(|| profile.clone());
            self.unseen.profiled(&profile.op_signatures);
            self.last_profile = LastProfile::Built(profile.clone());
            // A plan that failed for this op sequence and budget fails again:
            // the fallback goes on quietly until either changes.
            let failed_before = self.failed_for.contains(&profile.op_signatures);
            if profile.complete && !failed_before {
                self.measure_link_once();
                let unseen = self.unseen_in_profiled(&profile);
                result = self.replan_leaving(&profile, unseen, &mut report, "");
            }
        }
        // The first iterations (profiling, planning, the first to follow
        // the plan) say what they did; the steady state stays quiet.
        if followed_plan && self.reported_following {
            tracing::debug!("burn-swap: {report}");
        } else {
            tracing::info!("burn-swap: {report}");
            self.reported_following |= followed_plan;
        }
        self.last_report = Some(report);
        self.iteration += 1;
        self.next_op = 0;
        self.driver_floor = u64::MAX;
        self.real_growth = 0;
        self.last_driver_read = None;
        self.deferred.clear();
        self.phase = Phase::Forward;
        // Tensors that outlive the iteration (parameters, optimizer state,
        // gradients) are not planned for: they lose their key.
        for live in self.live.values_mut() {
            live.key = None;
            live.slot = None;
        }
        self.by_key.clear();
        self.stand_in_slots.clear();
        self.on_plan = self.active.is_some();
        result
    }

    /// The next step of timing the plan in force against the same plan
    /// without codecs and its rivals' (see [`PlanTrial`]), after an
    /// iteration that followed it.
    fn time_plans(&mut self, report: &mut IterationReport) {
        let (Some(active), Some(profile)) = (
            self.active.as_ref().map(|a| a.plan.clone()),
            self.plan_profile.clone(),
        ) else {
            return;
        };
        if !self.plan_trial.began_for(&active) {
            let started = Instant::now();
            let (others, reserve, unplanned) = self.candidates(&profile, &active);
            self.planning_took(report, started.elapsed());
            for why in &unplanned {
                tracing::info!(rival = %why, "a rival's plan could not be made, so it is not timed");
            }
            if let TrialStep::Restart = self.plan_trial.begin(active, others, reserve) {
                self.plan_trial.not_planned(unplanned);
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

    /// The plans to time against `active`: without its codecs, where the
    /// policy checks them on the device, and its rivals' plans that fit
    /// and that the replay puts within [`RIVAL_WINDOW`] of its step, the
    /// nearest [`RIVALS_TIMED`] first; then, in reserve, the nearest of
    /// the others, up to [`RIVALS_TIMED`] rivals in all (timed only if the
    /// replay missed `active`'s own step as much). Last, the rivals that
    /// could not plan, each as `name: why`.
    fn candidates(
        &self,
        profile: &Profile,
        active: &Plan,
    ) -> (Vec<Candidate>, Vec<Candidate>, Vec<String>) {
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
        let step_ns = |plan: &Plan| plan.predicted.as_ref().map(|p| p.iteration_ns);
        let within = step_ns(active).map_or(f64::INFINITY, |ns| ns * RIVAL_WINDOW);
        let mut unplanned = Vec::new();
        let mut rivals: Vec<(f64, Candidate)> = policy
            .rivals()
            .into_iter()
            .filter_map(|rival| {
                let plan = match rival.plan(profile, &params) {
                    Ok(plan) => plan,
                    Err(err) => {
                        unplanned.push(format!(
                            "{}: {}",
                            rival.name(),
                            why_no_plan(&err, params.unseen_bytes)
                        ));
                        return None;
                    }
                };
                let ns = step_ns(&plan).unwrap_or(f64::INFINITY);
                (!plan.same_actions(active)).then(|| {
                    let way = Way::Rival(rival);
                    let plan = Arc::new(plan);
                    (ns, Candidate { way, plan })
                })
            })
            .collect();
        rivals.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (near, far): (Vec<_>, Vec<_>) = rivals
            .into_iter()
            .take(RIVALS_TIMED)
            .partition(|(ns, _)| *ns <= within);
        others.extend(near.into_iter().map(|(_, c)| c));
        (others, far.into_iter().map(|(_, c)| c).collect(), unplanned)
    }

    /// The plan for `profile` made the way the device timed fastest for
    /// its op sequence (or is timing now), else the policy's own.
    fn plan_with(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
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
    fn replan_reported(
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

    /// The profile the plan in force was made from, with the zero
    /// fractions `counted` in an iteration that followed it, if they say
    /// something new: a tensor without one before, or, in an iteration
    /// counted on schedule (`drift`, every `sparsity_every`), one off by
    /// more than 0.05. What the plan should be made from again; a re-plan
    /// from the measured step still to come gets them too. (Fractions drift
    /// every step early in training: re-planning on each drift would plan
    /// every step.)
    fn profile_with_new_zeros(
        &mut self,
        counted: &[(TensorKey, f32)],
        drift: bool,
    ) -> Option<Profile> {
        let base = self.plan_profile.as_ref()?;
        let by_key: HashMap<TensorKey, f32> = counted.iter().copied().collect();
        let changed = base.tensors.iter().any(|t| {
            by_key.get(&t.key).is_some_and(|&z| match t.zero_fraction {
                None => true,
                Some(old) => drift && (old - z).abs() > 0.05,
            })
        });
        if !changed {
            return None;
        }
        self.plan_profile_amended(|profile| {
            for t in &mut profile.tensors {
                if let Some(&z) = by_key.get(&t.key) {
                    t.zero_fraction = Some(z);
                }
            }
        })
    }

    /// The profile the plan in force was made from, with `amend` made to
    /// it, and to the profile a re-plan from the measured step is still to
    /// use: what a new plan is to be made from.
    fn plan_profile_amended(&mut self, amend: impl Fn(&mut Profile)) -> Option<Profile> {
        let mut profile = (**self.plan_profile.as_ref()?).clone();
        if let Some(refine) = &mut self.refine_from {
            amend(Arc::make_mut(refine));
        }
        amend(&mut profile);
        Some(profile)
    }

    /// Device bytes an iteration may keep aside for rebuild checks: at most
    /// an eighth of the budget, which the plan fills (the checks come on
    /// top of it).
    fn rebuild_check_bytes(&self) -> u64 {
        let asked = self.config.rebuild_check_bytes;
        self.budget.map_or(asked, |budget| asked.min(budget / 8))
    }

    /// Compares the last iteration's checked rebuilds with their tensors,
    /// reading both back. It waits for the next iteration's start: the
    /// training loop has read its loss by then, so nothing it queued is
    /// left for the reads to cut short (a read at the end of backward runs
    /// backward's last ops apart from the optimizer's, which fusion might
    /// have run together).
    fn compare_rebuilds(&mut self) {
        let due = std::mem::take(&mut self.checks_due);
        let started = Instant::now();
        let checked = self.rebuild_checks.finish(due);
        if checked.compared > 0 || checked.unverifiable > 0 {
            let took = started.elapsed();
            self.step_clock.set_aside(took);
            self.found_checks = Some((checked, took));
        }
    }

    /// The warning for rebuilds that did not give their tensors' bits.
    fn rebuilds_differed(&self, differed: &[Differed]) -> SwapWarning {
        let mut ops: Vec<String> = differed
            .iter()
            .map(|d| {
                let name = self
                    .plan_profile
                    .as_ref()
                    .and_then(|p| p.ops.get(d.key.op as usize))
                    .map_or_else(|| "an op".to_string(), |op| op.name.to_string());
                match &d.read_error {
                    None => name,
                    Some(err) => format!("{name} (read failed: {err})"),
                }
            })
            .collect();
        ops.dedup();
        SwapWarning::RebuildDiffered {
            iteration: self.iteration,
            tensors: differed.len() as u64,
            ops: ops.join(", "),
            // Under fusion backward reads the tensor kept aside; the
            // rebuild only goes to the comparison.
            read: !self.fused,
        }
    }

    /// The profile the plan in force was made from, with the ops a rebuild
    /// of which differed marked as not replayable.
    fn profile_without_differing_rebuilds(&mut self) -> Option<Profile> {
        let differing = self.rebuild_checks.differing();
        self.plan_profile_amended(|profile| {
            for (op, signature) in profile.ops.iter_mut().zip(&profile.op_signatures) {
                if differing.contains(signature) {
                    op.replayable = false;
                }
            }
        })
    }

    /// What the policy plans for: the configuration's parameters, the link
    /// as fast as copies were, and room for what the device adds unseen.
    fn plan_params(&self) -> PlanParams {
        let mut params = self.config.plan_params();
        params.budget_bytes = self.budget;
        params.costs = self.calibrated_costs.clone().or_else(|| self.base_costs());
        params.unseen_bytes = self.unseen.in_force;
        params.host_budget_bytes = self.probe.as_ref().and_then(|p| {
            p.pinned_capacity(
                self.config.pinned_pool_bytes,
                self.config.host_ram_reserve_bytes,
            )
        });
        params
    }

    /// The cost model given, else the link timed on this device.
    fn base_costs(&self) -> Option<Arc<CostModel>> {
        self.config
            .cost_model
            .clone()
            .or_else(|| self.measured_costs.clone().flatten())
    }

    /// The evaluator fitted to `measured`, a pace of the plan in force, on
    /// iterations like `base` ([`calibrate`]): the profile with the ops'
    /// times from it, and the link it fitted, kept for the plans to come
    /// (none without a cost model), with its share in words for the report.
    fn calibrate_on_plan_in_force(
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
    fn predict_plan_in_force(&mut self, base: &Profile, measured: MeasuredStep) -> Option<String> {
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
    fn measure_link_once(&mut self) {
        if self.config.policy.moves_tensors() {
            self.measure_link();
        }
    }

    /// Times the host link on the device, unless a cost model was given or
    /// it was timed already.
    fn measure_link(&mut self) {
        if self.config.cost_model.is_some() || self.measured_costs.is_some() {
            return;
        }
        let link = self.probe.as_ref().and_then(|p| p.measure_link());
        if let Some(link) = &link {
            crate::notice::say(|| {
                format!(
                    "no cost model given (BURN_SWAP_COST_MODEL): the host link measured on the device, {:.1} GB/s to the host, {:.1} GB/s back, {:.1} GB/s each way at once; compression is not planned without the codecs' model",
                    link.to_host_bytes_per_s / 1e9,
                    link.to_device_bytes_per_s / 1e9,
                    link.duplex_to_host_bytes_per_s / 1e9
                )
            });
        }
        self.measured_costs = Some(link.map(|link| Arc::new(CostModel { link, codecs: None })));
    }

    /// The budget from the device's free memory as this iteration begins
    /// ([`SwapConfig::budget_from_free_memory`]). Without a plan it follows
    /// the free memory; with one, only less free than it was made for
    /// changes it, and the plan is made again for what there is.
    fn budget_from_free_memory(&mut self) {
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
    }

    /// What a profiled iteration's device added beyond the tensors it kept
    /// (mostly its ops' own buffers), as a first measure of what plans do
    /// not see, where it is more than the plan in force leaves free. Not in
    /// the first iteration, whose kernels were autotuned (the candidates'
    /// buffers count), nor without a budget or a high-water mark.
    fn unseen_in_profiled(&self, profile: &Profile) -> Option<u64> {
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
    fn replan_for_unseen(
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
            let left = budget.saturating_sub(need.saturating_sub(leave)) / 100 * 99;
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
    fn replan_leaving(
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
    fn install_plan(&mut self, profile: &Profile, plan: Plan) {
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
        self.active = Some(ActivePlan::new(plan));
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

    fn replan(&mut self, profile: &Profile) -> Result<(), SwapError> {
        let _span = tracing::info_span!("plan", iteration = profile.iteration).entered();
        let params = self.plan_params();
        let planned = self.plan_with(profile, &params);
        let planned = self.plan_with_narrower_margin(profile, &params, planned);
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
fn wider_margin_loses(wide_ns: Option<f64>, narrow_ns: Option<f64>) -> bool {
    matches!((wide_ns, narrow_ns), (Some(wide), Some(narrow)) if wide > narrow * WIDER_MARGIN_COST)
}

/// The share of the free memory a budget taken from it leaves free
/// ([`SwapConfig::free_memory_margin`]): the first share until a plan under
/// it fails or loses to the least's, the least from then on.
#[derive(Debug)]
struct FreeMemoryMargin {
    share: f64,
    least: f64,
    /// The first plan under the first share was compared with the least's.
    compared: bool,
    /// The free memory the budget was last taken from: set only where the
    /// budget is taken from it.
    free: Option<u64>,
}

impl FreeMemoryMargin {
    fn new(config: &SwapConfig) -> Self {
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
    fn plan_with_narrower_margin(
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

/// How many times what the device adds beyond the plan may make one op
/// sequence's plan again: each plan leaves more of the budget free, and
/// growth that keeps rising past that is not the plan's to bound.
const UNSEEN_CORRECTIONS: u32 = 3;

/// The device bytes iterations that followed a plan added beyond it (the
/// allocator's high-water mark over the plan's own peak), and what the plan
/// in force leaves of the budget free for them, so that the budget bounds
/// what the device holds ([`SwapConfig::budget_counts_unseen`]).
#[derive(Debug, Default)]
struct UnseenBytes {
    /// What the plan in force leaves free.
    in_force: u64,
    /// The op sequence they were measured on.
    ops: u64,
    /// Measured on the last [`PACE_STEPS`] iterations that followed a plan.
    measured: Vec<u64>,
    /// Plans they caused for this op sequence.
    corrections: u32,
    /// No plan left them free: the plan in force stays.
    gave_up: bool,
}

impl UnseenBytes {
    fn may_correct(&self) -> bool {
        !self.gave_up && self.corrections < UNSEEN_CORRECTIONS
    }

    /// The budget grew (a narrower margin): plans may try again to leave
    /// all of it free. GPT-small b4 under a 12 GiB cap, whose plans had
    /// given up on part of it under the first margin's smaller budget, ran
    /// out of memory in iteration 21 after the margin narrowed.
    fn budget_grew(&mut self) {
        self.gave_up = false;
        self.corrections = 0;
    }

    /// Whether a plan leaving `unseen` free is worth making: corrections
    /// are still allowed and it leaves more than the plan in force by over
    /// a twentieth of the budget.
    fn worth(&self, unseen: u64, budget: u64) -> bool {
        self.may_correct() && unseen > self.in_force + budget / 20
    }

    /// An iteration that followed `plan` grew the device's buffers by
    /// `grew`. Returns what the next plan should leave free: the most of
    /// the last [`PACE_STEPS`] (one step can miss a late buffer), as soon as
    /// that is over what the plan in force leaves by more than a twentieth
    /// of the budget (under a tight cap the next step may not fit).
    fn iteration_followed(&mut self, plan: &Plan, grew: u64, budget: u64) -> Option<u64> {
        let seen = plan.expected_peak_bytes.saturating_sub(plan.unseen_bytes);
        if self.measured.len() == PACE_STEPS {
            self.measured.remove(0);
        }
        self.measured.push(grew.saturating_sub(seen));
        let most = self.measured.iter().copied().max()?;
        self.worth(most, budget).then_some(most)
    }

    /// A plan leaving `unseen` free is in force.
    fn planned(&mut self, unseen: u64) {
        self.in_force = unseen;
        self.measured.clear();
        self.corrections += 1;
    }

    /// A plan is made from a profiled iteration of `ops`: what was measured
    /// on another op sequence does not hold for it.
    fn profiled(&mut self, ops: &[u64]) {
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

/// How many iterations that followed the plan, in a row, give the pace a
/// plan is refined from (their median). One step is noisy, and the first
/// ones on a plan still pay for memory the driver maps: GPT-small b4 under
/// a 12 GiB cap on an H100 took 0.50 s for its second step on the plan and
/// 0.35 s from the fourth on, and the plan refined from the 0.50 s step
/// predicted 14.5% more than the steps took.
const PACE_STEPS: usize = 4;

/// How often, at most, an iteration that follows its plan under a budget
/// reads the device's memory from the driver: ResNet-50 b48 on an H200 has
/// about 4,500 ops a step, and 100-170 reads took 2-10 ms of it. The
/// driver's count trails the ops called by tens of ops anyway (under fusion
/// they run later than called), so reading after every op saw little more.
const DRIVER_READ_INTERVAL: Duration = Duration::from_millis(1);

/// Why a rival made no plan, briefly, for the trial's verdict; `unseen`:
/// the bytes of the budget the plans leave for what the device adds.
fn why_no_plan(err: &PlanError, unseen: u64) -> String {
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

/// The rivals' plans timed at most, each twice (in turn and back) over
/// about [`PACE_STEPS`] + 2 steps.
const RIVALS_TIMED: usize = 2;

/// The time between the starts of iterations, which is the device's pace
/// once the training loop waits for it (reads its loss) or the runtime's
/// queue is full: measured without synchronising anything.
#[derive(Debug, Default)]
struct StepClock {
    last_start: Option<Instant>,
    /// Iterations in a row, up to the last, that followed the plan.
    followed_in_a_row: u32,
    /// What the compute thread waited for copies in the last iteration.
    last_stall_ns: u64,
    /// What planning and rebuild checks took at the end of the last
    /// iteration: the training thread's time, not the step's (three
    /// re-plans in a row of GPT-small, 3 s each, once set its pace at 3.3 s
    /// against 0.35 s).
    last_set_aside_ns: u64,
    /// The last [`PACE_STEPS`] iterations that followed the plan, measured.
    /// Not the first to follow a plan: that one also pays for what the plan
    /// needs the first time (the pinned pool grows, the runtime allocates).
    steps: Vec<MeasuredStep>,
    /// Their median, once there are [`PACE_STEPS`] of them.
    measured: Option<MeasuredStep>,
}

impl StepClock {
    /// Measures afresh from the next iteration on (a plan to be timed on
    /// its own came in force).
    fn restart(&mut self) {
        self.followed_in_a_row = 0;
        self.steps.clear();
        self.measured = None;
    }

    fn iteration_starts(&mut self, now: Instant) {
        if let (Some(last), 2..) = (self.last_start, self.followed_in_a_row) {
            let period = now.duration_since(last).as_nanos() as u64;
            if self.steps.len() == PACE_STEPS {
                self.steps.remove(0);
            }
            self.steps.push(MeasuredStep {
                compute_ns: period.saturating_sub(self.last_stall_ns + self.last_set_aside_ns),
                wait_ns: self.last_stall_ns,
            });
            if self.steps.len() == PACE_STEPS {
                // Of an even count, the mean of the middle two: the upper
                // one alone leaned to the steps still settling after a plan
                // came in force (`capuchin`'s plan timed at 312, 299, 292
                // and 291 ms read 299 ms).
                let median = |of: fn(&MeasuredStep) -> u64| {
                    let mut values: Vec<u64> = self.steps.iter().map(of).collect();
                    values.sort_unstable();
                    let mid = values.len() / 2;
                    match values.len() % 2 {
                        0 => (values[mid - 1] + values[mid]) / 2,
                        _ => values[mid],
                    }
                };
                self.measured = Some(MeasuredStep {
                    compute_ns: median(|s| s.compute_ns),
                    wait_ns: median(|s| s.wait_ns),
                });
            }
        }
        self.last_start = Some(now);
    }

    /// Planning or rebuild checks at the end of the iteration that just
    /// ended took `took`.
    fn set_aside(&mut self, took: Duration) {
        self.last_set_aside_ns += took.as_nanos() as u64;
    }

    fn iteration_ends(&mut self, followed_plan: bool, stall_ns: u64) {
        self.last_stall_ns = stall_ns;
        self.last_set_aside_ns = 0;
        match followed_plan {
            true => self.followed_in_a_row += 1,
            false => {
                self.followed_in_a_row = 0;
                self.steps.clear();
                self.measured = None;
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::SwapAll;
    use crate::transfer::TransferError;
    use std::sync::atomic::AtomicBool;

    /// A slot whose download finishes when the test says so.
    struct Downloading {
        id: TensorId,
        in_flight: AtomicBool,
        /// Under fusion a copy cannot be waited for before the ops before
        /// its offload have run.
        waitable: AtomicBool,
    }

    impl ManagedSlot for Downloading {
        fn id(&self) -> TensorId {
            self.id
        }
        fn offload(&self, _: &TransferOptions, _: Option<Codec>) -> Result<u64, TransferError> {
            Ok(0)
        }
        fn prefetch(&self) {}
        fn download_in_flight(&self) -> bool {
            self.in_flight.load(Ordering::Relaxed)
        }
        fn wait_downloaded(&self) {
            self.in_flight.store(false, Ordering::Relaxed);
        }
        fn download_waitable(&self) -> bool {
            self.waitable.load(Ordering::Relaxed)
        }
    }

    fn downloading(id: TensorId) -> Arc<Downloading> {
        Arc::new(Downloading {
            id,
            in_flight: AtomicBool::new(true),
            waitable: AtomicBool::new(true),
        })
    }

    /// A device whose used memory the test sets; counts trims and releases.
    #[derive(Clone, Default)]
    struct Driver {
        used: Arc<AtomicU64>,
        trims: Arc<AtomicU64>,
        releases: Arc<AtomicU64>,
        /// What the driver's pool holds unused.
        pool_unused: Arc<AtomicU64>,
        /// Reclaimers running, and the threshold the last one was given.
        reclaimers: Arc<AtomicU64>,
        reclaim_below: Arc<std::sync::Mutex<Option<Arc<AtomicU64>>>>,
        /// The cap the driver's pool was given, if any.
        pool_cap: Arc<std::sync::Mutex<Option<u64>>>,
        /// The least free memory outside the pool since asked (0: not
        /// sampled).
        least_outside: Arc<AtomicU64>,
        /// The device's memory (0: 1000 bytes).
        total: Arc<AtomicU64>,
    }

    impl DeviceMemory for Driver {
        fn usage(&self) -> Option<DeviceUsage> {
            None
        }
        fn trim(&self) {
            self.trims.fetch_add(1, Ordering::Relaxed);
        }
        fn release_free(&self) {
            self.releases.fetch_add(1, Ordering::Relaxed);
        }
        fn driver_free_total(&self) -> Option<(u64, u64)> {
            let total = match self.total.load(Ordering::Relaxed) {
                0 => 1000,
                total => total,
            };
            Some((total - self.used.load(Ordering::Relaxed), total))
        }
        fn allocator_unused(&self) -> Option<u64> {
            Some(self.pool_unused.load(Ordering::Relaxed))
        }
        fn reclaim(&self, free_below: Arc<AtomicU64>) -> Option<Box<dyn Send>> {
            self.reclaimers.fetch_add(1, Ordering::Relaxed);
            *self.reclaim_below.lock().unwrap() = Some(free_below);
            Some(Box::new(Reclaiming(self.reclaimers.clone())))
        }
        fn cap_allocator(&self, bytes: u64) {
            *self.pool_cap.lock().unwrap() = Some(bytes);
        }
        fn least_free_outside_allocator(&self) -> Option<u64> {
            Some(self.least_outside.swap(0, Ordering::Relaxed)).filter(|&least| least > 0)
        }
    }

    #[test]
    fn a_rival_without_a_plan_is_said_briefly_with_the_room_left_for_the_device() {
        let err = PlanError::BudgetTooSmall {
            budget: 3 << 30,
            need: 4 << 30,
            op: 7,
            iteration: 2,
            policy: "superneurons".into(),
            tried: "its rule".into(),
        };
        assert_eq!(
            why_no_plan(&err, 1 << 30),
            "needs 4.0 GiB against a budget of 3.0 GiB leaving 1.0 GiB for what the device adds"
        );
        assert_eq!(
            why_no_plan(&err, 0),
            "needs 4.0 GiB against a budget of 3.0 GiB"
        );
        let err = PlanError::NoCostModel {
            policy: "home".into(),
            missing: "the host link's cost".into(),
        };
        assert_eq!(
            why_no_plan(&err, 0),
            "policy home needs the host link's cost, measured on this device; none was given"
        );
    }

    #[test]
    fn the_pool_is_capped_at_a_given_size_as_the_probe_is_installed() {
        let cap_under = |config: SwapConfig| {
            let driver = Driver::default();
            let _training = training_on(&driver, config);
            let cap = *driver.pool_cap.lock().unwrap();
            cap
        };
        assert_eq!(cap_under(SwapConfig::default()), None);
        let given = SwapConfig {
            pool_cap: PoolCap::AtMost(1 << 30),
            ..exact_swap_all().build()
        };
        assert_eq!(cap_under(given), Some(1 << 30));
    }

    #[test]
    fn the_pool_is_capped_at_half_the_free_memory_once_a_planned_iteration_pressed_it() {
        // Nothing set: the budget is the device's free memory (1000 bytes).
        let pressed_under = |config: SwapConfig, on_plan: bool, least_outside: u64| {
            let driver = Driver::default();
            let mut executor = training_on(&driver, config);
            executor.largest_tensor = 100;
            executor.on_plan = on_plan;
            // The iteration that begins now, then the one after it.
            for _ in 0..2 {
                driver.least_outside.store(least_outside, Ordering::Relaxed);
                executor.cap_pool_when_pressed();
            }
            let cap = *driver.pool_cap.lock().unwrap();
            cap
        };
        let swapping = || SwapConfig {
            policy: Arc::new(SwapAll),
            ..SwapConfig::default()
        };
        // Less than two of the largest tensor free outside the pool.
        assert_eq!(pressed_under(swapping(), true, 150), Some(500));
        assert_eq!(pressed_under(swapping(), true, 200), None, "room enough");
        assert_eq!(pressed_under(swapping(), false, 150), None, "profiling");
        let budgeted = SwapConfig {
            budget_bytes: Some(800),
            ..swapping()
        };
        assert_eq!(pressed_under(budgeted, true, 150), None, "a budget given");
        let off = SwapConfig {
            pool_cap: PoolCap::Off,
            ..swapping()
        };
        assert_eq!(pressed_under(off, true, 150), None, "off");
    }

    /// Counts down its driver's running reclaimers when dropped.
    struct Reclaiming(Arc<AtomicU64>);

    impl Drop for Reclaiming {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// An executor of a training thread under `config`, on `driver`.
    fn training_on(driver: &Driver, config: SwapConfig) -> Executor {
        training_with(Box::new(driver.clone()), config)
    }

    /// An executor of a training thread under `config`, with `probe`.
    fn training_with(probe: Box<dyn DeviceMemory>, config: SwapConfig) -> Executor {
        let mut executor = Executor::new(config);
        executor.install_probe(probe);
        executor.trains_here();
        executor
    }

    /// A device whose transfer engine pins host memory in a pool: it can
    /// hold what is left of `pool_bytes` above the host reserve, at most
    /// 1000 bytes.
    struct PinnedPool;

    impl DeviceMemory for PinnedPool {
        fn usage(&self) -> Option<DeviceUsage> {
            None
        }
        fn pinned_capacity(&self, pool_bytes: u64, host_reserve_bytes: u64) -> Option<u64> {
            Some(pool_bytes.saturating_sub(host_reserve_bytes).min(1000))
        }
    }

    #[test]
    fn plans_are_held_to_the_host_memory_the_pinned_pool_can_take() {
        let config = SwapConfig::builder()
            .policy(SwapAll)
            .pinned_pool_bytes(900)
            .host_ram_reserve_bytes(100)
            .build();
        let executor = training_with(Box::new(PinnedPool), config.clone());
        assert_eq!(executor.plan_params().host_budget_bytes, Some(800));
        // Without a pool (Flex), nothing bounds it.
        let executor = training_with(Box::new(HighWater::default()), config);
        assert_eq!(executor.plan_params().host_budget_bytes, None);
    }

    /// `SwapAll` with exact allocations.
    fn exact_swap_all() -> crate::config::SwapConfigBuilder {
        SwapConfig::builder()
            .policy(SwapAll)
            .allocator(crate::config::DeviceAllocator::Exact)
    }

    /// An executor of a training thread that follows a plan under a budget
    /// of 100 bytes, on `driver`.
    fn following_a_plan_on(driver: Driver) -> (Executor, Driver) {
        let config = SwapConfig::builder()
            .policy(SwapAll)
            .budget_bytes(100)
            .build();
        let mut executor = training_on(&driver, config);
        executor.on_plan = true;
        executor.driver_read_interval = Duration::ZERO;
        (executor, driver)
    }

    #[test]
    fn the_driver_is_read_at_most_once_an_interval_and_the_reading_moves_with_the_tensors() {
        let (mut executor, driver) = following_a_plan_on(Driver::default());
        executor.driver_read_interval = Duration::from_secs(3600);
        driver.used.store(200, Ordering::Relaxed);
        assert_eq!(executor.measure_real_growth(), 0);
        driver.used.store(260, Ordering::Relaxed);
        executor.produced(1, TensorKey { op: 0, output: 0 }, 40, None);
        // Not read again: the 40 bytes the iteration's tensors gained count.
        assert_eq!(executor.measure_real_growth(), 40);
        executor.produced(2, TensorKey { op: 1, output: 0 }, 10, None);
        assert_eq!(executor.measure_real_growth(), 50);
        assert_eq!(executor.driver_reads.0, 1);
        executor.driver_read_interval = Duration::ZERO;
        assert_eq!(executor.measure_real_growth(), 60);
        assert_eq!(executor.driver_reads.0, 2);
    }

    #[test]
    fn the_pace_is_the_median_of_the_iterations_that_followed_the_plan() {
        let mut clock = StepClock::default();
        let t0 = Instant::now();
        let at = |ms| t0 + std::time::Duration::from_millis(ms);
        clock.iteration_starts(at(0));
        clock.iteration_ends(false, 0); // profiled
        clock.iteration_starts(at(1000));
        // The first to follow the plan, not counted; then iterations of 500,
        // 300, 320 and 310 ms, each waiting 20 ms.
        clock.iteration_ends(true, 0);
        let mut start = 1300;
        for period in [500, 300, 320, 310] {
            clock.iteration_starts(at(start));
            assert_eq!(clock.measured, None);
            clock.iteration_ends(true, 20_000_000);
            start += period;
        }
        clock.iteration_starts(at(start));
        // The median of 480, 280, 300 and 290 ms of compute: the slow one
        // does not set the pace.
        let measured = MeasuredStep {
            compute_ns: 295_000_000,
            wait_ns: 20_000_000,
        };
        assert_eq!(clock.measured, Some(measured));
        clock.iteration_ends(false, 0); // off the plan
        assert_eq!(clock.measured, None);
        assert!(clock.steps.is_empty());
    }

    #[test]
    fn planning_at_the_end_of_an_iteration_is_not_the_steps_pace() {
        let mut clock = StepClock::default();
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        clock.iteration_starts(at(0));
        clock.iteration_ends(true, 0);
        // Steps of 300 ms of compute; two of them re-planned for 3 s at
        // their end.
        let mut start = 300;
        for planning in [0, 3000, 3000, 0, 0] {
            clock.iteration_starts(at(start));
            clock.iteration_ends(true, 0);
            clock.set_aside(Duration::from_millis(planning));
            start += 300 + planning;
        }
        clock.iteration_starts(at(start));
        assert_eq!(
            clock.measured.map(|m| m.compute_ns),
            Some(300_000_000),
            "{:?}",
            clock.steps
        );
    }

    #[test]
    fn an_out_of_memory_report_says_when_the_pool_held_the_buffer_in_pieces() {
        let driver = Driver::default();
        let (executor, driver) = following_a_plan_on(driver);
        driver.pool_unused.store(600, Ordering::Relaxed);
        let report = executor.memory_when_failed(Some(500)).unwrap();
        assert!(
            report.contains("pool 600 B held unused (more than the 500 B buffer, but in pieces"),
            "{report}"
        );
        let report = executor.memory_when_failed(Some(700)).unwrap();
        assert!(
            report.contains("pool 600 B held unused") && !report.contains("pieces"),
            "{report}"
        );
        // Not capped, with the free memory training began with known.
        let (mut executor, driver) = following_a_plan_on(Driver::default());
        driver.pool_unused.store(600, Ordering::Relaxed);
        executor.free_at_start = Some(8 << 30);
        let report = executor.memory_when_failed(Some(500)).unwrap();
        assert!(
            report.contains("BURN_SWAP_POOL_CAP=4.0GiB caps the pool from the start"),
            "{report}"
        );
        assert_eq!(crate::config::parse_bytes("4.0GiB").unwrap(), 4 << 30);
        executor.pool_capped = true;
        let report = executor.memory_when_failed(Some(500)).unwrap();
        assert!(!report.contains("BURN_SWAP_POOL_CAP"), "{report}");
    }

    #[test]
    fn an_out_of_memory_report_says_when_the_buffer_was_an_ops_own() {
        let (mut executor, _) = following_a_plan_on(Driver::default());
        executor.largest_tensor = 400;
        let report = executor.memory_when_failed(Some(900)).unwrap();
        assert!(
            report.contains(
                "the 900 B buffer is larger than any tensor of the iteration (the largest: 400 B)"
            ),
            "{report}"
        );
        let report = executor.memory_when_failed(Some(300)).unwrap();
        assert!(!report.contains("larger than any tensor"), "{report}");
    }

    #[test]
    fn free_memory_is_reclaimed_while_a_budget_is_held_always_when_profiling() {
        let driver = Driver::default();
        let mut executor = training_on(&driver, exact_swap_all().budget_bytes(100).build());
        let running = || driver.reclaimers.load(Ordering::Relaxed);
        let below = || {
            let shared = driver.reclaim_below.lock().unwrap();
            shared.as_ref().map(|b| b.load(Ordering::Relaxed))
        };
        executor.begin_op(false);
        executor.begin_op(false);
        assert_eq!(running(), 1, "one reclaimer");
        assert_eq!(below(), Some(u64::MAX), "always while profiling");
        executor.largest_tensor = 100; // a margin of 300 bytes
        executor.on_plan = true;
        executor.begin_op(false);
        assert_eq!(
            (running(), below()),
            (1, Some(300)),
            "below the margin on a plan"
        );
        // Without a budget nothing is reclaimed.
        executor.configure(exact_swap_all().build());
        executor.begin_op(false);
        assert_eq!(running(), 0);
    }

    #[test]
    fn free_buffers_go_back_once_enough_was_freed() {
        let driver = Driver::default();
        let config = exact_swap_all().release_after_bytes(100).build();
        let mut executor = Executor::new(config);
        executor.install_probe(Box::new(driver.clone()));
        executor.on_plan = true;
        for id in 1..=4 {
            executor.produced(
                id,
                TensorKey {
                    op: id as u32,
                    output: 0,
                },
                40,
                None,
            );
        }
        let releases = || driver.releases.load(Ordering::Relaxed);
        // 40, then 80 bytes freed: kept for reuse; 120: given back.
        for (id, expected) in [(1, 0), (2, 0), (3, 1), (4, 1)] {
            executor.set_resident(id, false);
            executor.release_freed_memory();
            assert_eq!(releases(), expected, "after tensor {id}");
        }
        // Without a plan, after every op.
        executor.on_plan = false;
        executor.release_freed_memory();
        assert_eq!(releases(), 2);
    }

    #[test]
    fn memory_the_plan_cannot_see_is_waited_for_too() {
        let (mut executor, driver) = following_a_plan_on(Driver::default());
        driver.used.store(200, Ordering::Relaxed);
        assert!(executor.downloads_to_wait_for().is_empty());
        // The plan's count (40 + 2 x 20) is under the budget, but the driver
        // sees 120 more than the iteration's least: the downloads that can be
        // waited for are, and the one whose copy has not started is passed over.
        executor.produced(1, TensorKey { op: 0, output: 0 }, 40, None);
        let slots: Vec<Arc<Downloading>> = (10..12).map(downloading).collect();
        slots[0].waitable.store(false, Ordering::Relaxed);
        for slot in &slots {
            executor.downloading(20, Arc::downgrade(slot) as Weak<dyn ManagedSlot>);
        }
        driver.used.store(320, Ordering::Relaxed);
        assert_eq!(ids(&executor.downloads_to_wait_for()), [11]);
        // The pool was asked to give back what it holds unused first.
        assert_eq!(driver.trims.load(Ordering::Relaxed), 1);
        assert_eq!(executor.download_bytes, 20);
    }

    #[test]
    fn a_prefetch_waits_while_the_device_is_over_the_budget() {
        let (mut executor, driver) = following_a_plan_on(Driver::default());
        let key = TensorKey { op: 0, output: 0 };
        let slot = downloading(1);
        executor.produced(
            1,
            key,
            30,
            Some(Arc::downgrade(&slot) as Weak<dyn ManagedSlot>),
        );
        executor
            .offloaded
            .insert(1, Arc::downgrade(&slot) as Weak<dyn ManagedSlot>);
        let decision = crate::policy::Decision {
            key,
            bytes: 30,
            action: Action::Swap,
            offload_after: 0,
            prefetch_at: 2,
            needed_at: 5,
            codec: None,
            stand_in: None,
        };
        let plan = crate::policy::plan_for_tests(vec![decision], Some(100));
        executor.active = Some(ActivePlan::new(Arc::new(plan)));
        // 90 over the iteration's least: no room for 30 more before op 2...
        driver.used.store(10, Ordering::Relaxed);
        executor.downloads_to_wait_for();
        driver.used.store(100, Ordering::Relaxed);
        executor.downloads_to_wait_for();
        assert!(executor.prefetches_due(2).is_empty());
        assert!(executor.prefetches_due(3).is_empty());
        // ...and it goes at the op before its first use all the same.
        assert_eq!(ids(&executor.prefetches_due(4)), [1]);
        // With room, it goes when the plan says.
        executor.deferred.clear();
        driver.used.store(40, Ordering::Relaxed);
        executor.downloads_to_wait_for();
        executor.on_plan = true;
        let plan = executor.active.take().unwrap().plan;
        executor.active = Some(ActivePlan::new(plan));
        assert_eq!(ids(&executor.prefetches_due(2)), [1]);
    }

    #[test]
    fn a_planned_iteration_samples_the_device_where_its_peak_is_predicted() {
        let (mut executor, _) = following_a_plan_on(Driver::default());
        let plan = Plan {
            expected_peak_bytes: 100,
            expected_peak_op: 7,
            ..crate::policy::plan_for_tests(Vec::new(), Some(100))
        };
        executor.active = Some(ActivePlan::new(Arc::new(plan)));
        let sampled: Vec<u32> = (0..10).filter(|&i| executor.samples_after(i)).collect();
        assert_eq!(sampled, [0, 7]);
        // While profiling, after every op.
        executor.on_plan = false;
        assert!((0..10).all(|i| executor.samples_after(i)));
    }

    fn ids(slots: &[Arc<dyn ManagedSlot>]) -> Vec<TensorId> {
        slots.iter().map(|s| s.id()).collect()
    }

    #[test]
    fn downloads_are_waited_for_oldest_first_only_past_the_budget() {
        let config = SwapConfig::builder()
            .policy(SwapAll)
            .budget_bytes(100)
            .build();
        let mut executor = Executor::new(config);
        executor.trains_here();
        // An iteration that follows its plan (one without keeps nothing).
        executor.on_plan = true;
        let key = |op| TensorKey { op, output: 0 };
        // 60 bytes on the device, three downloads of 20 still holding theirs.
        executor.produced(1, key(0), 60, None);
        let slots: Vec<Arc<Downloading>> = (10..13).map(downloading).collect();
        for slot in &slots {
            let weak = Arc::downgrade(slot) as Weak<dyn ManagedSlot>;
            executor.downloading(20, weak);
        }
        // 60 + 60 > 100: the oldest download must finish first, then it fits.
        assert_eq!(ids(&executor.downloads_to_wait_for()), [10]);
        assert_eq!(executor.download_bytes, 40);
        // Under the budget nothing is waited for.
        assert!(executor.downloads_to_wait_for().is_empty());
        // Finished downloads stop counting, oldest first.
        slots[1].in_flight.store(false, Ordering::Relaxed);
        assert!(executor.downloads_to_wait_for().is_empty());
        assert_eq!(executor.download_bytes, 20);
        // A new tensor that takes the device over the budget waits for the
        // rest, the tensors already on the device are not the executor's to move.
        executor.produced(2, key(1), 50, None);
        assert_eq!(ids(&executor.downloads_to_wait_for()), [12]);
        assert_eq!(executor.download_bytes, 0);
        assert!(executor.downloads_to_wait_for().is_empty());
    }

    #[test]
    fn an_iteration_without_a_plan_keeps_only_what_the_op_uses() {
        let config = SwapConfig::builder()
            .policy(SwapAll)
            .budget_bytes(100)
            .min_swap_bytes(1)
            .build();
        let mut executor = Executor::new(config);
        executor.trains_here();
        let slots: Vec<Arc<Downloading>> = (1..3).map(downloading).collect();
        for (op, slot) in slots.iter().enumerate() {
            let weak = Arc::downgrade(slot) as Weak<dyn ManagedSlot>;
            let key = TensorKey {
                op: op as u32,
                output: 0,
            };
            executor.produced(slot.id, key, 40, Some(weak));
        }
        // 80 bytes is under the budget, yet the tensor op 1 did not use goes:
        // the op's own workspace (autotune's buffers, layout copies) is not
        // known yet, so it gets the room.
        assert!(executor.evicts_while_profiling());
        assert_eq!(ids(&executor.choose_evictions(1)), [1]);
        assert!(executor.choose_evictions(1).is_empty());
        // Nor does a download still holding its memory outlive the op.
        executor.downloading(40, Arc::downgrade(&slots[0]) as Weak<dyn ManagedSlot>);
        assert_eq!(ids(&executor.downloads_to_wait_for()), [1]);
    }

    #[test]
    fn a_thread_that_never_trains_moves_nothing() {
        let config = SwapConfig::builder()
            .policy(SwapAll)
            .budget_bytes(10)
            .min_swap_bytes(1)
            .build();
        let mut executor = Executor::new(config);
        let slot = downloading(1);
        let weak = Arc::downgrade(&slot) as Weak<dyn ManagedSlot>;
        executor.produced(1, TensorKey { op: 0, output: 0 }, 40, Some(weak));
        // A data loader's thread: no parameters made, no backward run.
        assert!(!executor.evicts_while_profiling());
        executor.trains_here();
        assert!(executor.evicts_while_profiling());
    }

    #[test]
    fn refused_offloads_are_summed_up_once_per_cause() {
        let mut executor = Executor::new(SwapConfig::builder().build());
        let iteration = |executor: &mut Executor, refusals: u64| {
            executor.tally.asked += 2;
            for _ in 0..2 {
                executor.transfer_refused(&TransferError::Unsupported("not this one".into()));
            }
            // The pool's refusals reach the summary from where the pool refuses.
            for _ in 0..refusals {
                crate::transfer::pool_refused("no room in the pool");
            }
            executor.transfer_refused(&TransferError::Pool("counted elsewhere".into()));
            executor.end_backward().unwrap();
        };
        iteration(&mut executor, 3);
        let warnings = executor.warnings();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(
            warnings[0],
            SwapWarning::SwappingOff {
                iteration: 0,
                asked: 2,
                why: "unsupported tensor for the transfer engine: not this one".into()
            }
        );
        assert_eq!(
            warnings[1],
            SwapWarning::PinnedPoolRefused {
                iteration: 0,
                blocks: 3,
                why: "no room in the pool".into()
            }
        );
        assert!(warnings[1]
            .to_string()
            .contains("raise BURN_SWAP_PINNED_POOL"));
        // Not again the next iterations.
        iteration(&mut executor, 1);
        assert_eq!(executor.warnings(), warnings);
        // An iteration whose offloads partly went is not "swapping off".
        let mut executor = Executor::new(SwapConfig::builder().build());
        executor.tally.asked = 2;
        executor.tally.moved = 1;
        executor.transfer_refused(&TransferError::Unsupported("one".into()));
        executor.end_backward().unwrap();
        assert!(executor
            .warnings()
            .iter()
            .all(|w| !matches!(w, SwapWarning::SwappingOff { .. })));
    }

    /// A device whose allocator keeps a high-water mark: 1000 bytes in
    /// buffers (and in use) when it is restarted, and at its highest since
    /// as many more as the test sets.
    #[derive(Clone, Default)]
    struct HighWater(Arc<AtomicU64>);

    impl HighWater {
        fn at(over_start: u64) -> Self {
            Self(Arc::new(AtomicU64::new(over_start)))
        }
    }

    impl DeviceMemory for HighWater {
        fn usage(&self) -> Option<DeviceUsage> {
            Some(DeviceUsage {
                in_use: 1000,
                reserved: 1000,
                driver_used: None,
            })
        }
        fn restart_allocator_peak(&self) -> Option<u64> {
            Some(1000)
        }
        fn allocator_peak(&self) -> Option<u64> {
            Some(1000 + self.0.load(Ordering::Relaxed))
        }
    }

    #[test]
    fn the_iterations_peak_is_the_allocators_high_water_mark_where_it_keeps_one() {
        let config = SwapConfig::builder().policy(SwapAll).build();
        let mut executor = training_with(Box::new(HighWater::at(600)), config);
        executor.begin_op(false);
        executor.end_backward().unwrap();
        let profile = executor.last_profile().unwrap();
        let device = profile.device.as_ref().unwrap();
        // The samples saw no growth; the mark saw the 600 bytes between them.
        assert_eq!(device.peak_growth(), 0);
        assert_eq!(device.allocator_growth(), Some(600));
        assert_eq!(device.measured_growth(), 600);
    }

    /// An executor of a training thread under `SwapAll` and `budget`, on
    /// `device`.
    fn swap_all_under(budget: u64, device: &HighWater) -> Executor {
        let config = SwapConfig::builder()
            .policy(SwapAll)
            .budget_bytes(budget)
            .build();
        training_with(Box::new(device.clone()), config)
    }

    /// An executor following a plan made from an iteration that saved
    /// nothing (so everything the device adds is unseen), under `budget`.
    fn following_an_empty_plan(budget: u64, device: &HighWater) -> Executor {
        let mut executor = swap_all_under(budget, device);
        let profile = Recorder::new(16, 0).finish(0, 0, None);
        executor.unseen.profiled(&profile.op_signatures);
        executor.replan(&profile).unwrap();
        executor.on_plan = true;
        executor
    }

    /// Ends `n` iterations that followed the plan in force.
    fn follow(executor: &mut Executor, n: usize) {
        for _ in 0..n {
            executor.allocator_start = Some(1000);
            executor.end_backward().unwrap();
        }
    }

    #[test]
    fn plans_leave_the_budgets_room_for_what_the_device_adds_beyond_them() {
        let device = HighWater::default();
        let mut executor = following_an_empty_plan(1000, &device);
        device.0.store(600, Ordering::Relaxed);
        // The first iteration over: planned again, leaving it free.
        follow(&mut executor, 1);
        let plan = executor.plan().unwrap();
        assert_eq!((plan.unseen_bytes, plan.expected_peak_bytes), (600, 600));
        assert!(plan
            .to_string()
            .contains("600 B of the peak is what the device added beyond the plan"));
        assert!(executor
            .last_report()
            .unwrap()
            .plan
            .unwrap()
            .contains("leaving 600 B of the budget for what the device added beyond the plan"));
        // Within a twentieth of the budget of it: no new plan.
        device.0.store(640, Ordering::Relaxed);
        follow(&mut executor, PACE_STEPS);
        assert_eq!(executor.plan().unwrap().unseen_bytes, 600);
        device.0.store(800, Ordering::Relaxed);
        follow(&mut executor, 1);
        assert_eq!(executor.plan().unwrap().unseen_bytes, 800);
        // The most of the last four counts, not the last one.
        device.0.store(700, Ordering::Relaxed);
        follow(&mut executor, PACE_STEPS);
        assert_eq!(executor.plan().unwrap().unseen_bytes, 800);
        assert!(executor
            .warnings()
            .iter()
            .all(|w| matches!(w, SwapWarning::PlanMovesNothing { .. })));
    }

    #[test]
    fn a_profiled_iteration_after_the_first_gives_the_first_measure_of_what_plans_do_not_see() {
        let mut executor = swap_all_under(1000, &HighWater::at(600));
        // The first iteration autotunes: its growth is not taken.
        for unseen in [0, 600] {
            executor.allocator_start = Some(1000);
            executor.end_backward().unwrap();
            assert_eq!(executor.plan().unwrap().unseen_bytes, unseen);
            executor.on_plan = false;
        }
    }

    const GIB: u64 = 1 << 30;

    /// A device of 16 GiB with `used` in use and `unused` in its pool.
    fn device_with(used: u64, unused: u64) -> Driver {
        let driver = Driver::default();
        driver.total.store(16 * GIB, Ordering::Relaxed);
        driver.used.store(used, Ordering::Relaxed);
        driver.pool_unused.store(unused, Ordering::Relaxed);
        driver
    }

    #[test]
    fn without_a_budget_it_is_the_free_memory_less_a_margin_where_the_driver_says_it() {
        // 5 GiB free and 1 GiB unused in the pool: 6 GiB less a half.
        let driver = device_with(11 * GIB, GIB);
        let executor = training_on(&driver, exact_swap_all().build());
        assert_eq!(executor.budget, Some(3 * GIB));
        // Or less the share given.
        let quarter = exact_swap_all().free_memory_margin(0.25).build();
        assert_eq!(
            training_on(&driver, quarter).budget,
            Some(6 * GIB - 6 * GIB / 4)
        );
        // Never less than 512 MiB of margin.
        let small = training_on(&device_with(15 * GIB, 0), exact_swap_all().build());
        assert_eq!(small.budget, Some(GIB - (512 << 20)));
        // A budget given, or none asked for, is left as it is.
        let given = training_on(&driver, exact_swap_all().budget_bytes(GIB).build());
        assert_eq!(given.budget, Some(GIB));
        let off = exact_swap_all().budget_from_free_memory(false).build();
        assert_eq!(training_on(&driver, off).budget, None);
        // Nor is there one where the driver says nothing.
        let unknown = training_with(Box::new(HighWater::at(0)), exact_swap_all().build());
        assert_eq!(unknown.budget, None);
    }

    #[test]
    fn the_default_policy_is_chosen_for_the_device_when_it_is_known() {
        let driver = device_with(11 * GIB, 0);
        let policy = |executor: &Executor| executor.config.policy.name().to_string();
        let costs = CostModel {
            link: crate::policy::LinkModel::symmetric(50e9, 40e9, 5_000.0),
            codecs: None,
        };
        // Free memory and the link's cost: home, under the budget from it.
        let priced = SwapConfig::builder().cost_model(costs).build();
        let home = training_on(&driver, priced.clone());
        assert_eq!(policy(&home), "home");
        assert_eq!(home.budget, Some(5 * GIB - 5 * GIB / 2));
        assert!(home.config.exact_allocations());
        // A budget but no way to price the link (this driver cannot time it).
        assert_eq!(
            policy(&training_on(&driver, SwapConfig::default())),
            "swap-all"
        );
        // No budget: the driver says nothing, or none is asked for.
        let silent = training_with(Box::new(HighWater::at(0)), priced.clone());
        assert_eq!(policy(&silent), "keep-all");
        assert_eq!(silent.budget, None);
        assert!(!silent.config.exact_allocations());
        let none = SwapConfig {
            budget_from_free_memory: false,
            ..priced.clone()
        };
        assert_eq!(policy(&training_on(&driver, none)), "keep-all");
        // A budget in bytes stands for the free memory.
        let given = training_with(
            Box::new(HighWater::at(0)),
            SwapConfig {
                budget_bytes: Some(GIB),
                ..priced
            },
        );
        assert_eq!((policy(&given), given.budget), ("home".into(), Some(GIB)));
        // A policy named is kept.
        assert_eq!(
            policy(&training_on(&driver, exact_swap_all().build())),
            "swap-all"
        );
    }

    #[test]
    fn less_free_memory_than_the_plan_was_made_for_plans_again_before_the_first_op() {
        let driver = device_with(8 * GIB, 0);
        let mut executor = training_on(&driver, exact_swap_all().build());
        let first = 4 * GIB;
        assert_eq!(executor.budget, Some(first));
        let profile = Recorder::new(16, 0).finish(0, 0, None);
        executor.replan(&profile).unwrap();
        executor.on_plan = true;
        assert_eq!(executor.plan().unwrap().budget_bytes, Some(first));
        // More free memory leaves the plan in force as it is.
        driver.used.store(7 * GIB, Ordering::Relaxed);
        executor.begin_op(false);
        assert_eq!(executor.plan().unwrap().budget_bytes, Some(first));
        // The optimizer's state took 2 GiB: planned again for what is left.
        executor.next_op = 0;
        driver.used.store(10 * GIB, Ordering::Relaxed);
        executor.begin_op(false);
        let second = 3 * GIB;
        assert_eq!(executor.budget, Some(second));
        assert_eq!(executor.plan().unwrap().budget_bytes, Some(second));
        assert!(executor.on_plan);
    }

    #[test]
    fn no_plan_for_less_free_memory_is_raised_before_the_iterations_first_op_runs() {
        let driver = device_with(8 * GIB, 0);
        let mut executor = training_on(&driver, exact_swap_all().build());
        let profile = Recorder::new(16, 0).finish(0, 0, None);
        // Plans leave 2 GiB of the budget for what the device adds unseen.
        executor.unseen.in_force = 2 * GIB;
        executor.replan(&profile).unwrap();
        executor.on_plan = true;
        // 15 GiB in use: a budget of 512 MiB, which no plan fits.
        driver.used.store(15 * GIB, Ordering::Relaxed);
        executor.next_op = 0;
        let raised = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            executor.begin_op(false);
        }))
        .unwrap_err();
        let message = raised.downcast_ref::<String>().unwrap();
        assert!(message.contains("no plan keeps"), "{message}");
    }

    /// Two forward ops of `op_ns` each making a 1 MiB tensor, and the
    /// backward op that reads both.
    fn two_saved_tensors(op_ns: u64) -> Profile {
        let mut recorder = Recorder::new(16, 0);
        let op = |index: u32, inputs: Vec<u64>, outputs: Vec<u64>| OpRecord {
            index,
            name: "op",
            signature: index as u64,
            inputs,
            output_info: outputs
                .iter()
                .map(|&id| crate::profiler::OutputInfo {
                    id,
                    output: 0,
                    bytes: 1 << 20,
                    shape: vec![1 << 18],
                    dtype: "F32".into(),
                })
                .collect(),
            outputs,
            replayable: true,
            flops: 0,
            bytes: 1 << 20,
        };
        recorder.op(op(0, vec![], vec![1]), Phase::Forward, None, 1 << 20, 0);
        recorder.op(op(1, vec![1], vec![2]), Phase::Forward, None, 2 << 20, 0);
        recorder.backward_starts(2);
        recorder.op(op(2, vec![1, 2], vec![]), Phase::Backward, None, 0, 0);
        recorder.released(1, 2);
        recorder.released(2, 2);
        let mut profile = recorder.finish(0, 3, None);
        for op in &mut profile.ops {
            op.duration_ns = Some(op_ns);
        }
        profile
    }

    #[test]
    fn the_plan_that_stays_after_the_timing_is_predicted_from_its_own_pace() {
        let costs = CostModel {
            link: crate::policy::LinkModel::symmetric(1e9, 1e9, 0.0),
            codecs: None,
        };
        let config = SwapConfig::builder()
            .policy(SwapAll)
            .budget_bytes(1 << 30)
            .cost_model(costs.clone())
            .build();
        let mut executor = Executor::new(config);
        let profile = two_saved_tensors(1_000_000);
        let mut plan =
            crate::policy::Policy::plan(&crate::policy::KeepAll, &profile, &executor.plan_params())
                .unwrap();
        plan.predicted = Some(replay(
            &profile,
            &plan.decisions,
            &costs,
            CodecTime::Measured,
        ));
        executor.install_plan(&profile, plan);
        // A plan timed on the device at 12 ms a step, where the evaluator
        // fitted to another plan's ops said 3.
        let said = executor
            .predict_plan_in_force(
                &profile,
                MeasuredStep {
                    compute_ns: 12_000_000,
                    wait_ns: 0,
                },
            )
            .unwrap();
        let predicted = executor.plan().unwrap().predicted.unwrap().iteration_ns;
        assert!((predicted - 12e6).abs() < 10.0, "{predicted}");
        assert!(
            said.contains(
                "12.0 ms a step measured, 12.0 ms predicted now (3.0 ms, -75.0%, before)"
            ),
            "{said}"
        );
        // Plans to come are made from the same op times.
        let ops: u64 = executor
            .plan_profile()
            .unwrap()
            .ops
            .iter()
            .filter_map(|o| o.duration_ns)
            .sum();
        assert!(ops.abs_diff(12_000_000) < 10, "{ops}");
    }

    #[test]
    fn where_no_plan_fits_the_first_margin_the_budget_leaves_the_least() {
        // 8 GiB free: 4 GiB leaving a half, 6 GiB leaving a quarter.
        let driver = device_with(8 * GIB, 0);
        let mut executor = training_on(&driver, exact_swap_all().build());
        assert_eq!(executor.budget, Some(4 * GIB));
        let profile = Recorder::new(16, 0).finish(0, 0, None);
        // Plans leave 5 GiB for what the device adds unseen: only the
        // quarter's budget holds it.
        executor.unseen.in_force = 5 * GIB;
        executor.replan(&profile).unwrap();
        assert_eq!(executor.budget, Some(6 * GIB));
        assert_eq!(executor.plan().unwrap().budget_bytes, Some(6 * GIB));
        assert_eq!(executor.margin.share, 0.25);
        executor.on_plan = true;
        // The next iteration keeps the quarter: nothing to plan again.
        executor.next_op = 0;
        executor.begin_op(false);
        assert_eq!(executor.budget, Some(6 * GIB));
        // A share given is fixed: no plan fits it.
        let fixed = exact_swap_all().free_memory_margin(0.5).build();
        let mut executor = training_on(&driver, fixed);
        executor.unseen.in_force = 5 * GIB;
        assert!(executor.replan(&profile).is_err());
        assert_eq!(executor.budget, Some(4 * GIB));
        // Nor is a budget in bytes changed.
        let given = exact_swap_all().budget_bytes(4 * GIB).build();
        let mut executor = training_on(&driver, given);
        executor.unseen.in_force = 5 * GIB;
        assert!(executor.replan(&profile).is_err());
    }

    #[test]
    fn a_narrower_margin_lets_plans_leave_what_the_device_adds_again() {
        let driver = device_with(8 * GIB, 0);
        let mut executor = training_on(&driver, exact_swap_all().build());
        let profile = Recorder::new(16, 0).finish(0, 0, None);
        let mut report = IterationReport::default();
        // 5 GiB measured beyond the plan: more than the half's 4 GiB
        // budget, so the plan leaves what it can and gives up on the rest.
        assert!(executor.replan_for_unseen(&profile, 5 * GIB, &mut report, "measured"));
        assert_eq!(executor.budget, Some(4 * GIB));
        assert!(executor.unseen.gave_up);
        // Less free memory: no plan under the half; the quarter's 5.25 GiB
        // budget lets the plans leave more again.
        driver.used.store(9 * GIB, Ordering::Relaxed);
        executor.budget_from_free_memory();
        assert_eq!(executor.budget, Some(7 * GIB - 7 * GIB / 4));
        assert!(!executor.unseen.gave_up);
        assert!(executor.unseen.may_correct());
    }

    #[test]
    fn the_first_margin_gives_way_only_to_a_plan_more_than_a_twentieth_faster() {
        assert!(!wider_margin_loses(Some(104.0), Some(100.0)));
        assert!(wider_margin_loses(Some(106.0), Some(100.0)));
        // Unpriced plans keep the first margin.
        assert!(!wider_margin_loses(None, Some(100.0)));
        assert!(!wider_margin_loses(Some(106.0), None));
    }

    /// The warnings but the empty plan's "moves nothing".
    fn budget_warnings(executor: &Executor) -> Vec<SwapWarning> {
        executor
            .warnings()
            .into_iter()
            .filter(|w| !matches!(w, SwapWarning::PlanMovesNothing { .. }))
            .collect()
    }

    #[test]
    fn where_no_plan_leaves_all_the_device_adds_the_plan_leaves_what_it_can() {
        let device = HighWater::default();
        let mut executor = following_an_empty_plan(1000, &device);
        device.0.store(1200, Ordering::Relaxed);
        follow(&mut executor, 1);
        assert!(executor.status.is_ok());
        // The plan's own bytes are none: all the budget but a hundredth.
        assert_eq!(executor.plan().unwrap().unseen_bytes, 990);
        let warnings = budget_warnings(&executor);
        assert!(
            matches!(
                warnings.as_slice(),
                [SwapWarning::UnseenOverBudget {
                    budget_bytes: 1000,
                    unseen_bytes: 1200,
                    left_bytes: Some(990),
                    ..
                }]
            ),
            "{warnings:?}"
        );
        assert!(warnings[0]
            .to_string()
            .contains("the plan leaves 990 B free instead"));
        // It no longer corrects: growth past the budget is said.
        follow(&mut executor, 1);
        assert!(executor
            .warnings()
            .iter()
            .any(|w| matches!(w, SwapWarning::DeviceGrewPastBudget { .. })));
    }

    #[test]
    fn where_no_plan_leaves_more_than_the_plan_in_force_that_plan_stays() {
        let device = HighWater::default();
        let mut executor = following_an_empty_plan(1000, &device);
        device.0.store(960, Ordering::Relaxed);
        follow(&mut executor, 1);
        assert_eq!(executor.plan().unwrap().unseen_bytes, 960);
        device.0.store(1200, Ordering::Relaxed);
        follow(&mut executor, 1);
        assert_eq!(executor.plan().unwrap().unseen_bytes, 960);
        assert!(matches!(
            budget_warnings(&executor).as_slice(),
            [SwapWarning::UnseenOverBudget {
                left_bytes: None,
                ..
            }]
        ));
    }

    #[test]
    fn unseen_bytes_are_measured_anew_for_another_op_sequence() {
        let mut unseen = UnseenBytes::default();
        unseen.profiled(&[1, 2, 3]);
        unseen.planned(500);
        unseen.profiled(&[1, 2, 3]);
        assert_eq!((unseen.in_force, unseen.corrections), (500, 1));
        unseen.profiled(&[1, 2]);
        assert_eq!((unseen.in_force, unseen.corrections), (0, 0));
        // Corrections stop after a few for one sequence.
        for _ in 0..UNSEEN_CORRECTIONS {
            assert!(unseen.may_correct());
            unseen.planned(unseen.in_force + 100);
        }
        assert!(!unseen.may_correct());
    }

    #[test]
    fn growth_past_the_budget_by_the_drivers_count_is_said_once() {
        let config = SwapConfig::builder()
            .policy(SwapAll)
            .budget_bytes(500)
            .build();
        let mut executor = training_with(Box::new(HighWater::at(600)), config);
        for _ in 0..3 {
            executor.begin_op(false);
            executor.end_backward().unwrap();
        }
        // The iteration saved nothing, which is said too.
        let grew: Vec<SwapWarning> = executor
            .warnings()
            .into_iter()
            .filter(|w| matches!(w, SwapWarning::DeviceGrewPastBudget { .. }))
            .collect();
        assert_eq!(
            grew,
            [SwapWarning::DeviceGrewPastBudget {
                iteration: 0,
                budget_bytes: 500,
                grew_bytes: 600,
            }]
        );
        assert!(grew[0]
            .to_string()
            .contains("grew by 600 B against a budget of 500 B"));
    }

    #[test]
    fn without_a_budget_downloads_are_not_tracked() {
        let mut executor = Executor::new(SwapConfig::builder().policy(SwapAll).build());
        let slot = downloading(7);
        executor.downloading(1 << 30, Arc::downgrade(&slot) as Weak<dyn ManagedSlot>);
        assert_eq!(executor.download_bytes, 0);
        assert!(executor.downloads_to_wait_for().is_empty());
    }
}
