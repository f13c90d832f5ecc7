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
//!
//! Here: the per-op path and the iteration's end. The device's memory (the
//! budget from its free memory, the driver's pool, the out-of-memory report)
//! is in `device`; making, remaking and timing plans in `planning`.

use std::any::Any;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use crate::config::{OnBudgetError, PoolCap, SwapConfig};
use crate::decorator::{timed, timed_ns, Part};
use crate::error::SwapError;
use crate::handle::{ManagedSlot, SlotEvent, TensorId, Tracker};
use crate::plan_trial::{Candidate, PlanTrial, TrialStep, Way};
use crate::policy::{self, Action, Codec, CostModel, Plan, PlanError, PlanParams};
use crate::profiler::{human_bytes, write_json, OpRecord, Phase, Profile, Recorder, TensorKey};
use crate::rebuild_check::{Checked, Differed, RebuildAs, RebuildCheck, RebuildChecks};
use crate::report::{plan_line, IterationReport, OffloadTally, SwapWarning, Warnings};
use crate::runtime_failure::SkippedCandidates;
use crate::sparsity::PendingZeros;
use crate::transfer::{
    DeviceMemory, DeviceReport, DeviceUsage, DriverReading, DriverWatch, TransferError,
    TransferOptions,
};
use burn_swap_plan::cost::{calibrate, replay, CodecTime, MeasuredStep};
use burn_swap_plan::memory::Footprint;
use burn_swap_plan::profile::Sparsity;

mod device;
mod planning;

use device::*;
use planning::*;

