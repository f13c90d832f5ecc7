//! End-to-end training benchmark: model x policy x batch size, each case in
//! its own child process.
//!
//! ```text
//! cargo bench --bench train -- --models plain20 --batches 8,32            # Flex (CPU)
//! cargo bench --features cuda --bench train -- --models vgg16,resnet50@imagenet \
//!     --batches 512,2048 --policies plain,balanced,keep-all,swap-all --json train.json
//! cargo bench --features cuda --bench train -- --models vgg16 --search-budget 8GiB
//! ```
//!
//! A policy is either a baseline backend (`plain` = `Autodiff<B>`, `balanced`
//! = `Autodiff<B, BalancedCheckpointing>`) or any name
//! `burn_swap::config::policy_by_name` knows, run under `SwapAutodiff<B>`: a
//! new burn-swap policy is benchmarked by naming it, nothing here changes.
//!
//! Every case runs in a child process (this binary re-executed with a hidden
//! `--case JSON` argument) so that one policy's memory (pools, pinned host
//! buffers) cannot help or hurt the next, and so that an out-of-memory error,
//! a panic or a hang becomes a row with a reason instead of ending the run.
//! The child prints one result line; the parent kills it after
//! `--case-timeout` seconds. CubeCL's autotune cache on disk is shared by the
//! children, so each shape is tuned once per machine.
//!
//! Options (run with `--help` for the list): `--models`, `--image`,
//! `--batches`, `--policies`, `--steps`, `--warmup`, `--max-warmup`,
//! `--budget`, `--min-swap`, `--case-timeout`, `--search-budget`,
//! `--search-start`, `--search-max`, `--gpt`, `--gpt-layers`, `--gpt-seq`,
//! `--json`; on CUDA `--unfused` (every policy on CubeCL's backend without
//! burn's fusion). `BURN_SWAP_UNDER_FUSION=0` leaves fusion tensors on the
//! device.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use burn::backend::Autodiff;
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn_autodiff::checkpoint::strategy::BalancedCheckpointing;
use burn_swap::config::{parse_bytes, policy_by_name};
use burn_swap::transfer::{device_usage, DeviceUsage};
use burn_swap::{SwapAutodiff, SwapConfig};
use burn_swap_models::{GptConfig, ImageShape, ModelKind, ModelSpec, Trainer};
use serde::{Deserialize, Serialize};

#[cfg(feature = "cuda")]
type Device = burn::backend::Cuda;
#[cfg(all(feature = "wgpu", not(feature = "cuda")))]
type Device = burn::backend::Wgpu;
#[cfg(not(any(feature = "cuda", feature = "wgpu")))]
type Device = burn::backend::Flex;

/// The device type of `Device` (what every benchmarked backend runs on).
type DeviceOf = <Device as burn::tensor::backend::BackendTypes>::Device;

/// Marks the child's result line on its stdout.
const RESULT_TAG: &str = "@@train-bench-result ";
/// Marks a panic message the child reports on its stdout.
const PANIC_TAG: &str = "@@train-bench-panic ";
/// Lines of the child's stderr kept to explain a crash that was not a panic.
const STDERR_TAIL: usize = 40;

const USAGE: &str = "usage: train [--models NAME[@cifar|@imagenet],...] [--image cifar|imagenet]
       [--batches N,...] [--policies plain,balanced,keep-all,swap-all,...]
       [--steps N] [--warmup N] [--max-warmup N] [--budget BYTES] [--min-swap BYTES]
       [--case-timeout SECS] [--search-budget BYTES [--search-start N] [--search-max N]]
       [--gpt small|tiny] [--gpt-layers N] [--gpt-seq N] [--json PATH]
       [--unfused (CUDA builds)]
       [--device-memory BYTES (CUDA builds: hold all but BYTES of the device)] [--search]
       [--memory-every K (sample device and pinned memory every K timed steps)]";

// ---------------------------------------------------------------------------
// What a case is, and what a child reports back.
// ---------------------------------------------------------------------------

/// The decoder size, carried to the child (GptConfig itself is not serde).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct GptSize {
    layers: usize,
    width: usize,
    heads: usize,
    seq: usize,
    vocab: usize,
}

impl GptSize {
    fn from_config(c: GptConfig) -> Self {
        Self {
            layers: c.layers,
            width: c.width,
            heads: c.heads,
            seq: c.seq,
            vocab: c.vocab,
        }
    }

