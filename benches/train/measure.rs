//! The child: runs one case, times its steps, prints one result line.

use std::time::Instant;

use burn::backend::Autodiff;
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn_autodiff::checkpoint::strategy::BalancedCheckpointing;
use burn_swap::config::policy_by_name;
use burn_swap::transfer::{device_usage, DeviceUsage};
use burn_swap::{SwapAutodiff, SwapConfig};
use burn_swap_models::Trainer;
use serde::{Deserialize, Serialize};

use crate::case::{
    Case, Measured, MemoryPeak, MemorySample, PlanSummary, PolicyRun, RebuildChecks, SwapStats,
    WaitedTensor, PANIC_TAG, RESULT_TAG,
};
use crate::common::median;
use crate::report::mib;
use crate::{Device, DeviceOf};

/// CubeCL's CUDA backend without fusion (`--unfused`): swapping there is
/// bit-identical, while under fusion it is opt-in.
#[cfg(feature = "cuda")]
pub type Unfused = burn_cubecl::CubeBackend<cubecl::cuda::CudaRuntime, f32, i32, u8>;

pub fn run_child(case_json: &str) {
    install_panic_reporter();
    let case: Case = serde_json::from_str(case_json).expect("the parent writes a valid case");
    #[cfg(feature = "cuda")]
    let measured = if case.unfused {
        run_policy::<Unfused>(&case)
    } else {
        run_policy::<Device>(&case)
    };
    #[cfg(not(feature = "cuda"))]
    let measured = run_policy::<Device>(&case);
    println!(
        "{RESULT_TAG}{}",
        serde_json::to_string(&measured).expect("serialisable")
    );
}

pub fn run_policy<I: Backend<Device = DeviceOf>>(case: &Case) -> Measured {
    match PolicyRun::from_name(&case.policy).expect("the parent checked the policy") {
        PolicyRun::Plain => measure::<Autodiff<I>>(case, &|| true),
        PolicyRun::Balanced => measure::<Autodiff<I, BalancedCheckpointing>>(case, &|| true),
        PolicyRun::BurnSwap(name) => {
            // `BURN_SWAP_*` variables (pinned pool, prefetch lookahead,
            // a budget where the case gives none) apply; the case sets the
            // rest.
            let mut config = SwapConfig::from_env();
            config.min_swap_bytes = case.min_swap;
            config.policy = policy_by_name(&name).expect("checked by the parent");
            if case.budget.is_some() {
                config.budget_bytes = case.budget;
            }
            burn_swap::configure(config);
            // The plans timed on the device are decided in one warm-up step.
            let plans_timed = std::cell::RefCell::new(None);
            // Rebuilds are compared with their tensors in the first steps
            // that follow a plan.
            let checks = std::cell::RefCell::new(RebuildChecks::default());
            let ready = || {
                if let Some(report) = burn_swap::last_iteration() {
                    checks.borrow_mut().add(&report);
                    if let Some(verdict) = report.plans_timed {
                        *plans_timed.borrow_mut() = Some(verdict);
                    }
                }
                last_step_followed_plan()
            };
            let mut measured = measure::<SwapAutodiff<I>>(case, &ready);
            let mut stats = swap_stats();
            stats.plans_timed = plans_timed.take();
            stats.rebuild_checks = checks.take();
            // With exact allocations the driver gets memory back between
            // steps, so a sample after a step is not the peak: the samples
            // burn-swap took inside the last iteration (every op with
            // BURN_SWAP_DEVICE_SAMPLE_OPS=1 BURN_SWAP_DEVICE_SAMPLE_PLANNED=1)
            // count too.
            if let (Some(mem), Some(peak)) =
                (&mut measured.memory, stats.iteration_peak_driver_used)
            {
                if let Some(before) = mem.start.driver_used {
                    let inside = peak.saturating_sub(before).saturating_sub(mem.held);
                    mem.peak_device_bytes = mem.peak_device_bytes.max(inside);
                    mem.peak_driver_used = mem.peak_driver_used.max(Some(peak));
                }
            }
            measured.swap = Some(stats);
            if let Some(dir) = &case.profiles {
                let dir = dir.join(case.file_stem());
                match burn_swap::profiler::write_run(&dir, case.budget, case.device_memory) {
                    Ok(Some(_)) => eprintln!("wrote {}", dir.display()),
                    Ok(None) => {}
                    Err(err) => eprintln!("could not write {}: {err}", dir.display()),
                }
            }
            measured
        }
    }
}

