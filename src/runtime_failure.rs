//! Failures inside the device runtime's own threads, raised on the training
//! thread.
//!
//! CubeCL 0.10 runs each device's work on a thread of its own. When an
//! allocation fails there (the device is out of memory), that task panics
//! and the runtime carries on without the buffer: later kernels use memory
//! that is not there, and training goes on with wrong numbers and no error
//! where the user looks. burn-swap watches for panics raised in CubeCL's
//! code on other threads and fails the training thread's next op with the
//! first one's message.
//!
//! One kind of failure is the runtime's to absorb: autotune benchmarks each
//! candidate kernel inside one exclusive task on the device's thread, and a
//! candidate whose buffers do not fit beside the iteration's tensors panics
//! there; CubeCL turns that into the candidate's error, skips it and runs the
//! op with the fastest one that ran (plain `Autodiff` trains on). The
//! failure then ends with a panic in the candidate's benchmark; the
//! failures just before it are that candidate's, and are reported as a
//! warning instead of being raised. When no candidate of an op ran,
//! autotune panics on burn's fusion server, which is then broken: that is
//! raised, with the last candidate's cause.
//!
//! CubeCL's device threads (`DSU-*`, `DSD-*`) run burn's fusion code too:
//! any panic there is the runtime's. A panic of the training thread while a
//! failure is pending (a call into the failed runtime) names that failure.
//!
//! The training thread may never reach its next op: a failure inside work
//! it waits for can leave it blocked in the runtime for good. A watchdog
//! started with each failure ends the process with the same message once a
//! grace period passed without the failure being raised or absorbed: a
//! clear error instead of a hang.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The exit code of a process the watchdog ends: Rust's code for a panic on
/// the main thread, which is what the training thread would have raised.
const WATCHDOG_EXIT: i32 = 101;

/// Failures this close before a failed autotune candidate's end are that
/// candidate's (its allocation, then the task that carried it: all within
/// milliseconds, on the device's thread).
const CANDIDATE_BURST: Duration = Duration::from_secs(2);

/// A failure not yet raised or absorbed.
#[derive(Debug, Clone)]
struct Failure {
    message: String,
    at: Instant,
    /// Tells a watchdog whether the failure it was started for is the one
    /// still pending.
    generation: u64,
}

/// How CubeCL's autotune says that none of an op's candidates ran.
const NO_CANDIDATE_RAN: &str = "Can't execute the autotune plan";

/// A runtime message's first line (autotune's lists every candidate's
/// error on the lines after).
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or(message)
}

/// Autotune candidates that failed and were skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SkippedCandidates {
    /// How many, since the count was last taken.
    pub(crate) count: u64,
    /// The first one's cause.
    pub(crate) first: String,
}

/// What the hook does with a panic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuntimePanic {
    /// Not in the runtime's code.
    Elsewhere,
    /// A failure of the runtime.
    Failure,
    /// The end of a failed autotune candidate, which CubeCL skips.
    CandidateEnd,
}

/// Whether `thread` is one of CubeCL's device threads (`DSU-*`: burn's fusion
/// server, `DSD-*`: the compute server), whose panics are the runtime's
/// wherever they are located.
fn is_device_thread(thread: Option<&str>) -> bool {
    thread.is_some_and(|name| name.starts_with("DSU-") || name.starts_with("DSD-"))
}

/// `file`: where the panic is located; `thread`: the name of the thread it
/// was raised on.
fn classify(file: &str, thread: Option<&str>) -> RuntimePanic {
    let file = file.replace('\\', "/");
    // Only a candidate's benchmark is skipped: a panic elsewhere in autotune
    // (no candidate ran at all) leaves the op without a kernel.
    if file.contains("cubecl-runtime") && file.ends_with("/src/tune/tune_benchmark.rs") {
        RuntimePanic::CandidateEnd
    } else if file.contains("cubecl") || is_device_thread(thread) {
        RuntimePanic::Failure
    } else {
        RuntimePanic::Elsewhere
    }
}

