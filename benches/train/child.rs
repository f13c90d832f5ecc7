//! The parent: runs each case in a child process, searches the largest batch that fits.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use burn_swap::fit::{failure_reason, BatchSearch, Verdict};
use burn_swap_models::{ImageShape, ModelKind};

use crate::args::Options;
use crate::case::{Case, Measured, Row, Search, PANIC_TAG, RESULT_TAG, STDERR_TAIL};
use crate::report::mib;

/// How a child process ended, as the parent saw it.
pub struct ChildOutcome {
    pub result: Option<Measured>,
    pub panic: Option<String>,
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    pub stderr_tail: Vec<String>,
    pub wall_secs: f64,
}

/// Runs `case` in a child process, relaying its progress, killing it after `timeout`.
pub fn run_case_in_child(case: &Case, timeout: Duration) -> ChildOutcome {
    let exe = std::env::current_exe().expect("path of this benchmark binary");
    let case_json = serde_json::to_string(case).expect("serialisable");
    let start = Instant::now();
    let spawned = Command::new(exe)
        .arg("--case")
        .arg(&case_json)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            return ChildOutcome {
                result: None,
                panic: Some(format!("could not start the child process: {err}")),
                status: None,
                timed_out: false,
                stderr_tail: Vec::new(),
                wall_secs: 0.0,
            }
        }
    };

    // Readers on their own threads, so a full pipe never blocks the child.
    let stdout = child.stdout.take().expect("piped");
    let stdout_reader = thread::spawn(move || read_tagged_lines(stdout));
    let stderr = child.stderr.take().expect("piped");
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let tail_writer = Arc::clone(&tail);
    let stderr_relay = thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            let mut tail = tail_writer.lock().unwrap();
            if tail.len() == STDERR_TAIL {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });

    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > timeout => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => thread::sleep(Duration::from_millis(100)),
            Err(_) => break None,
        }
    };
    let (result, panic) = stdout_reader.join().unwrap_or((None, None));
    let _ = stderr_relay.join();
    let stderr_tail = tail.lock().unwrap().iter().cloned().collect();
    ChildOutcome {
        result,
        panic,
        status,
        timed_out,
        stderr_tail,
        wall_secs: start.elapsed().as_secs_f64(),
    }
}

/// The child's result line and first panic message, from its stdout.
pub fn read_tagged_lines(stdout: impl Read) -> (Option<Measured>, Option<String>) {
    let (mut result, mut panic) = (None, None);
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        if let Some(json) = line.strip_prefix(RESULT_TAG) {
            result = serde_json::from_str(json).ok();
        } else if let Some(json) = line.strip_prefix(PANIC_TAG) {
            if panic.is_none() {
                panic = serde_json::from_str::<String>(json).ok();
            }
        }
    }
    (result, panic)
}

/// A short reason for a child that gave no result, and the text behind it.
pub fn why_failed(outcome: &ChildOutcome, timeout: Duration) -> (String, String) {
    let detail = outcome
        .panic
        .clone()
        .unwrap_or_else(|| outcome.stderr_tail.join("\n"));
    let reason = failure_reason(&detail);
    let why = if outcome.timed_out {
        match &outcome.panic {
            Some(_) => format!(
                "timed out after {} s (after a panic: {reason})",
                timeout.as_secs()
            ),
            None => format!("timed out after {} s", timeout.as_secs()),
        }
    } else if reason == "out of memory" || reason.starts_with("budget too small") {
        reason
    } else if let Some(signal) = outcome.status.as_ref().and_then(exit_signal) {
        match signal {
            9 => "killed by SIGKILL (host out of memory?)".into(),
            6 => "aborted (SIGABRT)".into(),
            other => format!("killed by signal {other}"),
        }
    } else if outcome.panic.is_some() {
        format!("panicked: {reason}")
    } else {
        match outcome.status {
            Some(status) => format!("no result ({status})"),
            None => "no result (the child could not be waited for)".into(),
        }
    };
    (why, detail)
}