/// Reports a panic's message on stdout, where the parent looks for it (the
/// default hook still prints it, with its location, to stderr).
pub fn install_panic_reporter() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic with a non-text payload".into());
        println!(
            "{PANIC_TAG}{}",
            serde_json::to_string(&message).unwrap_or_default()
        );
        default_hook(info);
    }));
}

/// Whether the last iteration ran under a plan made from an earlier one.
/// burn-swap profiles iteration 0, plans, and plans again whenever an
/// iteration's ops differ from the plan's (iteration 0 also makes the
/// parameters, so iteration 1 is planned again and iteration 2 is the first
/// to follow the plan), so this tells when the timed steps will measure the
/// plan rather than profiling. A step that compared rebuilds with their
/// tensors is not one either: it reads both back, and a tensor waiting for
/// its comparison is not rebuilt yet (ResNet-50 b48 at 3.1 GiB on an H200:
/// `superneurons`, timed after 12 warm-up steps while still comparing, ran
/// at 0.73x of plain; the same plan under `home`, after 52, at 0.86x).
pub fn last_step_followed_plan() -> bool {
    // A step that planned again (with the measured step time) ends with a
    // new plan: the next one is the first to follow it.
    burn_swap::last_iteration().is_some_and(|r| {
        r.followed_plan && r.planning.is_none() && !r.trying_plans && r.rebuilds_checked == 0
    })
}

/// Warms up, then times `case.steps` training steps of `B`. Warm-up ends
/// when two consecutive steps are within 10% of each other, at least
/// `case.warmup` steps ran and `ready()` says the backend is in its steady
/// state; or after `case.max_warmup` steps whatever the timings.
pub fn measure<B: AutodiffBackend<Device = DeviceOf>>(
    case: &Case,
    ready: &dyn Fn() -> bool,
) -> Measured {
    let device = DeviceOf::default();
    // The backend the case ran on (`--unfused` is not `Device`'s fusion).
    let device_name = if case.unfused {
        "CubeCL CUDA without fusion".to_string()
    } else {
        <Device as Backend>::name(&device)
    };
    let backend_name = <B as Backend>::name(&device);
    let start_usage = device_usage::<Device>(&device);
    let hold = hold_device_memory(case, &device);
    let held = hold.as_ref().map_or(0, |h| h.held_bytes());
    B::seed(&device, 42);
    let spec = case.spec();
    let mut trainer = Trainer::new(spec.init::<B>(&device), 1e-3);
    // One batch for every step: the benchmark times training, not data
    // generation on the host (which at ImageNet sizes would dominate on CPU).
    let batch = spec.synthetic_batch::<B>(case.batch, 0, &device);
    let mut peak = start_usage.map(|u| (u, u));
    let label = case.label();

    // A step's seconds, the seconds until its ops were all enqueued (the
    // rest is the device draining its queue: where that is near zero, the
    // host, not the device, sets the pace), its loss, and its memory where
    // sampled.
    let mut step = |phase: &str, n: usize| -> (f64, f64, f32, Option<MemorySample>) {
        let start = Instant::now();
        let loss = trainer.step(&batch);
        let enqueued = start.elapsed().as_secs_f64();
        B::sync(&device).expect("device sync after a step");
        let secs = start.elapsed().as_secs_f64();
        let loss: f32 = burn::tensor::ElementConversion::elem(loss.into_scalar());
        if let (Some((_, max)), Some(now)) = (peak.as_mut(), device_usage::<Device>(&device)) {
            max.in_use = max.in_use.max(now.in_use);
            max.reserved = max.reserved.max(now.reserved);
            max.driver_used = max.driver_used.max(now.driver_used);
        }
        eprintln!(
            "  [{label}] {phase} {n}: {:.3} s, {:.1} samples/s, loss {loss:.4}",
            secs,
            case.batch as f64 / secs
        );
        // Every step sampled says its memory as it ends, warm-up too: a
        // run that fails leaves how its memory went in its log.
        let sample = (case.memory_every > 0 && (n == 1 || n.is_multiple_of(case.memory_every)))
            .then(|| memory_sample(n, &device))
            .flatten();
        if let Some(s) = &sample {
            eprintln!("  [{label}] {phase} {n} memory: {}", memory_line(s));
        }
        (secs, enqueued, loss, sample)
    };

    let mut warmup_secs: Vec<f64> = Vec::new();
    let mut losses = Vec::new();
    // The previous step's time, if it already ran in the steady state: only
    // two steady steps are compared (a profiling step is no reference).
    let mut previous_ready: Option<f64> = None;
    while warmup_secs.len() < case.max_warmup.max(case.warmup) {
        let (secs, _, loss, _) = step("warm-up", warmup_secs.len() + 1);
        warmup_secs.push(secs);
        losses.push(loss);
        let now_ready = ready();
        let settled = now_ready
            && previous_ready.is_some_and(|prev| (secs - prev).abs() <= 0.10 * secs.min(prev));
        previous_ready = now_ready.then_some(secs);
        if warmup_secs.len() >= case.warmup && settled {
            break;
        }
    }
    let ready_when_timed = ready();
    let fusion_before = fusion_swap_stats();
    let op_thread_before = burn_swap::decorator::op_thread_time();
    let mut step_secs = Vec::new();
    let mut enqueue_secs = Vec::new();
    let mut final_loss = f32::NAN;
    let mut memory_series = Vec::new();
    for n in 1..=case.steps {
        let (secs, enqueued, loss, sample) = step("step", n);
        step_secs.push(secs);
        enqueue_secs.push(enqueued);
        final_loss = loss;
        losses.push(loss);
        memory_series.extend(sample);
    }

    Measured {
        device_name,
        backend_name,
        median_samples_per_s: median(step_secs.iter().map(|s| case.batch as f64 / s)),
        mean_samples_per_s: (case.batch * step_secs.len()) as f64 / step_secs.iter().sum::<f64>(),
        warmup_secs,
        step_secs,
        enqueue_secs,
        final_loss,
        losses,
        memory: peak.map(|(start, max)| memory_peak(start, max, held)),
        steady_before_timing: ready_when_timed,
        swap: None,
        memory_series,
        fusion_swaps: fusion_swaps_since(fusion_before, case.steps),
        op_thread: op_thread_since(op_thread_before, case.steps),
    }
}

