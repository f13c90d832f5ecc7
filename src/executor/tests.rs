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
    reclaim_watch: Arc<std::sync::Mutex<Option<Arc<DriverWatch>>>>,
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
    fn reclaim(&self, watch: Arc<DriverWatch>) -> Option<Box<dyn Send>> {
        self.reclaimers.fetch_add(1, Ordering::Relaxed);
        *self.reclaim_watch.lock().unwrap() = Some(watch);
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
        let said = executor.warnings().into_iter().find_map(|w| match w {
            SwapWarning::PoolCapped {
                free_outside_bytes,
                cap_bytes,
                ..
            } => Some((free_outside_bytes, cap_bytes)),
            _ => None,
        });
        assert_eq!(said, cap.map(|cap| (least_outside, cap)), "the warning");
        cap
    };
    let swapping = || SwapConfig {
        policy: Arc::new(SwapAll),
        ..SwapConfig::default()
    };
    // Less than one and a half of the largest tensor free outside the pool.
    assert_eq!(pressed_under(swapping(), true, 140), Some(500));
    assert_eq!(pressed_under(swapping(), true, 150), None, "room enough");
    assert_eq!(pressed_under(swapping(), false, 140), None, "profiling");
    let budgeted = SwapConfig {
        budget_bytes: Some(800),
        ..swapping()
    };
    assert_eq!(pressed_under(budgeted, true, 140), None, "a budget given");
    let off = SwapConfig {
        pool_cap: PoolCap::Off,
        ..swapping()
    };
    assert_eq!(pressed_under(off, true, 140), None, "off");
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
fn while_the_reclaimer_runs_its_readings_stand_in_for_the_drivers_and_it_trims() {
    let driver = Driver::default();
    let mut executor = training_on(&driver, exact_swap_all().budget_bytes(100).build());
    executor.on_plan = true;
    executor.reclaim();
    let watch = driver
        .reclaim_watch
        .lock()
        .unwrap()
        .clone()
        .expect("a reclaimer");
    let reads_as = |used: u64| watch.read_with(|| Some((1000 - used, 1000)));
    driver.used.store(200, Ordering::Relaxed);
    // The iteration's first reading is the training thread's own.
    assert_eq!(executor.measure_real_growth(), 0);
    executor.produced(1, TensorKey { op: 0, output: 0 }, 40, None);
    assert_eq!(executor.measure_real_growth(), 40);
    // The reclaimer saw 60 bytes more than the floor with 40 tracked; 10
    // more tracked since.
    reads_as(260);
    executor.produced(2, TensorKey { op: 1, output: 0 }, 10, None);
    assert_eq!(executor.measure_real_growth(), 70);
    assert_eq!(executor.driver_reads.0, 1, "the driver read once");
    // A reading over the budget is taken again on the training thread,
    // after a trim.
    driver.used.store(350, Ordering::Relaxed);
    reads_as(400);
    assert_eq!(executor.measure_real_growth(), 150);
    assert_eq!(executor.driver_reads.0, 2);
    assert_eq!(driver.trims.load(Ordering::Relaxed), 1);
    // A release on the plan leaves the trim to the reclaimer.
    executor.release_free_memory();
    assert_eq!(driver.releases.load(Ordering::Relaxed), 1);
    assert_eq!(driver.trims.load(Ordering::Relaxed), 1);
    assert!(
        watch.take_trim() && !watch.take_trim(),
        "one trim asked for"
    );
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
        let shared = driver.reclaim_watch.lock().unwrap();
        shared
            .as_ref()
            .map(|w| w.free_below.load(Ordering::Relaxed))
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
fn by_default_free_buffers_go_back_after_a_quarter_of_the_budget_within_bounds() {
    const MIB: u64 = 1 << 20;
    let mut executor = Executor::new(exact_swap_all().build());
    assert_eq!(executor.release_after_bytes(), 256 * MIB, "no budget");
    for (budget, after) in [
        (512 * MIB, 256 * MIB),
        (2048 * MIB, 512 * MIB),
        (6 << 30, 1 << 30),
    ] {
        executor.budget = Some(budget);
        assert_eq!(executor.release_after_bytes(), after);
    }
    executor.configure(exact_swap_all().release_after_bytes(0).build());
    assert_eq!(executor.release_after_bytes(), 0, "a setting stands");
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

/// Puts in force a plan under a budget of 100 that swaps tensor `key`
/// (`bytes`) after op 0, to be brought back at op 2 for its use at op 5.
fn follow_one_swap(executor: &mut Executor, key: TensorKey, bytes: u64) {
    let decision = crate::policy::Decision {
        key,
        bytes,
        action: Action::Swap,
        offload_after: 0,
        prefetch_at: 2,
        needed_at: 5,
        codec: None,
        stand_in: None,
        transient: false,
    };
    let plan = crate::policy::plan_for_tests(vec![decision], Some(100));
    executor.active = Some(ActivePlan::new(Arc::new(plan)));
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
    follow_one_swap(&mut executor, key, 30);
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
fn what_the_device_adds_unseen_is_counted_once_against_the_budget() {
    // A budget of 100 whose plan leaves 50 for what the device adds unseen:
    // the executor's 30 bytes are held to 50, the driver's count (those 30
    // plus the 50 unseen) to 100. (The swapped tensor's 10 count until it
    // is marked gone.)
    let (mut executor, driver) = following_a_plan_on(Driver::default());
    executor.unseen.in_force = 50;
    let key = TensorKey { op: 0, output: 0 };
    let slot = downloading(1);
    let weak = || Arc::downgrade(&slot) as Weak<dyn ManagedSlot>;
    executor.produced(1, key, 10, Some(weak()));
    executor.offloaded.insert(1, weak());
    executor.produced(2, TensorKey { op: 1, output: 0 }, 20, None);
    follow_one_swap(&mut executor, key, 10);
    driver.used.store(0, Ordering::Relaxed);
    assert!(executor.downloads_to_wait_for().is_empty());
    driver.used.store(80, Ordering::Relaxed);
    // A download of 10 fits both (40 of 50, 80 of 100): nothing waits, and
    // the prefetch of 10 goes when the plan says.
    let download = downloading(3);
    executor.downloading(10, Arc::downgrade(&download) as Weak<dyn ManagedSlot>);
    assert!(executor.downloads_to_wait_for().is_empty());
    assert_eq!(ids(&executor.prefetches_due(2)), [1]);
    // Past the whole budget by the driver's count, the download is waited for.
    driver.used.store(105, Ordering::Relaxed);
    assert_eq!(ids(&executor.downloads_to_wait_for()), [3]);
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
    executor.step_clock.followed_in_a_row = 3;
    driver.used.store(10 * GIB, Ordering::Relaxed);
    executor.begin_op(false);
    let second = 3 * GIB;
    assert_eq!(executor.budget, Some(second));
    assert_eq!(executor.plan().unwrap().budget_bytes, Some(second));
    assert!(executor.on_plan);
    // The pace is measured afresh: this iteration's planning is not a step's.
    assert_eq!(executor.step_clock.followed_in_a_row, 0);
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
        said.contains("12.0 ms a step measured, 12.0 ms predicted now (3.0 ms, -75.0%, before)"),
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
fn where_the_free_memory_holds_the_plan_and_what_the_device_adds_a_plan_leaves_less_of_it() {
    // 8 GiB free: budgets of 4 GiB (a half) and 6 GiB (a quarter).
    let driver = device_with(8 * GIB, 0);
    let profile = Recorder::new(16, 0).finish(0, 0, None);
    // 7 GiB to leave for what the device adds: neither budget leaves it,
    // but the free memory holds it beside the plan: the plan leaves what
    // the budget has, and a warning says so.
    let mut executor = training_on(&driver, exact_swap_all().build());
    executor.unseen.in_force = 7 * GIB;
    executor.replan(&profile).unwrap();
    // The quarter's budget, the narrower, is taken.
    assert_eq!(executor.budget, Some(6 * GIB));
    let left = executor.plan().unwrap().unseen_bytes;
    assert!(left < 6 * GIB && left > 5 * GIB, "{left}");
    assert_eq!(executor.unseen.in_force, left);
    assert!(executor.unseen.gave_up);
    assert!(executor.warnings().iter().any(|w| matches!(
        w,
        SwapWarning::UnseenOverBudget { left_bytes: Some(l), .. } if *l == left
    )));
    // 9 GiB: more than is free, no plan.
    let mut executor = training_on(&driver, exact_swap_all().build());
    executor.unseen.in_force = 9 * GIB;
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

#[test]
fn a_tensor_the_plan_rebuilds_that_stayed_on_the_device_is_not_rebuilt_again() {
    let (mut executor, _) = following_a_plan_on(Driver::default());
    let profile = two_saved_tensors(1_000_000);
    let key = profile.saved_tensors().next().unwrap().key;
    executor.plan_profile = Some(Arc::new(profile));
    executor.produced(7, key, 64 << 20, None);
    executor
        .tracker
        .push(crate::handle::SlotEvent::RebuildRefused {
            id: 7,
            why: "the tensor standing in for it was not on the device",
        });
    executor.absorb_events(3);
    let refused = std::mem::take(&mut executor.rebuilds_refused);
    assert_eq!(refused.len(), 1);
    assert_eq!(
        refused_in_words(&refused),
        "64.0 MiB (1: the tensor standing in for it was not on the device)"
    );
    let amended = executor.profile_without_refused_rebuilds(&refused).unwrap();
    let flagged: Vec<bool> = amended.saved_tensors().map(|t| t.rebuild_refused).collect();
    assert_eq!(flagged, [true, false]);
    // The plans to come are made from it.
    let graph = burn_swap_plan::recompute::RecomputeGraph::of;
    assert!(graph(executor.plan_profile.as_ref().unwrap()).can_recompute(key));
    assert!(!graph(&amended).can_recompute(key));
}

#[test]
fn refused_rebuilds_are_summed_up_by_reason() {
    let key = |op| TensorKey { op, output: 0 };
    let refused = [
        (key(1), 1 << 20, "a"),
        (key(2), 2 << 20, "b"),
        (key(3), 1 << 20, "a"),
    ];
    assert_eq!(refused_in_words(&refused), "4.0 MiB (2: a; 1: b)");
}

#[test]
fn plans_are_made_again_for_rebuilds_that_stayed_at_most_a_few_times() {
    let device = HighWater::default();
    let mut executor = following_an_empty_plan(1000, &device);
    let mut replans = 0;
    for i in 0..REFUSED_REPLANS + 2 {
        let id = 100 + u64::from(i);
        executor.produced(id, TensorKey { op: i, output: 0 }, 10, None);
        executor
            .tracker
            .push(crate::handle::SlotEvent::RebuildRefused {
                id,
                why: "its op kept nothing to run it again with",
            });
        executor.absorb_events(i);
        follow(&mut executor, 1);
        let report = executor.last_report().unwrap();
        if report
            .plan
            .is_some_and(|p| p.contains("stayed on the device"))
        {
            replans += 1;
        }
    }
    assert_eq!(replans, REFUSED_REPLANS);
}

#[test]
fn a_tensor_leaves_after_the_op_the_plan_names_even_one_that_does_not_read_it() {
    // The plan moves tensor 1 (op 0's output, read by op 1) after op 2,
    // which reads only op 1's output: a stand-in kept until the tensor it
    // stands in for is freed is moved so.
    let (mut executor, _) = following_a_plan_on(Driver::default());
    let key = TensorKey { op: 0, output: 0 };
    let mut plan = crate::policy::plan_for_tests(
        vec![crate::policy::Decision {
            key,
            bytes: 10,
            action: Action::Swap,
            offload_after: 2,
            prefetch_at: 3,
            needed_at: 4,
            codec: None,
            stand_in: None,
            transient: false,
        }],
        Some(100),
    );
    plan.op_signatures = (0..5).collect();
    executor.active = Some(ActivePlan::new(Arc::new(plan)));
    let op = |index: u32, inputs: Vec<u64>, output: u64| OpRecord {
        index,
        name: "op",
        signature: index as u64,
        inputs,
        output_info: vec![crate::profiler::OutputInfo {
            id: output,
            output: 0,
            bytes: 10,
            shape: vec![10],
            dtype: "F32".into(),
        }],
        outputs: vec![output],
        replayable: false,
        flops: 0,
        bytes: 10,
    };
    let slot = downloading(1);
    let mut finish = |record: OpRecord, slots: Vec<Weak<dyn ManagedSlot>>| {
        executor.next_op = record.index + 1;
        let end = executor.finish_op(record, None, || slots);
        let here: Vec<TensorId> = end.leave.iter().map(|&(id, _)| id).collect();
        let elsewhere: Vec<TensorId> = end.leave_elsewhere.iter().map(|(s, _)| s.id()).collect();
        (here, elsewhere)
    };
    let weak = Arc::downgrade(&slot) as Weak<dyn ManagedSlot>;
    assert_eq!(finish(op(0, vec![], 1), vec![weak]), (vec![], vec![]));
    assert_eq!(finish(op(1, vec![1], 2), Vec::new()), (vec![], vec![]));
    // Op 2 does not read it: its slot, kept as op 0 made it, goes.
    assert_eq!(finish(op(2, vec![2], 3), Vec::new()), (vec![], vec![1]));
}

/// A device whose link and bitmap codec are timed (counts the timings).
#[derive(Clone, Default)]
struct TimesCodecs {
    bitmap_timings: Arc<AtomicU64>,
}

impl DeviceMemory for TimesCodecs {
    fn usage(&self) -> Option<DeviceUsage> {
        None
    }
    fn driver_free_total(&self) -> Option<(u64, u64)> {
        Some((8 << 30, 16 << 30))
    }
    fn measure_link(&self) -> Option<crate::policy::LinkModel> {
        Some(crate::policy::LinkModel::symmetric(1e9, 1e9, 0.0))
    }
    fn time_bitmap(&self, largest_bytes: u64) -> Option<crate::policy::CodecTimeModel> {
        assert_eq!(largest_bytes, 1 << 30, "an eighth of the free memory");
        self.bitmap_timings.fetch_add(1, Ordering::Relaxed);
        let samples: Vec<_> = [1u64, 4, 16, 64]
            .into_iter()
            .flat_map(|mib| [0.1, 0.5, 0.9].map(move |zeros| (mib << 20, zeros)))
            .map(|(bytes, zeros)| burn_swap_plan::cost::CodecSample {
                codec: Codec::Bitmap,
                dtype: "F32".into(),
                bytes,
                zero_fraction: zeros,
                compress_ns: 8_000.0 + bytes as f64 * 0.0005,
                decompress_ns: 5_000.0 + bytes as f64 * 0.0003,
                compressed_bytes: Codec::Bitmap.packed_bytes("F32", bytes, zeros),
            })
            .collect();
        Some(crate::policy::CodecTimeModel::fit("test-gpu", "8", &samples).unwrap())
    }
}

#[test]
fn the_bitmap_is_timed_once_where_the_link_was_and_tensors_of_two_values_were_counted() {
    let device = TimesCodecs::default();
    let config = SwapConfig::builder()
        .policy(crate::policy::Home::default())
        .budget_bytes(1 << 30)
        .build();
    let mut executor = training_with(Box::new(device.clone()), config);
    executor.measure_link();
    let mut profile = two_saved_tensors(1_000_000);
    // No tensor of two values counted: nothing to time it for.
    executor.time_bitmap_once(&profile);
    assert_eq!(device.bitmap_timings.load(Ordering::Relaxed), 0);
    assert!(executor.base_costs().unwrap().codecs.is_none());
    profile.tensors[0].two_valued = Some(true);
    executor.time_bitmap_once(&profile);
    executor.time_bitmap_once(&profile);
    assert_eq!(device.bitmap_timings.load(Ordering::Relaxed), 1);
    let costs = executor.plan_params().costs.unwrap();
    assert!(costs
        .codec_cost(Codec::Bitmap, "F32", 64 << 20, 0.1)
        .is_some());
    // A cost model given is used as it is.
    let config = SwapConfig::builder()
        .policy(crate::policy::Home::default())
        .budget_bytes(1 << 30)
        .cost_model(CostModel {
            link: crate::policy::LinkModel::symmetric(1e9, 1e9, 0.0),
            codecs: None,
        })
        .build();
    let mut executor = training_with(Box::new(device.clone()), config);
    executor.measure_link();
    executor.time_bitmap_once(&profile);
    assert_eq!(device.bitmap_timings.load(Ordering::Relaxed), 1);
}

#[test]
fn a_compressed_copy_on_its_way_back_counts_its_own_bytes_until_it_is_decompressed() {
    use crate::handle::SlotEvent;
    let (mut executor, _) = following_a_plan_on(Driver::default());
    let profile = two_saved_tensors(1_000_000);
    let key = profile.saved_tensors().next().unwrap().key;
    executor.produced(7, key, 64 << 20, None);
    let start = executor.live_bytes - (64 << 20);
    let at = |executor: &mut Executor, event: SlotEvent| {
        executor.tracker.push(event);
        executor.absorb_events(3);
        executor.live_bytes - start
    };
    let offloaded = SlotEvent::Offloaded {
        id: 7,
        bytes: 64 << 20,
    };
    assert_eq!(at(&mut executor, offloaded), 0);
    // Prefetched: only the compressed copy's buffer is on the device.
    let arriving = SlotEvent::Arriving {
        id: 7,
        bytes: 2 << 20,
    };
    assert_eq!(at(&mut executor, arriving), 2 << 20);
    // Collected at its use: decompressed, the whole tensor.
    let loaded = SlotEvent::Loaded {
        id: 7,
        bytes: 64 << 20,
    };
    assert_eq!(at(&mut executor, loaded), 64 << 20);
    assert!(executor.arriving.is_empty());
    // One dropped on its way back gives its copy's bytes back.
    executor.produced(8, key, 64 << 20, None);
    at(
        &mut executor,
        SlotEvent::Offloaded {
            id: 8,
            bytes: 64 << 20,
        },
    );
    at(
        &mut executor,
        SlotEvent::Arriving {
            id: 8,
            bytes: 1 << 20,
        },
    );
    assert_eq!(at(&mut executor, SlotEvent::Released { id: 8 }), 64 << 20);
}