#[cfg(unix)]
pub fn exit_signal(status: &ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
pub fn exit_signal(_status: &ExitStatus) -> Option<i32> {
    None
}

/// Runs one case in a child and makes its row.
pub fn run_row(case: Case, options: &Options, search_probe: bool) -> Row {
    eprintln!("== {}", case.label());
    let timeout = Duration::from_secs(options.case_timeout);
    let mut outcome = run_case_in_child(&case, timeout);
    // A panic on any thread voids the result: CubeCL's runtime thread panics
    // when an allocation fails and carries on, computing with memory that is
    // not there (plain Autodiff has no watch of its own for that).
    if outcome.panic.is_some() {
        outcome.result = None;
    }
    let undecided = outcome.timed_out && outcome.panic.is_none() && outcome.result.is_none();
    let (why, detail) = match outcome.result {
        Some(_) => (None, None),
        None => {
            let (why, detail) = why_failed(&outcome, timeout);
            (Some(why), Some(detail))
        }
    };
    if let Some(why) = &why {
        eprintln!("== {}: {why}", case.label());
    }
    Row {
        input: case.input_label(),
        case,
        search_probe,
        result: outcome.result,
        why,
        detail,
        undecided,
        fits: None,
        wall_secs: outcome.wall_secs,
    }
}

/// Whether a probe fits: it completed its timed steps (under
/// `--device-memory`, the driver decided) and, with a search budget, its
/// peak device memory stayed within it (when the runtime reports memory).
pub fn fits(row: &Row, budget: Option<u64>) -> bool {
    match (&row.result, budget) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(m), Some(budget)) => m
            .memory
            .as_ref()
            .is_none_or(|mem| mem.peak_device_bytes <= budget),
    }
}

/// Largest batch of `model` under `policy` that fits (see [`fits`]): doubling from
/// `--search-start` to the first failure (or `--search-max`), then bisection to
/// 1/16 of the fitting batch ([`BatchSearch`]): each probe is a full child run,
/// minutes on a GPU.
pub fn search(
    options: &Options,
    model: ModelKind,
    image: ImageShape,
    policy: &str,
    rows: &mut Vec<Row>,
) -> Search {
    let budget = options.search_budget;
    // burn-swap's own budget: `--budget`, else the search budget.
    let swap_budget = options.budget.or(budget);
    let result = BatchSearch::new(options.search_start, options.search_max).run(|batch| {
        let mut row = run_row(
            options.case(model, image, policy, batch, swap_budget),
            options,
            true,
        );
        let ok = fits(&row, budget);
        row.fits = Some(ok);
        if let (false, None, Some(mem)) = (
            ok,
            &row.why,
            row.result.as_ref().and_then(|m| m.memory.as_ref()),
        ) {
            row.why = Some(format!(
                "peak {} MiB over the budget ({})",
                mib(mem.peak_device_bytes),
                mem.peak_device_basis
            ));
        }
        eprintln!(
            "== search {model} {policy}: batch {batch} {}",
            if ok { "fits" } else { "does not fit" }
        );
        let verdict = match ok {
            true => Verdict::Fits {
                samples_per_s: row.result.as_ref().map(|m| m.median_samples_per_s),
                settings: Vec::new(),
            },
            false => {
                let why = row.why.clone().unwrap_or_default();
                match row.undecided {
                    true => Verdict::Undecided { why },
                    false => Verdict::DoesNotFit { why },
                }
            }
        };
        rows.push(row);
        verdict
    });
    let input = options.case(model, image, policy, 1, None).input_label();
    let fit = result.largest_fitting;
    let at_largest = rows
        .iter()
        .rev()
        .filter(|r| r.search_probe && r.fits == Some(true) && Some(r.case.batch) == fit)
        .find(|r| r.case.model == model.name() && r.case.policy == policy)
        .and_then(|r| r.result.as_ref());
    Search {
        samples_per_s_at_largest: at_largest.map(|m| m.median_samples_per_s),
        peak_device_bytes_at_largest: at_largest
            .and_then(|m| m.memory.as_ref())
            .map(|mem| mem.peak_device_bytes),
        model: model.name().into(),
        input,
        policy: policy.into(),
        budget,
        device_memory: options.device_memory,
        probes: result
            .probes
            .iter()
            .map(|p| (p.batch, p.verdict.fits()))
            .collect(),
        largest_fitting_batch: fit,
        smallest_failing_batch: result.smallest_failing,
        undecided_batch: result.undecided,
    }
}