/// The training thread's time in a timed step's ops, as burn-swap's
/// decorator splits it (`None` for the baselines, which it does not see).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct OpThread {
    /// In burn-swap's own work around the ops (moves and waits included).
    pub own_ms_per_step: f64,
    /// In the inner backend's op calls.
    pub backend_ms_per_step: f64,
    /// Of the own time: starting copies to the host, starting them back,
    /// taking tensors back when read, rebuilding, waiting for room, moving
    /// offloads on.
    pub swap_out_ms: f64,
    pub prefetch_ms: f64,
    pub swap_in_ms: f64,
    pub rebuild_ms: f64,
    pub budget_wait_ms: f64,
    pub progress_ms: f64,
    /// Giving free buffers back, and reading the driver's memory count.
    #[serde(default)]
    pub release_ms: f64,
    #[serde(default)]
    pub driver_read_ms: f64,
}

fn op_thread_since(before: burn_swap::decorator::OpThreadTime, steps: usize) -> Option<OpThread> {
    let after = burn_swap::decorator::op_thread_time();
    let t = after.since(&before);
    let ms = |ns: u64| ns as f64 / 1e6 / steps.max(1) as f64;
    (after != before).then(|| OpThread {
        own_ms_per_step: ms(t.own_ns),
        backend_ms_per_step: ms(t.backend_ns),
        swap_out_ms: ms(t.swap_out_ns),
        prefetch_ms: ms(t.prefetch_ns),
        swap_in_ms: ms(t.swap_in_ns),
        rebuild_ms: ms(t.rebuild_ns),
        budget_wait_ms: ms(t.budget_wait_ns),
        progress_ms: ms(t.progress_ns),
        release_ms: ms(t.release_ns),
        driver_read_ms: ms(t.driver_read_ns),
    })
}

/// What burn-swap really moved under burn's fusion in the timed steps
/// (an offload there waits for the ops before it to run; one asked back
/// first stays on the device).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct FusionSwaps {
    pub moved_bytes_per_step: u64,
    pub moved_per_step: u64,
    pub kept_per_step: u64,
    /// Mean ops between an offload's request and fusion handing the buffer over.
    #[serde(default)]
    pub take_lag_ops_mean: f64,
    #[serde(default)]
    pub take_lag_ops_max: u64,
    /// Polls on fusion's server for offloads still waiting for their ops.
    #[serde(default)]
    pub polls_per_step: u64,
    /// Training-thread time a step spent moving pending offloads on.
    #[serde(default)]
    pub progress_ms_per_step: f64,
    /// Of it, launching the copies of taken buffers.
    #[serde(default)]
    pub copy_launch_ms_per_step: f64,
    /// Of it, registering polls.
    #[serde(default)]
    pub poll_ms_per_step: f64,
    /// Tensors rebuilt beside the training stream, a step.
    #[serde(default)]
    pub rebuilt_per_step: u64,
    /// Tensors freed for a rebuild still in fusion when needed, a step.
    #[serde(default)]
    pub rebuilds_not_needed_per_step: u64,
}

