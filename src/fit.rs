//! The largest batch that trains: a search a user can run on their own model
//! and GPU.
//!
//! [`BatchSearch`] doubles the batch from a start until one does not fit (or
//! a maximum is reached), then bisects between the last that fitted and the
//! first that did not. Whether a batch fits is the probe's answer, and the
//! honest probe is to train at it: a sampled peak or an estimate says less
//! than the driver's out-of-memory does.
//!
//! On a GPU a probe that runs out of memory can leave the runtime broken
//! (CubeCL's device thread panics on a failed allocation and carries on), so
//! each probe runs in a process of its own: [`ChildProbe`] starts the current
//! program again with the batch in [`PROBE_BATCH_VAR`]. The program calls
//! [`probe_batch`] first thing; in a child it returns the batch to try, the
//! program trains a few steps at it and calls [`report_fits`]. Any panic on
//! any thread of the child, or an exit without that report, is a batch that
//! does not fit, with the reason; a child still running at the timeout is
//! undecided (the search goes below it and says so).
//!
//! ```no_run
//! use burn_swap::fit::{self, BatchSearch, ChildProbe};
//! # fn train_steps(batch: usize) -> f64 { batch as f64 }
//! if let Some(batch) = fit::probe_batch() {
//!     let samples_per_s = train_steps(batch); // a few steps at `batch`
//!     fit::report_fits(samples_per_s);
//! }
//! let child = ChildProbe::current_program();
//! let result = BatchSearch::new(64, 65536).run(|batch| child.run(batch));
//! println!("largest batch that trains: {:?}", result.largest_fitting);
//! ```

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The environment variable that gives a child process the batch to try.
pub const PROBE_BATCH_VAR: &str = "BURN_SWAP_PROBE_BATCH";

/// Marks a child's verdict on its standard output or error.
const VERDICT_TAG: &str = "@@burn-swap-probe ";

/// What one probe found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "verdict")]
pub enum Verdict {
    /// The batch trained: every step the probe asked for completed.
    Fits {
        /// Training throughput the probe measured, if it did.
        samples_per_s: Option<f64>,
        /// The environment the batch needed beyond the search's own
        /// (`KEY=value`), where it trained only when tried again with it
        /// ([`ChildProbe::retry_out_of_memory_with`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        settings: Vec<String>,
    },
    /// It did not, and why (out of memory, no plan fits the budget,
    /// another failure).
    DoesNotFit {
        /// The reason, one line.
        why: String,
    },
    /// The probe could not run for a reason that is not its batch (no
    /// device, a bad argument; [`report_error`]): the search stops, since
    /// every other batch would fail the same way.
    Error {
        /// The reason, one line.
        why: String,
    },
    /// The probe ran out of time before its steps completed (on a GPU,
    /// usually still compiling and autotuning a new shape's kernels): the
    /// batch may fit. The search goes no higher than it.
    Undecided {
        /// Where the probe was, one line.
        why: String,
    },
}

impl Verdict {
    /// Whether the batch trained.
    pub fn fits(&self) -> bool {
        matches!(self, Verdict::Fits { .. })
    }

    /// The reason it gives where the batch did not train.
    pub fn why(&self) -> Option<&str> {
        match self {
            Verdict::Fits { .. } => None,
            Verdict::DoesNotFit { why } | Verdict::Error { why } | Verdict::Undecided { why } => {
                Some(why)
            }
        }
    }
}

/// One batch tried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// The batch size.
    pub batch: usize,
    /// What it found.
    pub verdict: Verdict,
    /// Wall time of the probe.
    pub seconds: f64,
}

/// The search's answer, with every probe in the order they ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    /// The largest batch that trained (`None`: not even the start).
    pub largest_fitting: Option<usize>,
    /// The smallest batch that did not (`None`: the maximum trained, or
    /// only undecided batches are above the largest).
    pub smallest_failing: Option<usize>,
    /// The smallest batch above the largest that trained whose probe could
    /// not tell (it timed out): the true largest may lie at or above it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undecided: Option<usize>,
    /// Why the search stopped early: a probe could not run for a reason
    /// that is not its batch ([`Verdict::Error`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every probe, in order.
    pub probes: Vec<Probe>,
}