/// The pending failure, if any, and whether one was raised.
struct Watch {
    failed: AtomicBool,
    raised: AtomicBool,
    pending: Mutex<Option<Failure>>,
    generations: AtomicU64,
    /// Grace before the watchdog ends the process, in milliseconds; 0 waits
    /// forever.
    grace_ms: AtomicU64,
    skipped: Mutex<SkippedCandidates>,
    any_skipped: AtomicBool,
    /// The cause of the last candidate skipped, kept for an op none of
    /// whose candidates ran.
    last_cause: Mutex<String>,
}

impl Watch {
    const fn new() -> Self {
        Self {
            failed: AtomicBool::new(false),
            raised: AtomicBool::new(false),
            pending: Mutex::new(None),
            generations: AtomicU64::new(0),
            grace_ms: AtomicU64::new(30_000),
            skipped: Mutex::new(SkippedCandidates {
                count: 0,
                first: String::new(),
            }),
            any_skipped: AtomicBool::new(false),
            last_cause: Mutex::new(String::new()),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Option<Failure>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a failure; the generation of a new pending one (the first
    /// since the last was absorbed), for its watchdog.
    fn record(&self, message: &str) -> Option<u64> {
        let mut pending = self.pending();
        let new = pending.is_none().then(|| {
            let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
            *pending = Some(Failure {
                message: message.to_string(),
                at: Instant::now(),
                generation,
            });
            generation
        });
        self.failed.store(true, Ordering::Release);
        new
    }

    /// A failed autotune candidate ended (`message`: its last panic): the
    /// pending failure, if it came within [`CANDIDATE_BURST`], was the
    /// candidate's and is absorbed.
    fn candidate_ended(&self, message: &str) {
        let mut pending = self.pending();
        let cause = match pending.as_ref() {
            Some(f) if f.at.elapsed() <= CANDIDATE_BURST => {
                let cause = f.message.clone();
                *pending = None;
                self.failed.store(false, Ordering::Release);
                cause
            }
            Some(_) => return,
            None => message.to_string(),
        };
        drop(pending);
        first_line(&cause)
            .clone_into(&mut self.last_cause.lock().unwrap_or_else(|p| p.into_inner()));
        let mut skipped = self.skipped.lock().unwrap_or_else(|p| p.into_inner());
        if skipped.count == 0 {
            skipped.first = cause;
        }
        skipped.count += 1;
        self.any_skipped.store(true, Ordering::Release);
    }

    /// The candidates skipped since the last call, if any (one atomic load
    /// when none: the training thread asks before every op).
    fn take_skipped(&self) -> Option<SkippedCandidates> {
        if !self.any_skipped.load(Ordering::Acquire)
            || !self.any_skipped.swap(false, Ordering::AcqRel)
        {
            return None;
        }
        let mut skipped = self.skipped.lock().unwrap_or_else(|p| p.into_inner());
        Some(std::mem::take(&mut *skipped)).filter(|s| s.count > 0)
    }

    fn set_grace(&self, grace: Option<Duration>) {
        let ms = grace.map_or(0, |g| (g.as_millis() as u64).max(1));
        self.grace_ms.store(ms, Ordering::Relaxed);
    }

    /// Starts the watchdog of failure `generation`: after the grace period,
    /// if it is still pending and nothing raised it, `end` gets the message
    /// (in the product: print it and end the process).
    fn start_watchdog(&'static self, generation: u64, end: fn(&str)) {
        let ms = self.grace_ms.load(Ordering::Relaxed);
        if ms == 0 {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("burn-swap-runtime-watchdog".into())
            .spawn(move || {
                std::thread::sleep(Duration::from_millis(ms));
                if self.raised.load(Ordering::Acquire) {
                    return;
                }
                let message = match self.pending().as_ref() {
                    Some(f) if f.generation == generation => f.message.clone(),
                    _ => return,
                };
                end(&format!(
                    "burn-swap: the device runtime failed on its own thread: {message}; the \
                     training thread did not reach another op within {:.0} s of it (it is \
                     blocked inside the runtime, or trains without burn-swap), so the process \
                     ends here instead of hanging or computing on (BURN_SWAP_RUNTIME_FAILURE_GRACE \
                     sets the wait)",
                    ms as f64 / 1e3
                ));
            });
        if let Err(err) = spawned {
            eprintln!("burn-swap: could not start the runtime-failure watchdog: {err}");
        }
    }

    /// ", the last: CAUSE" for the last candidate skipped, if any.
    fn last_candidate_cause(&self) -> String {
        let cause = self.last_cause.lock().unwrap_or_else(|p| p.into_inner());
        if cause.is_empty() {
            String::new()
        } else {
            format!(" (the last skipped: {cause})")
        }
    }

    /// One atomic load when nothing failed.
    fn failure(&self) -> Option<String> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.pending().as_ref().map(|f| f.message.clone())
    }

    /// `memory`: what the device and burn-swap had, said with an
    /// out-of-memory failure (given the size of the buffer that failed, when
    /// the runtime's message names it).
    fn raise_if_failed_with(&self, memory: impl FnOnce(Option<u64>) -> Option<String>) {
        if let Some(message) = self.failure() {
            let message = first_line(&message);
            let no_kernel = message.contains(NO_CANDIDATE_RAN);
            let hint = if no_kernel {
                let cause = self.last_candidate_cause();
                let memory = memory(None).map(|m| format!("; {m}")).unwrap_or_default();
                format!(
                    "autotune found no kernel that runs for this op at this shape: every \
                     candidate failed{cause}{memory}; under a memory cap, a batch this large \
                     leaves autotune no room to try its kernels: lower the batch or the budget, \
                     or tune at this shape where the device has more memory free (the autotune \
                     cache keeps the choice)"
                )
            } else if message.contains("allocate") {
                let memory = memory(failed_allocation(message))
                    .map(|m| format!("{m}; "))
                    .unwrap_or_default();
                format!(
                    "the device ran out of memory; {memory}lower the budget (it must leave room \
                     for the parameters, optimizer state and the ops' own workspaces) or the batch"
                )
            } else {
                "results computed since are not valid".to_string()
            };
            self.raised.store(true, Ordering::Release);
            panic!("burn-swap: the device runtime failed on its own thread: {message} ({hint})");
        }
    }

    /// Another thread (the training thread, calling into a runtime that
    /// failed) panicked after a failure nobody raised yet: says what failed
    /// first, which that panic's own message (`CallError`) does not.
    fn name_earlier_failure(&self) {
        if let Some(message) = self.failure() {
            if !self.raised.swap(true, Ordering::AcqRel) {
                eprintln!(
                    "burn-swap: the device runtime had failed on its own thread before this \
                     panic: {}",
                    first_line(&message)
                );
            }
        }
    }

    /// The hook's part for one panic.
    fn on_panic(
        &self,
        file: Option<&str>,
        thread: Option<&str>,
        message: impl FnOnce() -> String,
    ) -> Option<u64> {
        let kind = match file {
            Some(file) => classify(file, thread),
            None if is_device_thread(thread) => RuntimePanic::Failure,
            None => RuntimePanic::Elsewhere,
        };
        match kind {
            RuntimePanic::Elsewhere => {
                self.name_earlier_failure();
                None
            }
            RuntimePanic::Failure => self.record(&message()),
            RuntimePanic::CandidateEnd => {
                self.candidate_ended(&message());
                None
            }
        }
    }
}

static WATCH: Watch = Watch::new();

/// What the watchdog does with a failure nobody raised.
static END: Mutex<fn(&str)> = Mutex::new(end_process);

/// Whether the hook is installed.
static INSTALLED: Mutex<bool> = Mutex::new(false);

/// Installs the watch once per process (the previous panic hook still runs)
/// and sets the watchdog's grace (`None`: never end the process).
pub(crate) fn watch(grace: Option<Duration>) {
    WATCH.set_grace(grace);
    let mut installed = INSTALLED.lock().unwrap_or_else(|p| p.into_inner());
    if !*installed {
        install_hook();
        *installed = true;
    }
}

/// Installs the watch over the panic hook in place now, whatever was
/// installed before, with `end` for failures nobody raised and `grace`.
/// For a process whose own hook is set after the watch may have been (a
/// largest-batch probe), so the watch sees every panic exactly once.
pub(crate) fn watch_over_current_hook(grace: Option<Duration>, end: fn(&str)) {
    WATCH.set_grace(grace);
    *END.lock().unwrap_or_else(|p| p.into_inner()) = end;
    let mut installed = INSTALLED.lock().unwrap_or_else(|p| p.into_inner());
    install_hook();
    *installed = true;
}

fn install_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let file = info.location().map(|l| l.file());
        let thread = std::thread::current();
        let new_failure = WATCH.on_panic(file, thread.name(), || panic_text(info.payload()));
        previous(info);
        if let Some(generation) = new_failure {
            let end = *END.lock().unwrap_or_else(|p| p.into_inner());
            WATCH.start_watchdog(generation, end);
        }
    }));
}