#[cfg(any(feature = "cuda", feature = "wgpu"))]
pub fn fusion_swap_stats() -> Option<burn_swap::transfer::FusionSwapStats> {
    Some(burn_swap::transfer::fusion_swap_stats())
}

#[cfg(any(feature = "cuda", feature = "wgpu"))]
pub fn fusion_swaps_since(
    before: Option<burn_swap::transfer::FusionSwapStats>,
    steps: usize,
) -> Option<FusionSwaps> {
    let (before, after) = (before?, fusion_swap_stats()?);
    let steps = steps.max(1) as u64;
    Some(FusionSwaps {
        moved_bytes_per_step: (after.moved_bytes - before.moved_bytes) / steps,
        moved_per_step: (after.moved - before.moved) / steps,
        kept_per_step: (after.kept - before.kept) / steps,
        take_lag_ops_mean: (after.take_lag_ops - before.take_lag_ops) as f64
            / (after.moved - before.moved).max(1) as f64,
        take_lag_ops_max: after.take_lag_ops_max,
        polls_per_step: (after.polls - before.polls) / steps,
        progress_ms_per_step: (after.progress_ns - before.progress_ns) as f64 / 1e6 / steps as f64,
        copy_launch_ms_per_step: (after.copy_launch_ns - before.copy_launch_ns) as f64
            / 1e6
            / steps as f64,
        poll_ms_per_step: (after.poll_ns - before.poll_ns) as f64 / 1e6 / steps as f64,
        rebuilt_per_step: (after.rebuilt - before.rebuilt) / steps,
        rebuilds_not_needed_per_step: (after.rebuilds_not_needed - before.rebuilds_not_needed)
            / steps,
    })
}

#[cfg(not(any(feature = "cuda", feature = "wgpu")))]
pub fn fusion_swap_stats() -> Option<()> {
    None
}

#[cfg(not(any(feature = "cuda", feature = "wgpu")))]
pub fn fusion_swaps_since(_: Option<()>, _: usize) -> Option<FusionSwaps> {
    None
}

/// `--device-memory`: all but that many bytes of the device, held until the
/// case ends.
#[cfg(feature = "cuda")]
pub fn hold_device_memory(
    case: &Case,
    device: &DeviceOf,
) -> Option<burn_swap::transfer::cuda::DeviceHold> {
    let bytes = case.device_memory?;
    let hold = burn_swap::transfer::cuda::DeviceHold::all_but(device, bytes)
        .unwrap_or_else(|err| panic!("--device-memory: {err}"));
    eprintln!(
        "  [{}] holding {} MiB of device memory: {} MiB left for the run",
        case.label(),
        mib(hold.held_bytes()),
        mib(bytes)
    );
    Some(hold)
}

/// Only CUDA builds can hold device memory (the parent checks).
#[cfg(not(feature = "cuda"))]
pub fn hold_device_memory(_case: &Case, _device: &DeviceOf) -> Option<NoHold> {
    None
}

#[cfg(not(feature = "cuda"))]
pub struct NoHold;

#[cfg(not(feature = "cuda"))]
impl NoHold {
    pub fn held_bytes(&self) -> u64 {
        0
    }
}

pub fn memory_peak(start: DeviceUsage, max: DeviceUsage, held: u64) -> MemoryPeak {
    let (peak_device_bytes, basis) = match (start.driver_used, max.driver_used) {
        (Some(before), Some(peak)) => (
            peak.saturating_sub(before).saturating_sub(held),
            "driver_used growth",
        ),
        _ => (max.reserved, "runtime reserved"),
    };
    MemoryPeak {
        start,
        held,
        peak_in_use: max.in_use,
        peak_reserved: max.reserved,
        peak_driver_used: max.driver_used,
        peak_device_bytes,
        peak_device_basis: basis.into(),
    }
}