    fn config(&self) -> GptConfig {
        GptConfig {
            layers: self.layers,
            width: self.width,
            heads: self.heads,
            seq: self.seq,
            vocab: self.vocab,
            ..GptConfig::small()
        }
    }
}

/// One benchmark case: everything the child needs to run it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Case {
    model: String,
    image: String,
    policy: String,
    batch: usize,
    steps: usize,
    warmup: usize,
    max_warmup: usize,
    /// Device budget (bytes one iteration may add), for burn-swap policies that plan
    /// against one (all but keep-all).
    budget: Option<u64>,
    min_swap: u64,
    gpt: GptSize,
    /// On CUDA: CubeCL's backend without fusion instead of `Cuda`.
    unfused: bool,
    /// Sample device and pinned memory every this many timed steps (0: never).
    #[serde(default)]
    memory_every: usize,
    /// On CUDA: hold all but this many bytes of the device before the model
    /// is built, so the driver runs out of memory where a smaller card would.
    #[serde(default)]
    device_memory: Option<u64>,
}

impl Case {
    fn kind(&self) -> ModelKind {
        self.model
            .parse()
            .expect("the parent checked the model name")
    }

    fn spec(&self) -> ModelSpec {
        let image: ImageShape = self
            .image
            .parse()
            .expect("the parent checked the image shape");
        ModelSpec::new(self.kind())
            .with_image(image)
            .with_gpt(self.gpt.config())
    }

    /// What the model's input looks like, for the table.
    fn input_label(&self) -> String {
        match self.kind() {
            ModelKind::GptSmall => {
                format!("{}x{} seq{}", self.gpt.layers, self.gpt.width, self.gpt.seq)
            }
            kind if kind.takes_image_shape() => self.image.clone(),
            _ => "-".into(),
        }
    }

    fn label(&self) -> String {
        format!(
            "{} ({}) {} b{}",
            self.model,
            self.input_label(),
            self.policy,
            self.batch
        )
    }
}

/// Peak device memory over the steps, from the runtime.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct MemoryPeak {
    /// Usage sampled before the model was built (runtime already started).
    start: DeviceUsage,
    /// Bytes held by `--device-memory` (counted in the driver's figures).
    #[serde(default)]
    held: u64,
    peak_in_use: u64,
    peak_reserved: u64,
    peak_driver_used: Option<u64>,
    /// The figure a batch must keep within a search budget: growth of the
    /// driver's used memory since `start` (less the bytes held by
    /// `--device-memory`) when the driver says, else the runtime pools' peak
    /// reservation.
    peak_device_bytes: u64,
    peak_device_basis: String,
}

/// The plan burn-swap applied in the timed steps.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PlanSummary {
    policy: String,
    from_iteration: u64,
    saved_tensors: usize,
    swapped_count: usize,
    swapped_bytes: u64,
    /// The iteration's device bytes the plan expects at its peak.
    #[serde(default)]
    expected_peak_bytes: u64,
    expected_peak_saved_bytes: u64,
    keep_all_peak_saved_bytes: u64,
    budget_bytes: Option<u64>,
}

/// burn-swap's own account of the last timed iteration.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SwapStats {
    swapped_out_bytes: u64,
    swapped_in_bytes: u64,
    saved_bytes: u64,
    saved_count: usize,
    peak_resident_saved_bytes: u64,
    peak_live_bytes: u64,
    /// Where the compute thread waited for tensors to come back.
    #[serde(default)]
    swap_in_stalls: burn_swap::SwapInStalls,
    /// Device memory sampled inside the iteration by burn-swap (catches the
    /// peak between two steps, which the per-step samples cannot).
    iteration_peak_in_use: Option<u64>,
    /// Peak growth of device memory in use over the iteration's first
    /// sample, from the runtime: the figure the budget is held against.
    #[serde(default)]
    iteration_growth_in_use: Option<u64>,
    iteration_peak_reserved: Option<u64>,
    iteration_peak_driver_used: Option<u64>,
    plan: Option<PlanSummary>,
    /// The tensors the compute thread waited for, longest wait first.
    #[serde(default)]
    waited_for: Vec<WaitedTensor>,
    /// Ops in the iteration, and where backward began (to place the waits).
    #[serde(default)]
    op_count: u32,
    #[serde(default)]
    backward_start: Option<u32>,
    /// Set when planning failed and burn-swap went on keeping everything.
    status_error: Option<String>,
}

/// A saved tensor whose return held up the compute thread.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct WaitedTensor {
    /// The op that made it, and its size.
    produced_at: u32,
    bytes: u64,
    /// The op before which its copy back was started (none: loaded on demand).
    prefetched_at: Option<u32>,
    /// Its first backward use.
    needed_at: Option<u32>,
    wait_ms: f64,
}