/// Whether a panic is located in the device runtime's code: the watch
/// decides what it means.
pub(crate) fn is_runtime_panic(info: &std::panic::PanicHookInfo<'_>) -> bool {
    let thread = std::thread::current();
    match info.location() {
        Some(at) => classify(at.file(), thread.name()) != RuntimePanic::Elsewhere,
        None => is_device_thread(thread.name()),
    }
}

/// Prints `message` and ends the process. `exit` runs the C runtime's exit
/// handlers, and the driver's may wait on the failed runtime: an abort
/// follows if they have not finished within seconds.
fn end_process(message: &str) {
    eprintln!("{message}");
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(10));
        std::process::abort();
    });
    std::process::exit(WATCHDOG_EXIT);
}

pub(crate) fn panic_text(payload: &dyn std::any::Any) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-text payload".into())
}

/// Whether the device runtime failed on one of its own threads (its channel
/// may be closed: a blocking call into it would panic).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // read by the CUDA reclaimer
pub(crate) fn runtime_failed() -> bool {
    WATCH.failed.load(Ordering::Acquire)
}

/// The failure recorded on one of the runtime's threads, if any.
pub(crate) fn failure() -> Option<String> {
    WATCH.failure()
}

/// The size of the buffer an out-of-memory message of CubeCL's names
/// (`can't allocate buffer of size: N`).
fn failed_allocation(message: &str) -> Option<u64> {
    let (_, rest) = message.split_once("allocate buffer of size: ")?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// Before an op on the training thread: panics if the runtime failed
/// (`memory` says how much of the device was free, for an out-of-memory
/// failure, given the failed buffer's size), and hands autotune candidates
/// CubeCL skipped since the last call to `skipped`. Two atomic loads when
/// neither happened.
pub(crate) fn check_before_op(
    memory: impl FnOnce(Option<u64>) -> Option<String>,
    skipped: impl FnOnce(SkippedCandidates),
) {
    WATCH.raise_if_failed_with(memory);
    if let Some(candidates) = WATCH.take_skipped() {
        skipped(candidates);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_panics_in_runtime_code_count() {
        watch(None);
        // A panic located in our own code is not the runtime's.
        let _ = std::thread::spawn(|| panic!("not the runtime")).join();
        assert!(WATCH.failure().is_none());
        assert!(crate::device_runtime_failure().is_none());
    }

    #[test]
    fn panics_are_told_apart_by_where_they_are_raised() {
        let registry = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f";
        let at = |path: &str| classify(&format!("{registry}/{path}"), Some("DSD-0-0"));
        assert_eq!(
            at("cubecl-cuda-0.10.0/src/compute/server.rs"),
            RuntimePanic::Failure
        );
        assert_eq!(
            at("cubecl-common-0.10.0/src/device/handle/channel.rs"),
            RuntimePanic::Failure
        );
        assert_eq!(
            at("cubecl-runtime-0.10.0/src/tune/tune_benchmark.rs"),
            RuntimePanic::CandidateEnd
        );
        assert_eq!(
            classify(
                r"C:\cargo\registry\src\cubecl-runtime-0.10.0\src\tune\tune_benchmark.rs",
                None
            ),
            RuntimePanic::CandidateEnd
        );
        assert_eq!(classify("src/executor.rs", None), RuntimePanic::Elsewhere);
        // No candidate ran at all: the op has no kernel.
        assert_eq!(
            at("cubecl-runtime-0.10.0/src/tune/tuner.rs"),
            RuntimePanic::Failure
        );
        // burn's fusion server is a device thread: its panics are the
        // runtime's; the same code on the training thread is not.
        let fusion = format!("{registry}/burn-fusion-0.21.0/src/stream/execution/ordering.rs");
        assert_eq!(classify(&fusion, Some("DSU-0-0")), RuntimePanic::Failure);
        assert_eq!(classify(&fusion, Some("main")), RuntimePanic::Elsewhere);
        assert_eq!(
            at("burn-cubecl-0.21.0/src/kernel/conv/base.rs"),
            RuntimePanic::Failure
        );
    }

    static ENDED: Mutex<Option<String>> = Mutex::new(None);

    fn remember_end(message: &str) {
        *ENDED.lock().unwrap() = Some(message.to_string());
    }

    fn wait_for_end(limit: Duration) -> Option<String> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(message) = ENDED.lock().unwrap().take() {
                return Some(message);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        None
    }

    #[test]
    fn a_failure_nobody_raises_ends_the_process_after_the_grace() {
        static STUCK: Watch = Watch::new();
        STUCK.set_grace(Some(Duration::from_millis(20)));
        let generation = STUCK
            .record("can't allocate buffer of size: 4200000000")
            .expect("a new failure");
        assert_eq!(STUCK.record("a later failure"), None);
        STUCK.start_watchdog(generation, remember_end);
        let message = wait_for_end(Duration::from_secs(10)).expect("the watchdog ended it");
        assert!(
            message.contains("can't allocate buffer of size: 4200000000"),
            "{message}"
        );
        assert!(message.contains("blocked inside the runtime"), "{message}");
    }

    #[test]
    fn a_raised_failure_or_no_grace_leaves_the_process_alone() {
        static ENDED_ANYWAY: AtomicBool = AtomicBool::new(false);
        static RAISED: Watch = Watch::new();
        RAISED.set_grace(Some(Duration::from_millis(20)));
        let generation = RAISED.record("can't allocate buffer of size: 1").unwrap();
        assert!(std::panic::catch_unwind(|| RAISED.raise_if_failed_with(|_| None)).is_err());
        RAISED.start_watchdog(generation, |_| ENDED_ANYWAY.store(true, Ordering::SeqCst));
        static FOREVER: Watch = Watch::new();
        FOREVER.set_grace(None);
        let generation = FOREVER.record("can't allocate buffer of size: 1").unwrap();
        FOREVER.start_watchdog(generation, |_| ENDED_ANYWAY.store(true, Ordering::SeqCst));
        std::thread::sleep(Duration::from_millis(200));
        assert!(!ENDED_ANYWAY.load(Ordering::SeqCst));
    }

    #[test]
    fn a_failed_autotune_candidate_is_absorbed_and_reported() {
        static ENDED_ANYWAY: AtomicBool = AtomicBool::new(false);
        static TUNING: Watch = Watch::new();
        TUNING.set_grace(Some(Duration::from_millis(20)));
        assert!(TUNING.take_skipped().is_none());
        // The sequence seen on an H100 under a cap: the candidate's
        // allocation, the task that carried it, then autotune's own panic.
        let server = "cubecl-cuda-0.10.0/src/compute/server.rs";
        let generation = TUNING
            .on_panic(Some(server), Some("DSD-0-0"), || {
                "can't allocate buffer of size: 5313593344".into()
            })
            .expect("a new failure");
        TUNING.start_watchdog(generation, |_| ENDED_ANYWAY.store(true, Ordering::SeqCst));
        let channel = "cubecl-common-0.10.0/src/device/handle/channel.rs";
        assert_eq!(
            TUNING.on_panic(Some(channel), Some("DSD-0-0"), || "CallError".into()),
            None
        );
        assert!(TUNING.failure().is_some());
        let tune = "cubecl-runtime-0.10.0/src/tune/tune_benchmark.rs";
        assert_eq!(
            TUNING.on_panic(Some(tune), Some("DSD-0-0"), || "CallError".into()),
            None
        );
        assert!(
            TUNING.failure().is_none(),
            "the candidate's failure is absorbed"
        );
        TUNING.raise_if_failed_with(|_| None);
        let skipped = TUNING.take_skipped().expect("one candidate skipped");
        assert_eq!(skipped.count, 1);
        assert_eq!(skipped.first, "can't allocate buffer of size: 5313593344");
        assert!(TUNING.take_skipped().is_none(), "taken once");
        std::thread::sleep(Duration::from_millis(200));
        assert!(!ENDED_ANYWAY.load(Ordering::SeqCst), "no watchdog ends it");
        // A later failure of a real op is raised as before.
        TUNING.on_panic(Some(server), Some("DSD-0-0"), || {
            "can't allocate buffer of size: 7".into()
        });
        assert!(std::panic::catch_unwind(|| TUNING.raise_if_failed_with(|_| None)).is_err());
    }

    #[test]
    fn an_op_none_of_whose_autotune_candidates_ran_is_raised() {
        // The sequence seen on an H100 under a cap at a batch too large for
        // autotune: each candidate's allocation fails and is skipped, then
        // autotune itself panics on burn's fusion server, which breaks.
        let watch = Watch::new();
        let server = "cubecl-cuda-0.10.0/src/compute/server.rs";
        let benchmark = "cubecl-runtime-0.10.0/src/tune/tune_benchmark.rs";
        for _ in 0..2 {
            watch.on_panic(Some(server), Some("DSD-0-0"), || {
                "can't allocate buffer of size: 2147483648".into()
            });
            watch.on_panic(Some(benchmark), Some("DSD-0-0"), || "CallError".into());
        }
        assert!(watch.failure().is_none(), "candidates are skipped");
        let tuner = "cubecl-runtime-0.10.0/src/tune/tuner.rs";
        watch.on_panic(Some(tuner), Some("DSU-0-0"), || {
            "Can't execute the autotune plan for key: Conv(..)\n - results: [..]".into()
        });
        let raised = std::panic::catch_unwind(|| {
            watch.raise_if_failed_with(|_| Some("3.1 GiB of 12.0 GiB free".into()))
        })
        .unwrap_err();
        let text = panic_text(raised.as_ref());
        assert!(text.contains("autotune found no kernel"), "{text}");
        assert!(
            text.contains("can't allocate buffer of size: 2147483648"),
            "{text}"
        );
        assert!(text.contains("3.1 GiB of 12.0 GiB free"), "{text}");
        assert!(
            !text.contains("results"),
            "one line of autotune's message: {text}"
        );
        // The training thread's own panic, calling into the broken runtime,
        // is not a new failure.
        assert_eq!(
            watch.on_panic(
                Some("burn-fusion-0.21.0/src/client.rs"),
                Some("main"),
                || { "CallError".into() }
            ),
            None
        );
    }

    #[test]
    fn a_failure_long_before_an_autotune_candidate_ended_stays_pending() {
        let watch = Watch::new();
        watch.record("can't allocate buffer of size: 9");
        if let Some(f) = watch.pending().as_mut() {
            f.at = Instant::now()
                .checked_sub(CANDIDATE_BURST * 2)
                .expect("a clock that far back");
        }
        watch.candidate_ended("CallError");
        assert_eq!(
            watch.failure().as_deref(),
            Some("can't allocate buffer of size: 9")
        );
        assert!(watch.take_skipped().is_none());
    }

    #[test]
    fn the_failed_buffer_size_is_read_from_cubecl_s_message() {
        assert_eq!(
            failed_allocation("called `Result::unwrap()` on an `Err` value: can't allocate buffer of size: 3623878656"),
            Some(3623878656)
        );
        assert_eq!(
            failed_allocation("can't allocate buffer of size: 512 (page)"),
            Some(512)
        );
        assert_eq!(failed_allocation("out of memory"), None);
    }

    #[test]
    fn a_runtime_failure_is_raised_with_its_message() {
        let watch = Watch::new();
        let memory = |failed: Option<u64>| {
            assert_eq!(
                failed,
                Some(3221225472),
                "the failed buffer's size is handed on"
            );
            Some("1.5 GiB of 12.0 GiB free, budget 8.0 GiB".to_string())
        };
        watch.raise_if_failed_with(|_| None);
        watch.record("can't allocate buffer of size: 3221225472");
        watch.record("a later failure");
        let raised = std::panic::catch_unwind(|| watch.raise_if_failed_with(memory)).unwrap_err();
        let text = panic_text(raised.as_ref());
        assert!(
            text.contains("can't allocate buffer of size: 3221225472"),
            "{text}"
        );
        assert!(text.contains("out of memory"), "{text}");
        assert!(
            text.contains("1.5 GiB of 12.0 GiB free, budget 8.0 GiB"),
            "{text}"
        );
    }
}