/// burn-swap's profile of the last iteration and the plan it applied.
pub fn swap_stats() -> SwapStats {
    let profile = burn_swap::last_profile().expect("the timed steps ran backward");
    let device = profile.device.as_ref();
    SwapStats {
        swapped_out_bytes: profile.swapped_out_bytes,
        swapped_in_bytes: profile.swapped_in_bytes,
        saved_bytes: profile.saved_bytes,
        saved_count: profile.saved_count,
        peak_resident_saved_bytes: profile.peak_resident_saved_bytes,
        peak_live_bytes: profile.peak_live_bytes,
        start_live_bytes: profile.start_live_bytes,
        swap_in_stalls: profile.swap_in_stalls,
        iteration_peak_in_use: device.map(|d| d.peak_in_use),
        iteration_growth_in_use: device.map(|d| d.peak_growth()),
        iteration_growth_allocator: device.and_then(|d| d.allocator_growth()),
        iteration_peak_reserved: device.map(|d| d.peak_reserved),
        iteration_peak_driver_used: device.and_then(|d| d.peak_driver_used),
        plan: burn_swap::current_plan().map(|plan| PlanSummary {
            policy: plan.policy.clone(),
            from_iteration: plan.iteration,
            saved_tensors: plan.saved_count(),
            swapped_count: plan.swapped_count(),
            swapped_bytes: plan.swapped_bytes(),
            compressed_count: plan.compressed_count(),
            rerun_count: plan.rerun_count(),
            stand_in_count: plan.stand_in_count(),
            transient_count: plan.transient_count(),
            predicted_step_secs: plan.predicted.as_ref().map(|p| p.iteration_ns / 1e9),
            expected_peak_bytes: plan.expected_peak_bytes,
            unseen_bytes: plan.unseen_bytes,
            expected_peak_saved_bytes: plan.expected_peak_saved_bytes,
            keep_all_peak_saved_bytes: plan.keep_all_peak_saved_bytes,
            budget_bytes: plan.budget_bytes,
        }),
        waited_for: waited_for(&profile),
        compressed: {
            let stats = burn_swap::transfer::compression_stats();
            (stats.tensors, stats.bytes, stats.compressed_bytes)
        },
        op_count: profile.op_count,
        backward_start: profile.backward_start,
        driver_reads: burn_swap::last_iteration().map_or((0, 0.0), |r| {
            (r.driver_reads, r.driver_read_time.as_secs_f64() * 1e3)
        }),
        plans_timed: None,
        rebuild_checks: RebuildChecks::default(),
        status_error: burn_swap::status().err().map(|e| e.to_string()),
    }
}

pub fn waited_for(profile: &burn_swap::Profile) -> Vec<WaitedTensor> {
    let mut waited: Vec<WaitedTensor> = profile
        .tensors
        .iter()
        .filter(|t| t.swap_in_wait_ns > 0)
        .map(|t| WaitedTensor {
            produced_at: t.key.op,
            bytes: t.bytes,
            prefetched_at: t.loaded_at.first().copied(),
            needed_at: t.first_backward_use,
            wait_ms: t.swap_in_wait_ns as f64 / 1e6,
        })
        .collect();
    waited.sort_by(|a, b| b.wait_ms.total_cmp(&a.wait_ms));
    waited
}

/// A sample in words (MiB).
fn memory_line(s: &MemorySample) -> String {
    let some = |b: Option<u64>| b.map_or("-".to_string(), mib);
    format!(
        "in use {}, runtime's pools {}, driver {}, driver's pool unused {}, pinned {}",
        mib(s.device_in_use),
        mib(s.device_reserved),
        some(s.driver_used),
        some(s.pool_unused),
        some(s.pinned_reserved)
    )
}

pub fn memory_sample(step: usize, device: &DeviceOf) -> Option<MemorySample> {
    let usage = device_usage::<Device>(device)?;
    #[cfg(feature = "cuda")]
    let pinned = burn_swap::transfer::pinned_pool_stats(device).map(|p| (p.reserved, p.in_use));
    #[cfg(not(feature = "cuda"))]
    let pinned: Option<(u64, u64)> = None;
    #[cfg(feature = "cuda")]
    let pool_unused = burn_swap::transfer::driver_pool_unused(device);
    #[cfg(not(feature = "cuda"))]
    let pool_unused: Option<u64> = None;
    Some(MemorySample {
        step,
        device_in_use: usage.in_use,
        device_reserved: usage.reserved,
        driver_used: usage.driver_used,
        pinned_reserved: pinned.map(|p| p.0),
        pinned_in_use: pinned.map(|p| p.1),
        pool_unused,
    })
}