impl SearchResult {
    /// The probe at the largest batch that trained.
    pub fn at_largest(&self) -> Option<&Probe> {
        let largest = self.largest_fitting?;
        self.probes
            .iter()
            .rev()
            .find(|p| p.batch == largest && p.verdict.fits())
    }
}

/// Doubling, then bisection, over batch sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchSearch {
    /// The first batch tried.
    pub start: usize,
    /// No batch above this is tried.
    pub max: usize,
    /// Bisection stops when the gap between the largest batch that fitted
    /// and the smallest that did not is at most `1/resolution` of the
    /// former (each probe is a full training run, minutes on a GPU).
    pub resolution: usize,
    /// Batches tried are multiples of this (a data-parallel split, say).
    pub multiple_of: usize,
}

impl BatchSearch {
    /// From `start` up to `max`, to within 1/16, any batch size.
    pub fn new(start: usize, max: usize) -> Self {
        Self {
            start: start.max(1),
            max: max.max(start.max(1)),
            resolution: 16,
            multiple_of: 1,
        }
    }

    /// Tries batch sizes that are multiples of `m` only.
    pub fn multiple_of(mut self, m: usize) -> Self {
        self.multiple_of = m.max(1);
        self.start = self.start.next_multiple_of(self.multiple_of);
        self.max = self.max.max(self.start);
        self
    }

    /// Stops bisecting at a gap of `1/resolution` of the fitting batch.
    pub fn resolution(mut self, resolution: usize) -> Self {
        self.resolution = resolution.max(1);
        self
    }

