//! Tables on stdout and the JSON report.

use std::path::PathBuf;

use burn_swap::SwapConfig;

use crate::args::Options;
use crate::case::{Measured, MemorySample, Row, Search};
use crate::common::median;

pub fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1u64 << 20) as f64)
}

/// Median samples/s of the `plain` row for the same model, input and batch.
pub fn plain_rate(rows: &[Row], row: &Row) -> Option<f64> {
    plain_of(rows, row).map(|m| m.median_samples_per_s)
}

/// The measured plain case of `row`'s model, input and batch.
fn plain_of<'a>(rows: &'a [Row], row: &Row) -> Option<&'a Measured> {
    rows.iter()
        .filter(|r| {
            r.case.policy == "plain"
                && r.case.model == row.case.model
                && r.input == row.input
                && r.case.batch == row.case.batch
        })
        .find_map(|r| r.result.as_ref())
}

/// Each case's losses against plain's, bit for bit over the steps both ran
/// (a case that warms up longer runs more steps, so its last loss differs).
pub fn print_losses(rows: &[Row]) {
    let compared: Vec<_> = rows
        .iter()
        .filter(|r| r.case.policy != "plain")
        .filter_map(|r| Some((r, r.result.as_ref()?, plain_of(rows, r)?)))
        .filter(|(_, m, plain)| !m.losses.is_empty() && !plain.losses.is_empty())
        .collect();
    if compared.is_empty() {
        return;
    }
    println!();
    println!("losses against plain's, bit for bit, over the steps both ran");
    for (row, m, plain) in compared {
        let shared = m.losses.len().min(plain.losses.len());
        let first_differing =
            (0..shared).find(|&i| m.losses[i].to_bits() != plain.losses[i].to_bits());
        let verdict = match first_differing {
            None => format!("the same over {shared} steps"),
            Some(i) => format!(
                "differs from step {}: {} against {}",
                i + 1,
                m.losses[i],
                plain.losses[i]
            ),
        };
        println!("  {:<40} {verdict}", row.case.label());
    }
}

pub fn print_table(rows: &[Row]) {
    println!(
        "{:<14} {:<16} {:<10} {:>6} {:>10} {:>8} {:>10} {:>9} {:>9} {:>9} {:>8}  why",
        "model",
        "input",
        "policy",
        "batch",
        "samples/s",
        "vs plain",
        "peak MiB",
        "grow MiB",
        "out MiB",
        "in MiB",
        "wait ms"
    );
    for row in rows {
        let m = row.result.as_ref();
        let rate = m.map_or("-".into(), |m| format!("{:.1}", m.median_samples_per_s));
        let ratio = match (m, plain_rate(rows, row)) {
            (Some(m), Some(plain)) => format!("{:.2}x", m.median_samples_per_s / plain),
            _ => "-".into(),
        };
        let peak = match m {
            Some(m) => m
                .memory
                .as_ref()
                .map_or("n/a".into(), |mem| mib(mem.peak_device_bytes)),
            None => "-".into(),
        };
        let swap = m.and_then(|m| m.swap.as_ref());
        let growth = swap
            .and_then(|s| s.iteration_growth_allocator.or(s.iteration_growth_in_use))
            .map_or("-".into(), mib);
        let out = swap.map_or("-".into(), |s| mib(s.swapped_out_bytes));
        let back = swap.map_or("-".into(), |s| mib(s.swapped_in_bytes));
        let wait = swap.map_or("-".into(), |s| {
            format!("{:.1}", s.swap_in_stalls.total_ns() as f64 / 1e6)
        });
        let mut why = row.why.clone().unwrap_or_default();
        if let Some(f) = m.and_then(|m| m.fusion_swaps).filter(|_| swap.is_some()) {
            why = format!(
                "{why} (fusion: {} moved/step, {} kept, taken {:.1} ops after asked, at most {}; {} polls and {:.1} ms of the training thread a step ({:.1} launching copies, {:.1} polling); {} rebuilt beside the training stream, {} still there)",
                mib(f.moved_bytes_per_step),
                f.kept_per_step,
                f.take_lag_ops_mean,
                f.take_lag_ops_max,
                f.polls_per_step,
                f.progress_ms_per_step,
                f.copy_launch_ms_per_step,
                f.poll_ms_per_step,
                f.rebuilt_per_step,
                f.rebuilds_not_needed_per_step
            );
        }
        if m.is_some_and(|m| !m.steady_before_timing) {
            why = "timed before the steady state (raise --max-warmup)".into();
        }
        match row.fits {
            Some(true) if m.is_some_and(|m| m.memory.is_none()) => {
                why = format!("fits (completed; no memory probe) {why}")
            }
            Some(true) => why = format!("fits {why}"),
            Some(false) => why = format!("no fit: {why}"),
            None => {}
        }
        println!(
            "{:<14} {:<16} {:<10} {:>6} {:>10} {:>8} {:>10} {:>9} {:>9} {:>9} {:>8}  {why}",
            row.case.model,
            row.input,
            row.case.policy,
            row.case.batch,
            rate,
            ratio,
            peak,
            growth,
            out,
            back,
            wait
        );
    }
}