/// What a child measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Measured {
    /// `Backend::name` of the device backend (`Device`).
    device_name: String,
    /// `Backend::name` of the benchmarked (autodiff) backend.
    backend_name: String,
    warmup_secs: Vec<f64>,
    step_secs: Vec<f64>,
    /// Per timed step: seconds until the host had enqueued it (including
    /// any wait for swapped tensors); the rest of the step is the device
    /// draining its queue.
    #[serde(default)]
    enqueue_secs: Vec<f64>,
    median_samples_per_s: f64,
    /// Samples over the total time of the timed steps.
    mean_samples_per_s: f64,
    final_loss: f32,
    /// Whether warm-up reached the steady state before the timed steps
    /// (for burn-swap: the last warm-up step followed a plan); false when
    /// `--max-warmup` ended it first.
    steady_before_timing: bool,
    /// `None` where the runtime does not report memory (Flex).
    memory: Option<MemoryPeak>,
    /// `None` for the baseline backends.
    swap: Option<SwapStats>,
    /// Under burn's fusion: what was really moved.
    #[serde(default)]
    fusion_swaps: Option<FusionSwaps>,
    /// Memory every `--memory-every` timed steps: flat when nothing leaks.
    #[serde(default)]
    memory_series: Vec<MemorySample>,
}

/// Device and pinned host memory after a timed step.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct MemorySample {
    step: usize,
    device_in_use: u64,
    device_reserved: u64,
    driver_used: Option<u64>,
    /// burn-swap's pinned pool (CUDA engine), once it was made.
    pinned_reserved: Option<u64>,
    pinned_in_use: Option<u64>,
}

fn memory_sample(step: usize, device: &DeviceOf) -> Option<MemorySample> {
    let usage = device_usage::<Device>(device)?;
    #[cfg(feature = "cuda")]
    let pinned = burn_swap::transfer::pinned_pool_stats(device).map(|p| (p.reserved, p.in_use));
    #[cfg(not(feature = "cuda"))]
    let pinned: Option<(u64, u64)> = None;
    Some(MemorySample {
        step,
        device_in_use: usage.in_use,
        device_reserved: usage.reserved,
        driver_used: usage.driver_used,
        pinned_reserved: pinned.map(|p| p.0),
        pinned_in_use: pinned.map(|p| p.1),
    })
}

/// One row of the report: a case and its outcome.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Row {
    case: Case,
    input: String,
    /// Whether this case was a probe of the largest-batch search.
    search_probe: bool,
    result: Option<Measured>,
    /// Why there is no result: "out of memory", "timed out after 300 s", ...
    why: Option<String>,
    /// The panic message or stderr lines behind `why`.
    detail: Option<String>,
    /// For search probes: whether the batch fits the search budget.
    fits: Option<bool>,
    wall_secs: f64,
}

/// The outcome of one largest-batch search.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Search {
    model: String,
    input: String,
    policy: String,
    /// The search budget, if any.
    budget: Option<u64>,
    /// `--device-memory`, if set: the memory the run had.
    #[serde(default)]
    device_memory: Option<u64>,
    /// (batch, fits) in the order probed.
    probes: Vec<(usize, bool)>,
    largest_fitting_batch: Option<usize>,
    smallest_failing_batch: Option<usize>,
    /// Median samples/s and peak device MiB of the largest fitting batch.
    #[serde(default)]
    samples_per_s_at_largest: Option<f64>,
    #[serde(default)]
    peak_device_bytes_at_largest: Option<u64>,
}

// ---------------------------------------------------------------------------
// Policies.
// ---------------------------------------------------------------------------

/// How a policy name is run.
enum PolicyRun {
    /// `Autodiff<Device>`.
    Plain,
    /// `Autodiff<Device, BalancedCheckpointing>`.
    Balanced,
    /// `SwapAutodiff<Device>` with this burn-swap policy name.
    BurnSwap(String),
}

impl PolicyRun {
    fn from_name(name: &str) -> Result<Self, String> {
        match name {
            "plain" => Ok(PolicyRun::Plain),
            "balanced" => Ok(PolicyRun::Balanced),
            other => policy_by_name(other)
                .map(|_| PolicyRun::BurnSwap(other.to_string()))
                .map_err(|e| e.to_string()),
        }
    }
}