static NEXT_TENSOR_ID: AtomicU64 = AtomicU64::new(1);

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
    /// Its output is a tensor forward frees that a rebuilt one is made
    /// from (it keeps what it takes too).
    pub makes_transient: bool,
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
    /// Tensors the op does not read that the plan copies to the host now,
    /// compressed with the codec first where one is given (a stand-in kept
    /// until the tensor it stands in for is freed).
    pub leave_elsewhere: Vec<(Arc<dyn ManagedSlot>, Option<Codec>)>,
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
    /// The same by op: op index -> what leaves once it ran, and how.
    leave_at: HashMap<u32, Vec<(TensorKey, Leave)>>,
    /// op index -> keys to prefetch before it runs.
    prefetch_at: BTreeMap<u32, Vec<TensorKey>>,
    /// Swapped tensors: key -> (first backward use, bytes).
    needed: HashMap<TensorKey, (u32, u64)>,
    /// Ops whose output is rebuilt: they keep what they take.
    recipe_ops: std::collections::HashSet<u32>,
    /// Rebuilt tensors whose rebuild must have given their bits once
    /// before backward reads one: under fusion, those made by ops other
    /// than element-wise and layout ones, or through a transient that is
    /// (their kernels alone can sum in another order than in the fused
    /// block of forward). Filled as they run (names are not in the plan).
    verify_first: std::collections::HashSet<TensorKey>,
    /// The ops of the tensors forward frees that rebuilds are made
    /// through (one output each): those are left to be freed as they are,
    /// their recipes kept by the tensors made from them (checked through
    /// the saved tensor made from them).
    transient_ops: std::collections::HashSet<u32>,
    /// Those of this iteration whose rebuild may not have their bits (an
    /// op of theirs, or of a transient they are made from, is not
    /// element-wise or layout): a saved tensor made from one is checked
    /// first.
    unalike_transients: std::collections::HashSet<TensorId>,
    /// Rebuilt ReLU inputs -> the ReLU's output that stands in for them.
    stand_ins: HashMap<TensorKey, TensorKey>,
    /// Rebuilt tensors an earlier op made already -> that op's output,
    /// which stands in for them.
    earlier_equals: HashMap<TensorKey, TensorKey>,
    /// Those earlier outputs.
    equal_sources: std::collections::HashSet<TensorKey>,
    /// See [`Executor::starts_over`].
    restart_signature: Option<u64>,
    /// The device bytes the plan expects the iteration to have added at
    /// each op, where debug events are on (empty otherwise): what the
    /// executor's own count is set beside where a copy waits for room.
    expected: Vec<u64>,
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
    /// Notes, under fusion, which outputs of op `index` (`record`) would
    /// be read only once a rebuild gave their bits, where the plan rebuilds
    /// them: see [`Self::verify_first`].
    fn note_replay_alike(&mut self, index: u32, record: &OpRecord) {
        if index == 0 {
            self.unalike_transients.clear();
        }
        if !self.recipe_ops.contains(&index) {
            return;
        }
        let unalike = !burn_swap_plan::recompute::replays_alike_under_fusion(record.name)
            || record
                .inputs
                .iter()
                .any(|id| self.unalike_transients.contains(id));
        if !unalike {
            return;
        }
        let transient = self.transient_ops.contains(&index);
        for info in &record.output_info {
            match transient {
                true => self.unalike_transients.insert(info.id),
                false => self.verify_first.insert(TensorKey {
                    op: index,
                    output: info.output,
                }),
            };
        }
    }

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
        let mut transient_ops = std::collections::HashSet::default();
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
                if d.transient {
                    recipe_ops.insert(d.key.op);
                    transient_ops.insert(d.key.op);
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
        let mut leave_at: HashMap<u32, Vec<(TensorKey, Leave)>> = HashMap::default();
        for (&key, &(after, leave)) in &leave_after {
            leave_at.entry(after).or_default().push((key, leave));
        }
        // Copies run in the order they are asked: the one needed first goes first.
        for leaving in leave_at.values_mut() {
            leaving.sort_by_key(|(k, _)| {
                needed
                    .get(k)
                    .map_or((u32::MAX, k.op), |&(at, _)| (at, k.op))
            });
        }
        // The plan's first op marks where an iteration starts over after a
        // pass without backward, where no other op of the plan looks like it.
        let first = plan.op_signatures.first().copied();
        let restart_signature =
            first.filter(|&f| plan.op_signatures.iter().filter(|&&s| s == f).count() == 1);
        Self {
            plan,
            leave_after,
            leave_at,
            prefetch_at,
            needed,
            recipe_ops,
            verify_first: Default::default(),
            transient_ops,
            unalike_transients: Default::default(),
            stand_ins,
            earlier_equals,
            equal_sources,
            restart_signature,
            expected: Vec::new(),
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
    /// Compressed copies on their way back, and the bytes each holds on the
    /// device (counted in `live_bytes`) until decompressed at its use.
    arriving: HashMap<TensorId, u64>,
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
    /// driver's free memory is below `driver_watch.free_below` when
    /// following one. While it runs it reads the driver and trims the
    /// driver's pool for this thread.
    reclaimer: Option<Box<dyn Send>>,
    driver_watch: Arc<DriverWatch>,
    /// Whether the driver's memory pool was capped (see [`PoolCap`]).
    pool_capped: bool,
    /// The device's free memory as training began, under
    /// [`PoolCap::HalfFree`].
    free_at_start: Option<u64>,
    /// Whether the iteration under way followed a plan as it began.
    iteration_on_plan: bool,
    /// The largest tensor of the profile the plan was made from: below
    /// `device::RECLAIM_MARGIN_TENSORS` of it free, a planned iteration reclaims
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
    /// The training thread's time in ops when it began.
    thread_time_at_start: crate::decorator::OpThreadTime,
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
    /// Whether the bitmap codec was timed on the device (or found not to
    /// be worth it) for `measured_costs`.
    bitmap_timed: bool,
    /// The cost model with the link as fast as copies really were in an
    /// iteration that followed the plan (set by that re-plan).
    calibrated_costs: Option<Arc<CostModel>>,
    /// What the device adds beyond the plan, as measured, and what the plan
    /// in force leaves free for it.
    unseen: UnseenBytes,
    /// Rebuilt tensors compared with the tensors they stand for.
    rebuild_checks: RebuildChecks,
    /// Tensors of this iteration the plan rebuilds that their slots could
    /// not free, with their bytes and why.
    rebuilds_refused: Vec<(TensorKey, u64, &'static str)>,
    /// Plans made again for such tensors since the last profiled iteration.
    refused_replans: u32,
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
            arriving: HashMap::default(),
            active: None,
            on_plan: false,
            status: Ok(()),
            last_profile: LastProfile::None,
            events: Vec::new(),
            probe: None,
            reclaimer: None,
            driver_watch: Arc::new(DriverWatch::new(u64::MAX)),
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
            thread_time_at_start: Default::default(),
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
            bitmap_timed: false,
            calibrated_costs: None,
            unseen: UnseenBytes::default(),
            rebuild_checks: RebuildChecks::default(),
            rebuilds_refused: Vec::new(),
            refused_replans: 0,
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
        self.set_up_pool_cap();
        self.apply_allocator();
        // The first op has run: its output counts as in use, which leaves
        // the budget a little smaller than at the iteration's start.
        self.budget_from_free_memory();
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

    /// CubeCL's autotune skipped candidates that failed on the device's
    /// thread.
    pub(crate) fn autotune_candidates_skipped(&mut self, skipped: SkippedCandidates) {
        let SkippedCandidates { count, first } = skipped;
        self.warnings
            .raise(SwapWarning::AutotuneCandidatesSkipped { count, first });
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
                    self.arrived(id);
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
                SlotEvent::Arriving { id, bytes } => {
                    self.offloaded.remove(&id);
                    self.loaded_in_op += bytes;
                    self.live_bytes += bytes;
                    self.arriving.insert(id, bytes);
                }
                SlotEvent::Loaded { id, bytes } => {
                    // A compressed copy counted its bytes as it arrived.
                    if !self.arrived(id) {
                        self.loaded_in_op += bytes;
                    }
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
                SlotEvent::RebuildRefused { id, why } => {
                    if let Some(live) = self.live.get(&id) {
                        if let Some(key) = live.key {
                            self.rebuilds_refused.push((key, live.bytes, why));
                        }
                    }
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

    /// A compressed copy on its way back is no longer: its buffer's bytes
    /// leave the count (the tensor's own follow where it is now resident).
    /// Returns whether it was on its way.
    fn arrived(&mut self, id: TensorId) -> bool {
        let held = self.arriving.remove(&id);
        if let Some(held) = held {
            self.live_bytes -= held;
        }
        held.is_some()
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
        let driver_budget = self.driver_budget().unwrap_or(u64::MAX);
        let mut waits = Vec::new();
        let mut next = 0;
        while (self.growth() + self.download_bytes > budget || real > driver_budget)
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
            tracing::debug!(
                op = self.next_op.saturating_sub(1),
                tracked = self.growth() + self.download_bytes,
                downloads = self.download_bytes,
                driver = real,
                budget,
                expected = self.expected_at(self.next_op.saturating_sub(1)),
                "download waited for, for room"
            );
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

    /// Whether the plan in force moves the tensor `key` off the device.
    fn plan_moves(&self, key: &TensorKey) -> bool {
        self.on_plan
            && self
                .active
                .as_ref()
                .is_some_and(|a| a.leave_after.contains_key(key))
    }

    /// Output slots are kept for every tensor while profiling: to evict
    /// them, or count their zeros.
    fn profiles_with_slots(&self) -> bool {
        self.evicts_while_profiling() || self.counts_zeros()
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

    /// The device bytes the plan in force expects the iteration to have
    /// added at op `index` (0 where not known).
    fn expected_at(&self, index: u32) -> u64 {
        self.active
            .as_ref()
            .and_then(|a| a.expected.get(index as usize).copied())
            .unwrap_or(0)
    }

    /// What the driver's count of the iteration's growth is held to: the
    /// whole budget while a plan is followed. That count already holds what
    /// the device adds unseen, which [`Self::device_budget`] leaves out for
    /// the executor's own count: held to that, it would be counted twice,
    /// and every prefetch would wait for the op before its use.
    fn driver_budget(&self) -> Option<u64> {
        self.budget.filter(|_| self.on_plan)
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
            self.thread_time_at_start = crate::decorator::op_thread_time();
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
        let active = self.active.as_ref().filter(|_| self.on_plan);
        let keeps_recipe = active.is_some_and(|a| a.recipe_ops.contains(&index));
        let makes_transient =
            keeps_recipe && active.is_some_and(|a| a.transient_ops.contains(&index));
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
            makes_transient,
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
        let driver_room = self
            .driver_budget()
            .map_or(u64::MAX, |budget| budget.saturating_sub(self.real_growth));
        let mut room = self.device_budget().filter(|_| measured).map(|budget| {
            budget
                .saturating_sub(self.growth() + self.download_bytes)
                .min(driver_room)
        });
        let mut prefetch = Vec::with_capacity(due.len());
        for (needed, bytes, weak) in due {
            let Some(slot) = weak.upgrade() else {
                continue;
            };
            match &mut room {
                Some(room) if bytes > *room && index + 1 < needed => {
                    tracing::debug!(
                        op = index,
                        needed,
                        bytes,
                        room = *room,
                        tracked = self.growth() + self.download_bytes,
                        downloads = self.download_bytes,
                        driver = self.real_growth,
                        expected = self.expected_at(index),
                        "prefetch put off for room"
                    );
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
    /// While the reclaimer runs, its latest reading of the driver stands in
    /// for a read of this thread's own (the driver's calls are slow while
    /// the runtime launches work); else the driver is read at most every
    /// [`DRIVER_READ_INTERVAL`]. In between, the last reading moves with the
    /// bytes the iteration's tensors and downloads gained or lost since. A
    /// reading over the budget is taken again here, after a trim.
    fn measure_real_growth(&mut self) -> u64 {
        if self.probe.is_none() {
            return 0;
        }
        let tracked = self.growth() + self.download_bytes;
        let watched = self.reclaimer.is_some();
        if watched {
            self.driver_watch.note_tracked(tracked);
        }
        if let Some((at, tracked_then)) = self.last_driver_read {
            let newer = (watched.then(|| self.driver_watch.latest()))
                .flatten()
                .filter(|r| r.at > at);
            let fresh_for = match watched {
                true => WATCH_STALE_AFTER.max(self.driver_read_interval),
                false => self.driver_read_interval,
            };
            match newer {
                Some(reading) => {
                    if let Some(real) = self.growth_from(reading, tracked) {
                        return real;
                    }
                }
                None if at.elapsed() < fresh_for => {
                    self.real_growth = (self.real_growth + tracked).saturating_sub(tracked_then);
                    self.last_driver_read = Some((at, tracked));
                    return self.real_growth;
                }
                None => {}
            }
        }
        let started = Instant::now();
        let (real, nanos) = timed_ns(Part::DriverRead, || self.read_real_growth());
        self.driver_reads.0 += 1;
        self.driver_reads.1 += Duration::from_nanos(nanos);
        self.last_driver_read = Some((started, tracked));
        real
    }

    /// The real growth from the reclaimer's `reading`, unless it is over
    /// the budget: then the driver is read here, after a trim.
    fn growth_from(&mut self, reading: DriverReading, tracked: u64) -> Option<u64> {
        let used = reading.used();
        let floor = self.driver_floor.min(used);
        if used - floor > self.budget.unwrap_or(u64::MAX) {
            return None;
        }
        self.driver_floor = floor;
        self.real_growth = (used - floor + tracked).saturating_sub(reading.tracked);
        self.last_driver_read = Some((reading.at, tracked));
        Some(self.real_growth)
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
    /// order, from `slots`, called only where some are kept) and says which
    /// tensors to move off now.
    pub(crate) fn finish_op(
        &mut self,
        mut record: OpRecord,
        started: Option<Instant>,
        slots: impl FnOnce() -> Vec<Weak<dyn ManagedSlot>>,
    ) -> OpEnd {
        if self.starts_over(record.index, record.signature) {
            self.start_over();
            record.index = 0;
        }
        let index = record.index;
        if let Some(active) = self.active.as_mut().filter(|_| self.on_plan && self.fused) {
            active.note_replay_alike(index, &record);
        }
        // The outputs' slots are kept while profiling (to evict them or
        // count their zeros) and, while a plan is followed, for those it
        // moves (after an op that may not read them): only then are they
        // asked for, once the op's place is known.
        let profiling = self.profiles_with_slots();
        let key_of = |output: u16| TensorKey { op: index, output };
        let wanted = profiling
            || record
                .output_info
                .iter()
                .any(|i| self.plan_moves(&key_of(i.output)));
        let mut slots = if wanted { slots() } else { Vec::new() }.into_iter();
        for info in &record.output_info {
            let key = key_of(info.output);
            let slot = slots.next().filter(|_| profiling || self.plan_moves(&key));
            self.produced(info.id, key, info.bytes, slot);
        }
        self.absorb_events(index);
        let mut end = OpEnd {
            leave: Vec::new(),
            leave_elsewhere: Vec::new(),
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
                }
                // By op, not by the op's tensors: a plan may move a tensor
                // after an op that does not read it (a stand-in kept until
                // the tensor it stands in for is freed).
                for &(key, leave) in active.leave_at.get(&index).into_iter().flatten() {
                    let Some(&id) = self.by_key.get(&key) else {
                        continue;
                    };
                    let of_this_op = record.inputs.contains(&id) || record.outputs.contains(&id);
                    let leave = match leave {
                        // A rebuild needs the op's own handle: elsewhere the
                        // tensor is swapped.
                        Leave::ForRebuild { .. } if !of_this_op => Leave::ToHost(None),
                        Leave::ForRebuild { .. } => {
                            let signature = active.plan.op_signatures[key.op as usize];
                            let bytes = self.live.get(&id).map_or(0, |l| l.bytes);
                            // A ReLU's output stands in for its input
                            // with other bits (backward reads only their
                            // signs).
                            let comparable = !active.stand_ins.contains_key(&key);
                            let verify_first = comparable && active.verify_first.contains(&key);
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
                    if let Leave::ToHost(_) = leave {
                        self.tally.asked += 1;
                    }
                    if of_this_op {
                        end.leave.push((id, leave));
                        continue;
                    }
                    // Its slot, kept as it was made.
                    let slot = self.live.get(&id).and_then(|l| l.slot.as_ref()?.upgrade());
                    if let (Some(slot), Leave::ToHost(codec)) = (slot, leave) {
                        end.leave_elsewhere.push((slot, codec));
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
        if tracing::enabled!(target: "burn_swap::executor", tracing::Level::DEBUG) {
            self.describe_resident();
        }
        self.phase = Phase::Backward;
    }

    /// What the executor counts on the device as backward starts, by what
    /// the plan does with each tensor, beside the plan's expected bytes: a
    /// debug event, to find what the device holds that the plan does not.
    fn describe_resident(&self) {
        let Some(active) = &self.active else {
            return;
        };
        let (mut before, mut kept, mut leaving, mut rebuilt) = (0u64, 0u64, 0u64, 0u64);
        let mut late = Vec::new();
        for live in self.live.values().filter(|l| l.resident) {
            match live.key.map(|k| (k, active.leave_after.get(&k))) {
                None => before += live.bytes,
                Some((_, None)) => kept += live.bytes,
                Some((key, Some(&(after, leave)))) => {
                    match leave {
                        Leave::ToHost(_) => leaving += live.bytes,
                        Leave::ForRebuild { .. } => rebuilt += live.bytes,
                    }
                    late.push((live.bytes, key.op, after, matches!(leave, Leave::ToHost(_))));
                }
            }
        }
        late.sort_unstable_by(|a, b| b.cmp(a));
        late.truncate(12);
        tracing::debug!(
            op = self.next_op,
            tracked = self.growth(),
            expected = self.expected_at(self.next_op),
            from_before_the_iteration = before,
            kept_or_not_saved = kept,
            swapped_still_here = leaving,
            rebuilt_still_here = rebuilt,
            largest_still_here = ?late,
            "resident as backward starts"
        );
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
            if let Some(sparsity) = pending.read() {
                self.recorder.sparsity(id, sparsity);
                counted.extend(key.map(|key| (key, sparsity)));
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
            training_thread: crate::decorator::op_thread_time().since(&self.thread_time_at_start),
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
        let refused = std::mem::take(&mut self.rebuilds_refused);
        if followed_plan && !refused.is_empty() && result.is_ok() {
            result = self.replan_without_refused_rebuilds(&refused, &mut report);
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
            self.refused_replans = 0;
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

    /// The profile the plan in force was made from, with the zero
    /// fractions `counted` in an iteration that followed it, if they say
    /// something new: a tensor without one before (or without knowing
    /// whether it holds two values), or, in an iteration counted on
    /// schedule (`drift`, every `sparsity_every`), one off by more than
    /// 0.05 or no longer of two values. What the plan should be made from
    /// again; a re-plan from the measured step still to come gets them too.
    /// (Fractions drift every step early in training: re-planning on each
    /// drift would plan every step.)
    fn profile_with_new_zeros(
        &mut self,
        counted: &[(TensorKey, Sparsity)],
        drift: bool,
    ) -> Option<Profile> {
        let base = self.plan_profile.as_ref()?;
        let by_key: HashMap<TensorKey, Sparsity> = counted.iter().copied().collect();
        let changed = base.tensors.iter().any(|t| {
            by_key.get(&t.key).is_some_and(|s| match t.zero_fraction {
                None => true,
                Some(_) if t.two_valued.is_none() && s.two_valued.is_some() => true,
                Some(old) => {
                    drift
                        && ((old - s.zero_fraction).abs() > 0.05
                            || (t.two_valued == Some(true) && s.two_valued == Some(false)))
                }
            })
        });
        if !changed {
            return None;
        }
        self.plan_profile_amended(|profile| {
            for t in &mut profile.tensors {
                if let Some(s) = by_key.get(&t.key) {
                    t.zero_fraction = Some(s.zero_fraction);
                    t.two_valued = s.two_valued.or(t.two_valued);
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

/// How old the reclaimer's latest reading of the driver may be before the
/// training thread reads the driver itself: the reclaimer reads every 2 ms,
/// unless it waits for a release it queued on the runtime's thread.
const WATCH_STALE_AFTER: Duration = Duration::from_millis(10);

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

#[cfg(test)]
mod tests;