/// Each case's median time to enqueue a timed step (waits for swapped
/// tensors included) and the time the device then took to drain its queue.
pub fn print_host_and_device(rows: &[Row]) {
    println!();
    println!("host and device per timed step (medians, ms): the host enqueues (and waits for swapped tensors), then the device drains its queue");
    for row in rows {
        let Some(m) = row.result.as_ref() else {
            continue;
        };
        let drain = m
            .step_secs
            .iter()
            .zip(&m.enqueue_secs)
            .map(|(step, enqueued)| step - enqueued);
        let waited = m
            .swap
            .as_ref()
            .map_or(0.0, |s| s.swap_in_stalls.total_ns() as f64 / 1e6);
        let reads = match m.swap.as_ref().map(|s| s.driver_reads) {
            Some((n, ms)) if n > 0 => format!("; {n} driver reads, {ms:.2} ms"),
            _ => String::new(),
        };
        let split = m.op_thread.map_or(String::new(), |t| {
            format!(
                "; in ops {:.2} in the backend's, {:.2} burn-swap's own: {:.2} swapping out, {:.2} prefetching, {:.2} swapping in, {:.2} rebuilding, {:.2} waiting for room, {:.2} moving offloads on, {:.2} giving memory back, {:.2} reading the driver",
                t.backend_ms_per_step,
                t.own_ms_per_step,
                t.swap_out_ms,
                t.prefetch_ms,
                t.swap_in_ms,
                t.rebuild_ms,
                t.budget_wait_ms,
                t.progress_ms,
                t.release_ms,
                t.driver_read_ms
            )
        });
        println!(
            "  {:<40} enqueue {:>7.2} (waited {:>5.2} in the last step{reads}{split}), drain {:>7.2}",
            row.case.label(),
            median(m.enqueue_secs.iter().copied()) * 1e3,
            waited,
            median(drain) * 1e3
        );
    }
}

/// What each case's plan did with the saved tensors, and how far the
/// evaluator's step was from the measured one (the median timed step).
pub fn print_plans(rows: &[Row]) {
    let plans: Vec<_> = rows
        .iter()
        .filter_map(|r| {
            let m = r.result.as_ref()?;
            Some((r, m, m.swap.as_ref()?.plan.as_ref()?))
        })
        .filter(|(_, _, plan)| plan.budget_bytes.is_some())
        .collect();
    if plans.is_empty() {
        return;
    }
    println!();
    println!("plans in the timed steps: saved tensors swapped, rebuilt, stood in for; the evaluator's step against the measured one");
    for (row, m, plan) in plans {
        let measured = median(m.step_secs.iter().copied());
        let evaluator = plan.predicted_step_secs.map_or(String::new(), |p| {
            format!(
                "; evaluator {:.1} ms against {:.1} ms ({:+.1}%)",
                p * 1e3,
                measured * 1e3,
                (p / measured - 1.0) * 100.0
            )
        });
        println!(
            "  {:<40} {} of {} swapped ({} MiB, {} compressed), {} rebuilt by running their op again (through {} forward freed), {} stood in for{evaluator}",
            row.case.label(),
            plan.swapped_count,
            plan.saved_tensors,
            mib(plan.swapped_bytes),
            plan.compressed_count,
            plan.rerun_count,
            plan.transient_count,
            plan.stand_in_count,
        );
        if let Some(verdict) = m.swap.as_ref().and_then(|s| s.plans_timed.as_ref()) {
            println!("    plan ({}): {verdict}", plan.policy);
        }
        if let Some(checks) = m.swap.as_ref().map(|s| &s.rebuild_checks) {
            if checks.compared > 0 {
                println!(
                    "    rebuilds compared with the tensors themselves in warm-up: {} ({} differed, {:.1} ms in all)",
                    checks.compared, checks.differed, checks.millis
                );
            }
        }
    }
}

/// Where each case's last timed iteration waited for tensors to come back:
/// how far ahead of its use each late copy was started, in ops.
pub fn print_waits(rows: &[Row]) {
    for row in rows {
        let Some(swap) = row.result.as_ref().and_then(|m| m.swap.as_ref()) else {
            continue;
        };
        if swap.waited_for.is_empty() {
            continue;
        }
        let backward = swap.backward_start.unwrap_or(swap.op_count);
        println!();
        println!(
            "{}: waited for {} tensors in the last timed step (ops {}, backward from op {backward}):",
            row.case.label(),
            swap.waited_for.len(),
            swap.op_count
        );
        for w in swap.waited_for.iter().take(12) {
            let ahead = match (w.prefetched_at, w.needed_at) {
                (Some(p), Some(n)) => {
                    format!("started {} ops ahead (at op {p})", n.saturating_sub(p))
                }
                _ => "loaded on demand".into(),
            };
            println!(
                "  {:>7.3} ms  {:>7} MiB made at op {:>4}, needed at op {:>4}, {ahead}",
                w.wait_ms,
                mib(w.bytes),
                w.produced_at,
                w.needed_at.map_or("-".into(), |n| n.to_string()),
            );
        }
    }
}