/// Whether a burn-swap policy plans against a budget. keep-all is the
/// unmanaged reference: given a budget it could only fail, never act on it.
fn policy_takes_budget(name: &str) -> bool {
    policy_by_name(name)
        .map(|p| p.name() != "keep-all")
        .unwrap_or(false)
}

// ---------------------------------------------------------------------------
// The child: run one case, print one result line.
// ---------------------------------------------------------------------------

/// CubeCL's CUDA backend without fusion (`--unfused`): swapping there is
/// bit-identical, while under fusion it is opt-in.
#[cfg(feature = "cuda")]
type Unfused = burn_cubecl::CubeBackend<cubecl::cuda::CudaRuntime, f32, i32, u8>;

fn run_child(case_json: &str) {
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

fn run_policy<I: Backend<Device = DeviceOf>>(case: &Case) -> Measured {
    match PolicyRun::from_name(&case.policy).expect("the parent checked the policy") {
        PolicyRun::Plain => measure::<Autodiff<I>>(case, &|| true),
        PolicyRun::Balanced => measure::<Autodiff<I, BalancedCheckpointing>>(case, &|| true),
        PolicyRun::BurnSwap(name) => {
            // `BURN_SWAP_*` variables (pinned pool, prefetch lookahead)
            // apply; the case sets the rest.
            let mut config = SwapConfig::from_env();
            config.min_swap_bytes = case.min_swap;
            config.policy = policy_by_name(&name).expect("checked by the parent");
            config.budget_bytes = case.budget;
            burn_swap::configure(config);
            let mut measured = measure::<SwapAutodiff<I>>(case, &last_step_followed_plan);
            let stats = swap_stats();
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
            measured
        }
    }
}

/// Reports a panic's message on stdout, where the parent looks for it (the
/// default hook still prints it, with its location, to stderr).
fn install_panic_reporter() {
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
/// iteration's ops differ from the plan's (iteration 1 has the first Adam
/// update, iteration 2 the first steady one), so this tells when the timed
/// steps will measure the plan rather than profiling.
fn last_step_followed_plan() -> bool {
    match (burn_swap::last_profile(), burn_swap::current_plan()) {
        (Some(profile), Some(plan)) => profile.iteration > plan.iteration,
        _ => false,
    }
}

/// Warms up, then times `case.steps` training steps of `B`. Warm-up ends
/// when two consecutive steps are within 10% of each other, at least
/// `case.warmup` steps ran and `ready()` says the backend is in its steady
/// state; or after `case.max_warmup` steps whatever the timings.
fn measure<B: AutodiffBackend<Device = DeviceOf>>(
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
    // host, not the device, sets the pace), and its loss.
    let mut step = |phase: &str, n: usize| -> (f64, f64, f32) {
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
        (secs, enqueued, loss)
    };

    let mut warmup_secs: Vec<f64> = Vec::new();
    // The previous step's time, if it already ran in the steady state: only
    // two steady steps are compared (a profiling step is no reference).
    let mut previous_ready: Option<f64> = None;
    while warmup_secs.len() < case.max_warmup.max(case.warmup) {
        let (secs, _, _) = step("warm-up", warmup_secs.len() + 1);
        warmup_secs.push(secs);
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
    let mut step_secs = Vec::new();
    let mut enqueue_secs = Vec::new();
    let mut final_loss = f32::NAN;
    let mut memory_series = Vec::new();
    for n in 1..=case.steps {
        let (secs, enqueued, loss) = step("step", n);
        step_secs.push(secs);
        enqueue_secs.push(enqueued);
        final_loss = loss;
        if case.memory_every > 0 && (n == 1 || n % case.memory_every == 0) {
            memory_series.extend(memory_sample(n, &device));
        }
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
        memory: peak.map(|(start, max)| memory_peak(start, max, held)),
        steady_before_timing: ready_when_timed,
        swap: None,
        memory_series,
        fusion_swaps: fusion_swaps_since(fusion_before, case.steps),
    }
}

/// What burn-swap really moved under burn's fusion in the timed steps
/// (an offload there waits for the ops before it to run; one asked back
/// first stays on the device).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct FusionSwaps {
    moved_bytes_per_step: u64,
    moved_per_step: u64,
    kept_per_step: u64,
    /// Mean ops between an offload's request and fusion handing the buffer over.
    #[serde(default)]
    take_lag_ops_mean: f64,
    #[serde(default)]
    take_lag_ops_max: u64,
}

#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn fusion_swap_stats() -> Option<burn_swap::transfer::FusionSwapStats> {
    Some(burn_swap::transfer::fusion_swap_stats())
}

#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn fusion_swaps_since(
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
    })
}