    /// Runs the search; `probe` trains at a batch and says whether it fits.
    /// Each probe is logged (`tracing::info!`) as it ends.
    pub fn run(&self, mut probe: impl FnMut(usize) -> Verdict) -> SearchResult {
        let m = self.multiple_of;
        let mut probes = Vec::new();
        let mut try_batch = |batch: usize| -> Verdict {
            let started = Instant::now();
            let verdict = probe(batch);
            let seconds = started.elapsed().as_secs_f64();
            match &verdict {
                Verdict::Fits { samples_per_s, .. } => tracing::info!(
                    batch,
                    seconds,
                    samples_per_s = samples_per_s.unwrap_or(f64::NAN),
                    "batch fits"
                ),
                Verdict::DoesNotFit { why } => {
                    tracing::info!(batch, seconds, why = %why, "batch does not fit")
                }
                Verdict::Undecided { why } => {
                    tracing::info!(batch, seconds, why = %why, "batch undecided")
                }
                Verdict::Error { why } => {
                    tracing::warn!(batch, why = %why, "probe failed for a reason that is not its batch; the search stops")
                }
            }
            probes.push(Probe {
                batch,
                verdict: verdict.clone(),
                seconds,
            });
            verdict
        };
        let mut bounds = Bounds::default();
        let mut hi = None;
        let mut batch = self.start;
        loop {
            if !bounds.record(batch, try_batch(batch)) {
                hi = Some(batch);
                break;
            }
            if batch >= self.max {
                break;
            }
            batch = (batch * 2).min(self.max);
        }
        if let Some(mut hi) = hi {
            let mut lo = bounds.fit.unwrap_or(0);
            while bounds.error.is_none() {
                let gap = (lo / self.resolution).max(m);
                if hi - lo <= gap {
                    break;
                }
                // The middle, rounded down to a multiple (above `lo`).
                let mid = (lo + (hi - lo) / 2) / m * m;
                if mid <= lo {
                    break;
                }
                if bounds.record(mid, try_batch(mid)) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
        let Bounds {
            fit,
            fail,
            undecided,
            error,
        } = bounds;
        SearchResult {
            largest_fitting: fit,
            smallest_failing: fail,
            // Only one below every failure leaves the largest in doubt.
            undecided: undecided.filter(|&u| fail.is_none_or(|f| u < f)),
            error,
            probes,
        }
    }
}

/// What the probes so far say about the largest batch.
#[derive(Default)]
struct Bounds {
    fit: Option<usize>,
    fail: Option<usize>,
    undecided: Option<usize>,
    error: Option<String>,
}

impl Bounds {
    /// Takes a probe's verdict; `true` when the batch trained. The search
    /// tries smaller batches next when it did not, and larger ones (or none)
    /// when it did.
    fn record(&mut self, batch: usize, verdict: Verdict) -> bool {
        match verdict {
            Verdict::Fits { .. } => {
                self.fit = Some(batch);
                return true;
            }
            Verdict::DoesNotFit { .. } => self.fail = Some(batch),
            Verdict::Undecided { .. } => self.undecided = Some(batch),
            Verdict::Error { why } => self.error = Some(why),
        }
        false
    }
}

/// In a child started by [`ChildProbe`]: the batch to try. It also makes
/// every panic, on any thread, end the child at once with the panic's
/// message as its verdict (a GPU runtime that panicked on a failed
/// allocation must not go on computing). A failure on the device runtime's
/// own thread ends it too, unless it was an autotune candidate's, which
/// CubeCL skips (the batch may still train). `None` in any other process.
pub fn probe_batch() -> Option<usize> {
    let batch = std::env::var(PROBE_BATCH_VAR).ok()?.trim().parse().ok()?;
    std::panic::set_hook(Box::new(move |info| {
        let message = crate::runtime_failure::panic_text(info.payload());
        let thread = std::thread::current();
        let why = format!(
            "panicked on thread {}: {}",
            thread.name().unwrap_or("unnamed"),
            message
        );
        // The whole message for the person watching.
        eprintln!("{why}");
        if crate::runtime_failure::is_runtime_panic(info) {
            // The runtime-failure watch decides, within its grace.
            return;
        }
        end_probe(&why);
    }));
    crate::runtime_failure::watch_over_current_hook(Some(PROBE_RUNTIME_GRACE), end_probe);
    Some(batch)
}

/// How long a probe waits after a failure on the runtime's own thread for
/// it to be absorbed (an autotune candidate's) or raised on the training
/// thread, before it ends as not fitting. A probe that trains through
/// `SwapAutodiff` takes its configuration's grace instead
/// ([`SwapConfig::runtime_failure_grace`](crate::SwapConfig::runtime_failure_grace)).
const PROBE_RUNTIME_GRACE: Duration = Duration::from_secs(5);

/// Ends a probe as not fitting, with the short reason as its verdict.
fn end_probe(why: &str) {
    let why = failure_reason(why);
    end_child(&Verdict::DoesNotFit { why }, PANIC_EXIT);
}

/// In a child: it cannot train at any batch (no device, a bad argument).
/// Gives that as its verdict and ends the child; the search stops there
/// instead of trying smaller batches.
pub fn report_error(why: &str) -> ! {
    let why = why.lines().next().unwrap_or_default().to_string();
    end_child(&Verdict::Error { why }, ERROR_EXIT);
}

/// Gives `verdict` on standard error and ends the child with `code`.
fn end_child(verdict: &Verdict, code: i32) -> ! {
    eprintln!(
        "{VERDICT_TAG}{}",
        serde_json::to_string(verdict).unwrap_or_default()
    );
    std::process::exit(code);
}

/// A child's exit code after [`report_error`].
const ERROR_EXIT: i32 = 2;

/// A child's exit code after a panic.
const PANIC_EXIT: i32 = 3;

/// In a child: the batch trained at `samples_per_s`. Call it once every step
/// asked for has completed (and the device was synchronised).
pub fn report_fits(samples_per_s: f64) {
    let verdict = Verdict::Fits {
        samples_per_s: samples_per_s.is_finite().then_some(samples_per_s),
        settings: Vec::new(),
    };
    println!(
        "{VERDICT_TAG}{}",
        serde_json::to_string(&verdict).unwrap_or_default()
    );
}

/// A failure message, short: "out of memory" where it says so in any of the
/// ways CubeCL, CUDA and the allocator do, "budget too small: ..." for
/// burn-swap's own refusal, else its first line.
pub fn failure_reason(message: &str) -> String {
    let text = message.to_ascii_lowercase();
    let first_line: String = message
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(200)
        .collect();
    if text.contains("no plan keeps the iteration's device memory under the budget") {
        // The budget and the need; what was tried is in the full message.
        let at = message.find("no plan keeps").unwrap_or(0);
        let line = message[at..].lines().next().unwrap_or("");
        let line = line.split("; tried").next().unwrap_or(line);
        format!(
            "budget too small: {}",
            line.chars().take(200).collect::<String>()
        )
    } else if [
        "out of memory",
        "can't allocate buffer",
        "out-of-memory",
        "outofmemory",
        "memory allocation of",
    ]
    .iter()
    .any(|s| text.contains(s))
    {
        "out of memory".into()
    } else {
        first_line
    }
}

/// Runs each probe in a child process: a program (by default this one, with
/// its own arguments) started with [`PROBE_BATCH_VAR`] set, killed after a
/// timeout. Its output is passed through to standard error, so the child's
/// progress and its report show; the last lines of its standard error are
/// kept to explain a child that died without a verdict or ran out of time.
#[derive(Debug, Clone)]
pub struct ChildProbe {
    program: std::path::PathBuf,
    args: Vec<String>,
    timeout: Duration,
    relay: bool,
    retry_env: Vec<(String, String)>,
}

/// burn-swap's settings (CUDA) that give free device memory back to the
/// driver whole after every op: a memory pool capped at 1 GiB, so larger
/// buffers are allocations of their own, freed whole, and free buffers
/// released after every op rather than held for reuse by size. A buffer
/// an op takes inside itself then finds the free memory in one piece: under
/// a 12 GiB cap on an H100, VGG16 b6144 `home` at 5 GiB trained 40 steps
/// this way at 0.83x of plain's b2048, and ran out of memory for a 3.4 GiB
/// convolution workspace without. They cost speed where the pool would not
/// have been in pieces (a capped pool halved ResNet-50's and GPT-small's
/// speed), so they are for a batch that does not fit otherwise.
pub const WHOLE_FREES: [(&str, &str); 2] = [
    ("BURN_SWAP_POOL_CAP", "1GiB"),
    ("BURN_SWAP_RELEASE_BYTES", "0"),
];

/// Environment variables as `KEY=value`, as a shell would set them.
pub(crate) fn key_values(vars: &[(impl std::fmt::Display, impl std::fmt::Display)]) -> Vec<String> {
    vars.iter().map(|(k, v)| format!("{k}={v}")).collect()
}

/// Lines of a child's standard error kept to explain a crash.
const STDERR_TAIL: usize = 20;

impl ChildProbe {
    /// This program again, with the arguments it was started with.
    pub fn current_program() -> Self {
        let program = std::env::current_exe().expect("the path of the running program");
        Self::new(program, std::env::args().skip(1).collect())
    }

    /// `program` with `args`.
    pub fn new(program: impl Into<std::path::PathBuf>, args: Vec<String>) -> Self {
        Self {
            program: program.into(),
            args,
            timeout: Duration::from_secs(900),
            relay: true,
            retry_env: Vec::new(),
        }
    }

    /// A batch that ran out of memory is tried once more with these
    /// variables set as well (for example [`WHOLE_FREES`]); if it trains
    /// then, its verdict names them.
    pub fn retry_out_of_memory_with<K: Into<String>, V: Into<String>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.retry_env = vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        self
    }

    /// Kills a child that has not given its verdict after `timeout` (a
    /// first run at a new batch compiles and autotunes kernels: minutes on a
    /// GPU). Default 15 minutes.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether the child's output (standard output and error) is passed
    /// through to standard error, each line indented (default yes).
    pub fn relay_output(mut self, relay: bool) -> Self {
        self.relay = relay;
        self
    }

    /// Trains at `batch` in a child and gives its verdict (a second child
    /// with the retry's variables where the first ran out of memory).
    pub fn run(&self, batch: usize) -> Verdict {
        let first = self.run_with(batch, &[]);
        let out_of_memory = matches!(&first, Verdict::DoesNotFit { why } if why == "out of memory");
        if !out_of_memory || self.retry_env.is_empty() {
            return first;
        }
        let settings = key_values(&self.retry_env);
        match self.run_with(batch, &self.retry_env) {
            Verdict::Fits { samples_per_s, .. } => Verdict::Fits {
                samples_per_s,
                settings,
            },
            Verdict::DoesNotFit { why } => Verdict::DoesNotFit {
                why: format!("out of memory; with {}: {why}", settings.join(" ")),
            },
            Verdict::Undecided { why } => Verdict::Undecided {
                why: format!("out of memory; with {}: {why}", settings.join(" ")),
            },
            error @ Verdict::Error { .. } => error,
        }
    }

    fn run_with(&self, batch: usize, extra_env: &[(String, String)]) -> Verdict {
        let spawned = Command::new(&self.program)
            .args(&self.args)
            .envs(extra_env.iter().map(|(k, v)| (k, v)))
            .env(PROBE_BATCH_VAR, batch.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(err) => {
                return Verdict::DoesNotFit {
                    why: format!("could not start {}: {err}", self.program.display()),
                }
            }
        };
        let verdict: Arc<Mutex<Option<Verdict>>> = Arc::default();
        let tail: Arc<Mutex<VecDeque<String>>> = Arc::default();
        // Readers on threads of their own, so a full pipe never blocks the child.
        let stdout = child.stdout.take().expect("piped");
        let (found, relay) = (verdict.clone(), self.relay);
        let out_reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(v) = parse_verdict(&line) {
                    found.lock().unwrap().get_or_insert(v);
                } else if relay {
                    eprintln!("  | {line}");
                }
            }
        });
        let stderr = child.stderr.take().expect("piped");
        let (found, kept, relay) = (verdict.clone(), tail.clone(), self.relay);
        let err_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(v) = parse_verdict(&line) {
                    found.lock().unwrap().get_or_insert(v);
                    continue;
                }
                if relay {
                    eprintln!("  | {line}");
                }
                let mut kept = kept.lock().unwrap();
                if kept.len() == STDERR_TAIL {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        });
        let started = Instant::now();
        let (status, timed_out) = loop {
            match child.try_wait() {
                Ok(Some(status)) => break (Some(status), false),
                Ok(None) if started.elapsed() > self.timeout => {
                    let _ = child.kill();
                    break (child.wait().ok(), true);
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err(_) => break (None, false),
            }
        };
        // A process the child started may still hold its pipes: the readers
        // get a moment to finish, then are left to end on their own.
        let grace = Instant::now() + Duration::from_secs(2);
        while !(out_reader.is_finished() && err_reader.is_finished()) && Instant::now() < grace {
            std::thread::sleep(Duration::from_millis(10));
        }
        let found = verdict.lock().unwrap().take();
        match found {
            Some(Verdict::Fits { .. }) | None if timed_out => {
                // Where it was when its time ran out (on a GPU, often
                // still compiling and autotuning a new shape's kernels).
                let tail = tail.lock().unwrap();
                let last = tail.iter().rev().map(|l| l.trim()).find(|l| !l.is_empty());
                let secs = self.timeout.as_secs();
                Verdict::Undecided {
                    why: match last {
                        Some(last) => format!(
                            "timed out after {secs} s; last printed: {}",
                            last.chars().take(160).collect::<String>()
                        ),
                        None => format!("timed out after {secs} s"),
                    },
                }
            }
            Some(v) => v,
            None => {
                let tail: Vec<String> = tail.lock().unwrap().iter().cloned().collect();
                let why = failure_reason(&tail.join("\n"));
                Verdict::DoesNotFit {
                    why: match status {
                        Some(status) if why.is_empty() => format!("no verdict ({status})"),
                        Some(status) if why != "out of memory" => {
                            format!("no verdict ({status}): {why}")
                        }
                        _ => why,
                    },
                }
            }
        }
    }
}