/// For `--memory-every`: each series' first, last and highest sample.
pub fn print_memory_series(rows: &[Row]) {
    let series: Vec<(&Row, &[MemorySample])> = rows
        .iter()
        .filter_map(|r| Some((r, r.result.as_ref()?.memory_series.as_slice())))
        .filter(|(_, s)| !s.is_empty())
        .collect();
    if series.is_empty() {
        return;
    }
    println!();
    println!("memory over the timed steps (MiB: first sample -> last sample, highest):");
    let span = |samples: &[MemorySample], get: &dyn Fn(&MemorySample) -> Option<u64>| {
        let values: Vec<u64> = samples.iter().filter_map(get).collect();
        match (values.first(), values.last(), values.iter().max()) {
            (Some(first), Some(last), Some(max)) => {
                format!("{} -> {}, {}", mib(*first), mib(*last), mib(*max))
            }
            _ => "-".into(),
        }
    };
    for (row, samples) in series {
        let steps = samples.last().map_or(0, |s| s.step);
        println!(
            "  {} ({} samples to step {steps}): device in use {}; reserved {}; driver {}; driver's pool unused {}; pinned reserved {}; pinned in use {}",
            row.case.label(),
            samples.len(),
            span(samples, &|s| Some(s.device_in_use)),
            span(samples, &|s| Some(s.device_reserved)),
            span(samples, &|s| s.driver_used),
            span(samples, &|s| s.pool_unused),
            span(samples, &|s| s.pinned_reserved),
            span(samples, &|s| s.pinned_in_use),
        );
    }
}

pub fn print_searches(searches: &[Search]) {
    println!();
    println!("largest batch that trained:");
    for s in searches {
        let probes: Vec<String> = s
            .probes
            .iter()
            .map(|(b, ok)| {
                let mark = match (ok, Some(*b) == s.undecided_batch) {
                    (true, _) => "+",
                    (false, true) => "?",
                    (false, false) => "-",
                };
                format!("{b}{mark}")
            })
            .collect();
        let mut within = Vec::new();
        if let Some(bytes) = s.device_memory {
            within.push(format!("device memory {} MiB", mib(bytes)));
        }
        if let Some(bytes) = s.budget {
            within.push(format!("search budget {} MiB", mib(bytes)));
        }
        let speed = s
            .samples_per_s_at_largest
            .map_or(String::new(), |v| format!(", {v:.1} samples/s"));
        let peak = s
            .peak_device_bytes_at_largest
            .map_or(String::new(), |v| format!(", peak {} MiB", mib(v)));
        println!(
            "  {} ({}) {}: {}{speed}{peak} ({}; probes {})",
            s.model,
            s.input,
            s.policy,
            s.largest_fitting_batch
                .map_or("none".into(), |b| b.to_string()),
            within.join(", "),
            probes.join(" ")
        );
    }
}

pub fn write_json(
    path: &PathBuf,
    args: &[String],
    options: &Options,
    rows: &[Row],
    searches: &[Search],
) -> std::io::Result<()> {
    let device = rows
        .iter()
        .find_map(|r| r.result.as_ref().map(|m| m.device_name.clone()));
    let report = serde_json::json!({
        "bench": "train",
        "device": device,
        "backend_features": if cfg!(feature = "cuda") { "cuda" } else if cfg!(feature = "wgpu") { "wgpu" } else { "flex" },
        "args": args,
        "options": {
            "models": options.models.iter().map(|(m, i)| format!("{m}@{i}")).collect::<Vec<_>>(),
            "batches": options.batches,
            "policies": options.policies,
            "steps": options.steps,
            "warmup": options.warmup,
            "max_warmup": options.max_warmup,
            "budget": options.budget,
            "min_swap": options.min_swap,
            "case_timeout_s": options.case_timeout,
            "search_budget": options.search_budget,
            "search_start": options.search_start,
            "search_max": options.search_max,
            "gpt": options.gpt,
            "swap_under_fusion": SwapConfig::from_env().swap_under_fusion,
            "unfused": options.unfused,
            "device_memory": options.device_memory,
        },
        "rows": rows,
        "searches": searches,
    });
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    // Written beside it and renamed: a run killed while writing leaves the
    // last whole report.
    let mut partial = path.clone().into_os_string();
    partial.push(".partial");
    std::fs::write(&partial, serde_json::to_string_pretty(&report)? + "\n")?;
    std::fs::rename(&partial, path)
}