#[cfg(not(any(feature = "cuda", feature = "wgpu")))]
fn fusion_swap_stats() -> Option<()> {
    None
}

#[cfg(not(any(feature = "cuda", feature = "wgpu")))]
fn fusion_swaps_since(_: Option<()>, _: usize) -> Option<FusionSwaps> {
    None
}

/// `--device-memory`: all but that many bytes of the device, held until the
/// case ends.
#[cfg(feature = "cuda")]
fn hold_device_memory(
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
fn hold_device_memory(_case: &Case, _device: &DeviceOf) -> Option<NoHold> {
    None
}

#[cfg(not(feature = "cuda"))]
struct NoHold;

#[cfg(not(feature = "cuda"))]
impl NoHold {
    fn held_bytes(&self) -> u64 {
        0
    }
}

fn memory_peak(start: DeviceUsage, max: DeviceUsage, held: u64) -> MemoryPeak {
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
fn swap_stats() -> SwapStats {
    let profile = burn_swap::last_profile().expect("the timed steps ran backward");
    let device = profile.device.as_ref();
    SwapStats {
        swapped_out_bytes: profile.swapped_out_bytes,
        swapped_in_bytes: profile.swapped_in_bytes,
        saved_bytes: profile.saved_bytes,
        saved_count: profile.saved_count,
        peak_resident_saved_bytes: profile.peak_resident_saved_bytes,
        peak_live_bytes: profile.peak_live_bytes,
        swap_in_stalls: profile.swap_in_stalls,
        iteration_peak_in_use: device.map(|d| d.peak_in_use),
        iteration_growth_in_use: device.map(|d| d.peak_growth()),
        iteration_peak_reserved: device.map(|d| d.peak_reserved),
        iteration_peak_driver_used: device.and_then(|d| d.peak_driver_used),
        plan: burn_swap::current_plan().map(|plan| PlanSummary {
            policy: plan.policy.clone(),
            from_iteration: plan.iteration,
            saved_tensors: plan.decisions.len(),
            swapped_count: plan.swapped_count(),
            swapped_bytes: plan.swapped_bytes(),
            expected_peak_bytes: plan.expected_peak_bytes,
            expected_peak_saved_bytes: plan.expected_peak_saved_bytes,
            keep_all_peak_saved_bytes: plan.keep_all_peak_saved_bytes,
            budget_bytes: plan.budget_bytes,
        }),
        waited_for: waited_for(&profile),
        op_count: profile.op_count,
        backward_start: profile.backward_start,
        status_error: burn_swap::status().err().map(|e| e.to_string()),
    }
}

fn waited_for(profile: &burn_swap::Profile) -> Vec<WaitedTensor> {
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

fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut sorted: Vec<f64> = values.into_iter().collect();
    sorted.sort_by(|a, b| a.total_cmp(b));
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

// ---------------------------------------------------------------------------
// The parent: run cases in children, collect rows.
// ---------------------------------------------------------------------------

struct Options {
    /// (model, image shape) pairs.
    models: Vec<(ModelKind, ImageShape)>,
    batches: Vec<usize>,
    policies: Vec<String>,
    steps: usize,
    warmup: usize,
    max_warmup: usize,
    budget: Option<u64>,
    min_swap: u64,
    case_timeout: u64,
    search_budget: Option<u64>,
    /// Search for the largest batch (implied by `--search-budget`).
    search: bool,
    search_start: usize,
    search_max: usize,
    gpt: GptSize,
    json: Option<PathBuf>,
    unfused: bool,
    memory_every: usize,
    device_memory: Option<u64>,
}

/// The default matrix: the issue's GPU matrix on CUDA, a small one on CPU.
fn default_models_and_batches() -> (&'static str, &'static str) {
    if cfg!(any(feature = "cuda", feature = "wgpu")) {
        ("vgg16,resnet50", "512,2048")
    } else {
        ("plain20", "8,32")
    }
}

fn parse_list<T>(
    text: &str,
    what: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse(s).ok_or_else(|| format!("{what}: cannot read `{s}`")))
        .collect()
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let (default_models, default_batches) = default_models_and_batches();
    let mut models_text = default_models.to_string();
    let mut image: Option<ImageShape> = None;
    let mut batches_text = default_batches.to_string();
    let mut policies_text = "plain,balanced,keep-all,swap-all".to_string();
    let mut gpt = GptConfig::small();
    let mut o = Options {
        models: Vec::new(),
        batches: Vec::new(),
        policies: Vec::new(),
        steps: 5,
        warmup: 3,
        max_warmup: 12,
        budget: None,
        min_swap: SwapConfig::default().min_swap_bytes,
        case_timeout: 300,
        search_budget: None,
        search: false,
        search_start: 64,
        search_max: 16384,
        gpt: GptSize::from_config(gpt),
        json: None,
        unfused: false,
        memory_every: 0,
        device_memory: None,
    };
    let mut gpt_layers = None;
    let mut gpt_seq = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        let count = |v: String| {
            v.parse::<usize>()
                .map_err(|_| format!("{flag} takes a number, not `{v}`"))
        };
        let bytes = |v: String| parse_bytes(&v).map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--models" | "--model" => models_text = value()?,
            "--image" => image = Some(value()?.parse().map_err(|e| format!("{e}"))?),
            "--batches" | "--batch" => batches_text = value()?,
            "--policies" | "--policy" => policies_text = value()?,
            "--steps" => o.steps = count(value()?)?,
            "--warmup" => o.warmup = count(value()?)?,
            "--max-warmup" => o.max_warmup = count(value()?)?,
            "--budget" => o.budget = Some(bytes(value()?)?),
            "--min-swap" => o.min_swap = bytes(value()?)?,
            "--case-timeout" => o.case_timeout = count(value()?)? as u64,
            "--search-budget" => o.search_budget = Some(bytes(value()?)?),
            "--search" => o.search = true,
            "--device-memory" if cfg!(feature = "cuda") => o.device_memory = Some(bytes(value()?)?),
            "--search-start" => o.search_start = count(value()?)?,
            "--search-max" => o.search_max = count(value()?)?,
            "--gpt" => {
                gpt = match value()?.as_str() {
                    "small" => GptConfig::small(),
                    "tiny" => GptConfig::tiny(),
                    other => return Err(format!("--gpt: `{other}` is not small or tiny")),
                }
            }
            "--gpt-layers" => gpt_layers = Some(count(value()?)?),
            "--gpt-seq" => gpt_seq = Some(count(value()?)?),
            "--json" => o.json = Some(PathBuf::from(value()?)),
            "--memory-every" => o.memory_every = count(value()?)?,
            "--unfused" if cfg!(feature = "cuda") => o.unfused = true,
            // cargo bench passes --bench to harness = false targets.
            "--bench" => {}
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    gpt.layers = gpt_layers.unwrap_or(gpt.layers);
    gpt.seq = gpt_seq.unwrap_or(gpt.seq);
    o.gpt = GptSize::from_config(gpt);
    o.models = parse_list(&models_text, "--models", |s| parse_model(s, image))?;
    o.batches = parse_list(&batches_text, "--batches", |s| {
        s.parse().ok().filter(|&b| b > 0)
    })?;
    o.policies = parse_list(&policies_text, "--policies", |s| Some(s.to_string()))?;
    for policy in &o.policies {
        PolicyRun::from_name(policy).map_err(|e| format!("--policies: {e}; or plain, balanced"))?;
    }
    if o.steps == 0 || o.search_start == 0 || o.search_max < o.search_start {
        return Err(
            "--steps and --search-start must be positive, --search-max at least --search-start"
                .into(),
        );
    }
    Ok(o)
}

/// `vgg16`, `vgg16@imagenet`: the image shape after `@`, else `--image`, else CIFAR.
fn parse_model(text: &str, image: Option<ImageShape>) -> Option<(ModelKind, ImageShape)> {
    let (name, shape) = match text.split_once('@') {
        Some((name, shape)) => (name, Some(shape.parse().ok()?)),
        None => (text, None),
    };
    Some((
        name.parse().ok()?,
        shape.or(image).unwrap_or(ImageShape::Cifar),
    ))
}

impl Options {
    fn case(
        &self,
        model: ModelKind,
        image: ImageShape,
        policy: &str,
        batch: usize,
        budget: Option<u64>,
    ) -> Case {
        Case {
            model: model.name().into(),
            image: image.to_string(),
            policy: policy.into(),
            batch,
            steps: self.steps,
            warmup: self.warmup,
            max_warmup: self.max_warmup,
            budget: budget.filter(|_| policy_takes_budget(policy)),
            min_swap: self.min_swap,
            gpt: self.gpt,
            unfused: self.unfused,
            memory_every: self.memory_every,
            device_memory: self.device_memory,
        }
    }
}

/// How a child process ended, as the parent saw it.
struct ChildOutcome {
    result: Option<Measured>,
    panic: Option<String>,
    status: Option<ExitStatus>,
    timed_out: bool,
    stderr_tail: Vec<String>,
    wall_secs: f64,
}

/// Runs `case` in a child process, relaying its progress, killing it after `timeout`.
fn run_case_in_child(case: &Case, timeout: Duration) -> ChildOutcome {
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
fn read_tagged_lines(stdout: impl Read) -> (Option<Measured>, Option<String>) {
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
fn why_failed(outcome: &ChildOutcome, timeout: Duration) -> (String, String) {
    let detail = outcome
        .panic
        .clone()
        .unwrap_or_else(|| outcome.stderr_tail.join("\n"));
    let text = detail.to_ascii_lowercase();
    let first_line = detail
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(160)
        .collect::<String>();
    let why = if outcome.timed_out {
        match &outcome.panic {
            Some(_) => format!(
                "timed out after {} s (after a panic: {first_line})",
                timeout.as_secs()
            ),
            None => format!("timed out after {} s", timeout.as_secs()),
        }
    } else if text.contains("no plan keeps the iteration's device memory under the budget") {
        format!(
            "budget too small: {}",
            first_line.trim_start_matches("burn-swap: ")
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
    } else if let Some(signal) = outcome.status.as_ref().and_then(exit_signal) {
        match signal {
            9 => "killed by SIGKILL (host out of memory?)".into(),
            6 => "aborted (SIGABRT)".into(),
            other => format!("killed by signal {other}"),
        }
    } else if outcome.panic.is_some() {
        format!("panicked: {first_line}")
    } else {
        match outcome.status {
            Some(status) => format!("no result ({status})"),
            None => "no result (the child could not be waited for)".into(),
        }
    };
    (why, detail)
}

#[cfg(unix)]
fn exit_signal(status: &ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn exit_signal(_status: &ExitStatus) -> Option<i32> {
    None
}

/// Runs one case in a child and makes its row.
fn run_row(case: Case, options: &Options, search_probe: bool) -> Row {
    eprintln!("== {}", case.label());
    let timeout = Duration::from_secs(options.case_timeout);
    let mut outcome = run_case_in_child(&case, timeout);
    // A panic on any thread voids the result: CubeCL's runtime thread panics
    // when an allocation fails and carries on, computing with memory that is
    // not there (plain Autodiff has no watch of its own for that).
    if outcome.panic.is_some() {
        outcome.result = None;
    }
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
        fits: None,
        wall_secs: outcome.wall_secs,
    }
}

/// Whether a probe fits: it completed its timed steps (under
/// `--device-memory`, the driver decided) and, with a search budget, its
/// peak device memory stayed within it (when the runtime reports memory).
fn fits(row: &Row, budget: Option<u64>) -> bool {
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
/// `--search-start` to the first failure (or `--search-max`), then bisection.
/// Bisection stops when the gap is at most 1/16 of the fitting batch (at least
/// 1): each probe is a full child run, minutes on a GPU.
fn search(
    options: &Options,
    model: ModelKind,
    image: ImageShape,
    policy: &str,
    rows: &mut Vec<Row>,
) -> Search {
    let budget = options.search_budget;
    // burn-swap's own budget: `--budget`, else the search budget.
    let swap_budget = options.budget.or(budget);
    let mut probes = Vec::new();
    let mut probe = |batch: usize, rows: &mut Vec<Row>| -> bool {
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
        probes.push((batch, ok));
        rows.push(row);
        ok
    };
    let (mut fit, mut fail): (Option<usize>, Option<usize>) = (None, None);
    let mut batch = options.search_start;
    loop {
        if probe(batch, rows) {
            fit = Some(batch);
            if batch >= options.search_max {
                break;
            }
            batch = (batch * 2).min(options.search_max);
        } else {
            fail = Some(batch);
            break;
        }
    }
    if let Some(mut hi) = fail {
        let mut lo = fit.unwrap_or(0);
        while hi - lo > (lo / 16).max(1) {
            let mid = lo + (hi - lo) / 2;
            if probe(mid, rows) {
                lo = mid;
                fit = Some(mid);
            } else {
                hi = mid;
                fail = Some(mid);
            }
        }
    }
    let input = options.case(model, image, policy, 1, None).input_label();
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
        probes,
        largest_fitting_batch: fit,
        smallest_failing_batch: fail,
    }
}

// ---------------------------------------------------------------------------
// Report.
// ---------------------------------------------------------------------------

fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1u64 << 20) as f64)
}

/// Median samples/s of the `plain` row for the same model, input and batch.
fn plain_rate(rows: &[Row], row: &Row) -> Option<f64> {
    rows.iter()
        .filter(|r| {
            r.case.policy == "plain"
                && r.case.model == row.case.model
                && r.input == row.input
                && r.case.batch == row.case.batch
        })
        .find_map(|r| r.result.as_ref().map(|m| m.median_samples_per_s))
}

fn print_table(rows: &[Row]) {
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
            .and_then(|s| s.iteration_growth_in_use)
            .map_or("-".into(), mib);
        let out = swap.map_or("-".into(), |s| mib(s.swapped_out_bytes));
        let back = swap.map_or("-".into(), |s| mib(s.swapped_in_bytes));
        let wait = swap.map_or("-".into(), |s| {
            format!("{:.1}", s.swap_in_stalls.total_ns() as f64 / 1e6)
        });
        let mut why = row.why.clone().unwrap_or_default();
        if let Some(f) = m.and_then(|m| m.fusion_swaps).filter(|_| swap.is_some()) {
            why = format!(
                "{why} (fusion: {} moved/step, {} kept, taken {:.1} ops after asked, at most {})",
                mib(f.moved_bytes_per_step),
                f.kept_per_step,
                f.take_lag_ops_mean,
                f.take_lag_ops_max
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
fn print_host_and_device(rows: &[Row]) {
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
        println!(
            "  {:<40} enqueue {:>7.2} (waited {:>5.2} in the last step), drain {:>7.2}",
            row.case.label(),
            median(m.enqueue_secs.iter().copied()) * 1e3,
            waited,
            median(drain) * 1e3
        );
    }
}

/// Where each case's last timed iteration waited for tensors to come back:
/// how far ahead of its use each late copy was started, in ops.
fn print_waits(rows: &[Row]) {
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
fn print_memory_series(rows: &[Row]) {
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
            "  {} ({} samples to step {steps}): device in use {}; reserved {}; driver {}; pinned reserved {}; pinned in use {}",
            row.case.label(),
            samples.len(),
            span(samples, &|s| Some(s.device_in_use)),
            span(samples, &|s| Some(s.device_reserved)),
            span(samples, &|s| s.driver_used),
            span(samples, &|s| s.pinned_reserved),
            span(samples, &|s| s.pinned_in_use),
        );
    }
}

fn print_searches(searches: &[Search]) {
    println!();
    println!("largest batch that trained:");
    for s in searches {
        let probes: Vec<String> = s
            .probes
            .iter()
            .map(|(b, ok)| format!("{b}{}", if *ok { "+" } else { "-" }))
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

fn write_json(
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
    std::fs::write(path, serde_json::to_string_pretty(&report)? + "\n")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--case") {
        let case_json = args.get(i + 1).expect("--case takes the case as JSON");
        run_child(case_json);
        return;
    }
    let options = match parse_options(&args) {
        Ok(o) => o,
        Err(msg) => {
            if msg.is_empty() {
                println!("{USAGE}");
                return;
            }
            eprintln!("error: {msg}\n\n{USAGE}");
            std::process::exit(2);
        }
    };

    let mut rows = Vec::new();
    let mut searches = Vec::new();
    match options.search || options.search_budget.is_some() {
        // A search replaces the batch matrix: it picks its own batches.
        true => {
            for &(model, image) in &options.models {
                for policy in &options.policies {
                    searches.push(search(&options, model, image, policy, &mut rows));
                }
            }
        }
        false => {
            for &(model, image) in &options.models {
                for &batch in &options.batches {
                    for policy in &options.policies {
                        let case = options.case(model, image, policy, batch, options.budget);
                        rows.push(run_row(case, &options, false));
                    }
                }
            }
        }
    }

    println!();
    if let Some(device) = rows
        .iter()
        .find_map(|r| r.result.as_ref().map(|m| m.device_name.clone()))
    {
        println!("device: {device}");
    }
    print_table(&rows);
    print_host_and_device(&rows);
    print_waits(&rows);
    print_memory_series(&rows);
    if !searches.is_empty() {
        print_searches(&searches);
    }
    if let Some(path) = &options.json {
        match write_json(path, &args, &options, &rows, &searches) {
            Ok(()) => println!("wrote {}", path.display()),
            Err(err) => {
                eprintln!("could not write {}: {err}", path.display());
                std::process::exit(1);
            }
        }
    }
}