fn parse_verdict(line: &str) -> Option<Verdict> {
    serde_json::from_str(line.strip_prefix(VERDICT_TAG)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fits_below(limit: usize) -> impl FnMut(usize) -> Verdict {
        move |batch| {
            if batch <= limit {
                Verdict::Fits {
                    samples_per_s: Some(batch as f64),
                    settings: Vec::new(),
                }
            } else {
                Verdict::DoesNotFit {
                    why: "out of memory".into(),
                }
            }
        }
    }

    fn batches(result: &SearchResult) -> Vec<usize> {
        result.probes.iter().map(|p| p.batch).collect()
    }

    #[test]
    fn doubles_to_the_first_failure_then_bisects_to_the_resolution() {
        let result = BatchSearch::new(64, 65536).run(fits_below(3000));
        assert_eq!(
            batches(&result),
            [64, 128, 256, 512, 1024, 2048, 4096, 3072, 2560, 2816, 2944]
        );
        assert_eq!(result.largest_fitting, Some(2944));
        assert_eq!(result.smallest_failing, Some(3072));
        assert_eq!(result.at_largest().unwrap().batch, 2944);
    }

    #[test]
    fn a_probe_that_cannot_tell_bounds_the_search_without_counting_as_a_failure() {
        // As on a GPU: 2048 runs out of memory, 1024 is still autotuning
        // when its time runs out, everything up to 1000 trains.
        let mut fits = fits_below(1000);
        let result = BatchSearch::new(2048, 4096).run(|batch| match batch {
            1024 => Verdict::Undecided {
                why: "timed out after 60 s".into(),
            },
            _ => fits(batch),
        });
        assert_eq!(batches(&result)[..2], [2048, 1024]);
        assert_eq!(result.smallest_failing, Some(2048));
        assert_eq!(result.undecided, Some(1024));
        let largest = result.largest_fitting.unwrap();
        assert!((960..=1000).contains(&largest), "{largest}");
        // A search that only ever failed has nothing undecided.
        let plain = BatchSearch::new(64, 65536).run(fits_below(3000));
        assert_eq!(plain.undecided, None);
        assert!(!serde_json::to_string(&plain).unwrap().contains("undecided"));
    }

    #[test]
    fn a_probe_that_cannot_run_at_all_stops_the_search() {
        let no_device = || Verdict::Error {
            why: "--device-memory: no CUDA-capable device is detected".into(),
        };
        let result = BatchSearch::new(192, 192).run(|_| no_device());
        assert_eq!(batches(&result), [192]);
        assert_eq!(result.largest_fitting, None);
        assert_eq!(result.smallest_failing, None);
        assert!(result.error.unwrap().contains("no CUDA-capable device"));
        // Met while bisecting, it ends the bisection too.
        let mut fits = fits_below(3000);
        let result = BatchSearch::new(1024, 8192).run(|batch| match batch {
            3072 => no_device(),
            _ => fits(batch),
        });
        assert_eq!(batches(&result), [1024, 2048, 4096, 3072]);
        assert_eq!(result.largest_fitting, Some(2048));
        assert!(result.error.is_some());
    }

    #[cfg(unix)]
    #[test]
    fn a_child_that_reports_an_error_gives_it_as_its_verdict() {
        let child = shell_child(&format!(
            "echo '{VERDICT_TAG}{{\"verdict\":\"error\",\"why\":\"no device\"}}' >&2; exit 2"
        ));
        assert_eq!(
            child.run(8),
            Verdict::Error {
                why: "no device".into()
            }
        );
    }

    #[test]
    fn the_maximum_that_fits_ends_the_search() {
        let result = BatchSearch::new(100, 1000).run(fits_below(5000));
        assert_eq!(batches(&result), [100, 200, 400, 800, 1000]);
        assert_eq!(result.largest_fitting, Some(1000));
        assert_eq!(result.smallest_failing, None);
    }

    #[test]
    fn a_start_that_does_not_fit_bisects_below_it() {
        let result = BatchSearch::new(64, 1024).run(fits_below(10));
        assert_eq!(result.largest_fitting, Some(10));
        assert_eq!(result.smallest_failing, Some(11));
        let nothing = BatchSearch::new(1, 8).run(fits_below(0));
        assert_eq!(nothing.largest_fitting, None);
        assert_eq!(batches(&nothing), [1]);
    }

    #[test]
    fn multiples_only() {
        let result = BatchSearch::new(30, 4096)
            .multiple_of(32)
            .resolution(1000)
            .run(fits_below(1000));
        assert!(result.probes.iter().all(|p| p.batch % 32 == 0));
        assert_eq!(result.largest_fitting, Some(992));
        assert_eq!(result.smallest_failing, Some(1024));
    }

    #[test]
    fn failure_reasons_are_short_and_name_out_of_memory() {
        assert_eq!(
            failure_reason("panicked: called `Result::unwrap()` on an `Err` value: OutOfMemory"),
            "out of memory"
        );
        assert!(failure_reason(
            "burn-swap: no plan keeps the iteration's device memory under the budget: need 6 GiB"
        )
        .starts_with("budget too small: no plan keeps"));
        assert_eq!(failure_reason("shape mismatch\nmore"), "shape mismatch");
    }

    /// A child that answers by the batch it is given, as a training program
    /// would: a verdict line when it trained, a crash when it did not.
    #[cfg(unix)]
    fn shell_child(script: &str) -> ChildProbe {
        ChildProbe::new("/bin/sh", vec!["-c".into(), script.into()]).relay_output(false)
    }

    #[cfg(unix)]
    #[test]
    fn a_child_gives_its_verdict_or_its_reason() {
        let script = format!(
            r#"if [ "${PROBE_BATCH_VAR}" -le 100 ]; then echo 'training...' >&2; echo '{VERDICT_TAG}{{"verdict":"fits","samples_per_s":12.5}}'; else echo 'CUDA_ERROR_OUT_OF_MEMORY: out of memory' >&2; exit 1; fi"#
        );
        let child = shell_child(&script);
        assert_eq!(
            child.run(64),
            Verdict::Fits {
                samples_per_s: Some(12.5),
                settings: Vec::new(),
            }
        );
        assert_eq!(
            child.run(128),
            Verdict::DoesNotFit {
                why: "out of memory".into()
            }
        );
        let result = BatchSearch::new(16, 1024).run(|b| child.run(b));
        assert_eq!(result.largest_fitting, Some(100));
    }

    #[cfg(unix)]
    #[test]
    fn a_batch_out_of_memory_is_tried_again_with_the_retrys_settings() {
        // Fits up to 100, and up to 150 only with both variables set.
        let script = format!(
            r#"b=${PROBE_BATCH_VAR}; if [ "$b" -le 100 ] || {{ [ "$b" -le 150 ] && [ "$BURN_SWAP_POOL_CAP" = 1GiB ] && [ "$BURN_SWAP_RELEASE_BYTES" = 0 ]; }}; then echo '{VERDICT_TAG}{{"verdict":"fits","samples_per_s":3.0}}'; else echo "can't allocate buffer of size: 3623878656" >&2; exit 101; fi"#
        );
        let child = shell_child(&script).retry_out_of_memory_with(WHOLE_FREES);
        assert_eq!(
            child.run(64),
            Verdict::Fits {
                samples_per_s: Some(3.0),
                settings: Vec::new(),
            }
        );
        assert_eq!(
            child.run(128),
            Verdict::Fits {
                samples_per_s: Some(3.0),
                settings: vec![
                    "BURN_SWAP_POOL_CAP=1GiB".into(),
                    "BURN_SWAP_RELEASE_BYTES=0".into()
                ],
            }
        );
        assert!(matches!(
            child.run(200),
            Verdict::DoesNotFit { why } if why.starts_with("out of memory; with BURN_SWAP_POOL_CAP=1GiB")
        ));
        // Without the retry the search stops at 100; with it, at 150.
        let plain = shell_child(&script);
        assert_eq!(
            BatchSearch::new(16, 1024)
                .run(|b| plain.run(b))
                .largest_fitting,
            Some(100)
        );
        let result = BatchSearch::new(16, 1024).run(|b| child.run(b));
        assert!(
            result.largest_fitting.is_some_and(|b| b > 128 && b <= 150),
            "{result:?}"
        );
        // Any other failure is not tried again.
        let other =
            shell_child("echo 'shape mismatch' >&2; exit 1").retry_out_of_memory_with(WHOLE_FREES);
        assert!(
            matches!(other.run(8), Verdict::DoesNotFit { why } if !why.contains("with BURN_SWAP"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_child_that_hangs_is_killed_at_the_timeout() {
        let child = shell_child("echo 'step 1: compiling kernels' >&2; sleep 30")
            .timeout(Duration::from_millis(300));
        let started = Instant::now();
        let verdict = child.run(8);
        assert!(started.elapsed() < Duration::from_secs(10));
        // The reason says where the child was.
        assert!(
            matches!(&verdict, Verdict::Undecided { why }
                if why.starts_with("timed out") && why.ends_with("last printed: step 1: compiling kernels")),
            "{verdict:?}"
        );
    }
}
