//! What a case is, how a policy name is run, and what a child reports back.

use std::path::PathBuf;

use burn_swap::config::policy_by_name;
use burn_swap::transfer::DeviceUsage;
use burn_swap_models::{GptConfig, ImageShape, ModelKind, ModelSpec};
use serde::{Deserialize, Serialize};

use crate::measure::{FusionSwaps, OpThread};

/// Marks the child's result line on its stdout.
pub const RESULT_TAG: &str = "@@train-bench-result ";
/// Marks a panic message the child reports on its stdout.
pub const PANIC_TAG: &str = "@@train-bench-panic ";
/// Lines of the child's stderr kept to explain a crash that was not a panic.
pub const STDERR_TAIL: usize = 40;

/// The decoder size, carried to the child (GptConfig itself is not serde).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct GptSize {
    pub layers: usize,
    pub width: usize,
    pub heads: usize,
    pub seq: usize,
    pub vocab: usize,
}

impl GptSize {
    pub fn from_config(c: GptConfig) -> Self {
        Self {
            layers: c.layers,
            width: c.width,
            heads: c.heads,
            seq: c.seq,
            vocab: c.vocab,
        }
    }

    pub fn config(&self) -> GptConfig {
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
pub struct Case {
    pub model: String,
    pub image: String,
    pub policy: String,
    pub batch: usize,
    pub steps: usize,
    pub warmup: usize,
    pub max_warmup: usize,
    /// Device budget (bytes one iteration may add), for burn-swap policies that plan
    /// against one (all but keep-all).
    pub budget: Option<u64>,
    pub min_swap: u64,
    pub gpt: GptSize,
    /// On CUDA: CubeCL's backend without fusion instead of `Cuda`.
    pub unfused: bool,
    /// Sample device and pinned memory every this many timed steps (0: never).
    #[serde(default)]
    pub memory_every: usize,
    /// On CUDA: hold all but this many bytes of the device before the model
    /// is built, so the driver runs out of memory where a smaller card would.
    #[serde(default)]
    pub device_memory: Option<u64>,
    /// Write the case's plan, last iteration and memory timeline (burn-swap
    /// policies) under this folder, in one of the case's own.
    #[serde(default)]
    pub profiles: Option<PathBuf>,
}

impl Case {
    pub fn kind(&self) -> ModelKind {
        self.model
            .parse()
            .expect("the parent checked the model name")
    }

    pub fn spec(&self) -> ModelSpec {
        let image: ImageShape = self
            .image
            .parse()
            .expect("the parent checked the image shape");
        ModelSpec::new(self.kind())
            .with_image(image)
            .with_gpt(self.gpt.config())
    }

    /// What the model's input looks like, for the table.
    pub fn input_label(&self) -> String {
        match self.kind() {
            ModelKind::GptSmall => {
                format!("{}x{} seq{}", self.gpt.layers, self.gpt.width, self.gpt.seq)
            }
            kind if kind.takes_image_shape() => self.image.clone(),
            _ => "-".into(),
        }
    }

    /// The case as a folder name: `gpt-small-cifar-home-b4`.
    pub fn file_stem(&self) -> String {
        format!(
            "{}-{}-{}-b{}",
            self.model, self.image, self.policy, self.batch
        )
        .replace(
            |c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '.',
            "-",
        )
    }

    pub fn label(&self) -> String {
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
pub struct MemoryPeak {
    /// Usage sampled before the model was built (runtime already started).
    pub start: DeviceUsage,
    /// Bytes held by `--device-memory` (counted in the driver's figures).
    #[serde(default)]
    pub held: u64,
    pub peak_in_use: u64,
    pub peak_reserved: u64,
    pub peak_driver_used: Option<u64>,
    /// The figure a batch must keep within a search budget: growth of the
    /// driver's used memory since `start` (less the bytes held by
    /// `--device-memory`) when the driver says, else the runtime pools' peak
    /// reservation.
    pub peak_device_bytes: u64,
    pub peak_device_basis: String,
}

/// The plan burn-swap applied in the timed steps.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlanSummary {
    pub policy: String,
    pub from_iteration: u64,
    pub saved_tensors: usize,
    pub swapped_count: usize,
    pub swapped_bytes: u64,
    /// Of the swapped tensors, those compressed on the device first.
    #[serde(default)]
    pub compressed_count: usize,
    /// Tensors rebuilt in backward by running their op again.
    #[serde(default)]
    pub rerun_count: usize,
    /// Tensors an earlier one stands in for (rebuilt with no kernel).
    #[serde(default)]
    pub stand_in_count: usize,
    /// Tensors forward freed, made again on the way to rebuilt ones.
    #[serde(default)]
    pub transient_count: usize,
    /// The iteration's time the plan's evaluator predicted (policies that
    /// price their plans).
    #[serde(default)]
    pub predicted_step_secs: Option<f64>,
    /// The iteration's device bytes the plan expects at its peak.
    #[serde(default)]
    pub expected_peak_bytes: u64,
    /// Of that peak, what the device added beyond earlier plans (measured),
    /// which this one leaves free.
    #[serde(default)]
    pub unseen_bytes: u64,
    pub expected_peak_saved_bytes: u64,
    pub keep_all_peak_saved_bytes: u64,
    pub budget_bytes: Option<u64>,
}

/// burn-swap's own account of the last timed iteration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SwapStats {
    pub swapped_out_bytes: u64,
    pub swapped_in_bytes: u64,
    pub saved_bytes: u64,
    pub saved_count: usize,
    pub peak_resident_saved_bytes: u64,
    /// The tracked tensors' peak, those held before the iteration
    /// (parameters, optimizer state) included.
    pub peak_live_bytes: u64,
    /// The tracked tensors held when the iteration began: the plan's peak
    /// and the budget count what the iteration adds over them.
    #[serde(default)]
    pub start_live_bytes: u64,
    /// Where the compute thread waited for tensors to come back.
    #[serde(default)]
    pub swap_in_stalls: burn_swap::SwapInStalls,
    /// Device memory sampled inside the iteration by burn-swap (catches the
    /// peak between two steps, which the per-step samples cannot).
    pub iteration_peak_in_use: Option<u64>,
    /// Peak growth of device memory in use over the iteration's first
    /// sample, from the runtime: the figure the budget is held against.
    #[serde(default)]
    pub iteration_growth_in_use: Option<u64>,
    /// Peak growth of the driver allocator's buffers over the iteration's
    /// start, from its high-water mark (CUDA): every buffer, the ops'
    /// workspaces included, where the samples see a few moments.
    #[serde(default)]
    pub iteration_growth_allocator: Option<u64>,
    pub iteration_peak_reserved: Option<u64>,
    pub iteration_peak_driver_used: Option<u64>,
    pub plan: Option<PlanSummary>,
    /// The tensors the compute thread waited for, longest wait first.
    #[serde(default)]
    pub waited_for: Vec<WaitedTensor>,
    /// Copies compressed before they crossed the link, in the whole run
    /// (the child's process): how many, their bytes, and the bytes moved.
    #[serde(default)]
    pub compressed: (u64, u64, u64),
    /// Ops in the iteration, and where backward began (to place the waits).
    #[serde(default)]
    pub op_count: u32,
    #[serde(default)]
    pub backward_start: Option<u32>,
    /// Reads of the device's memory from the driver in the last step, and
    /// the training thread's milliseconds in them.
    #[serde(default)]
    pub driver_reads: (u32, f64),
    /// What timing plans on the device kept, if it ran (`home`, `cswap`).
    #[serde(default)]
    pub plans_timed: Option<String>,
    /// Rebuilds compared on the device with the tensors they stand for,
    /// over the warm-up steps.
    #[serde(default)]
    pub rebuild_checks: RebuildChecks,
    /// Set when planning failed and burn-swap went on keeping everything.
    pub status_error: Option<String>,
}

/// Rebuilds compared with the tensors they stand for
/// (`SwapConfig::rebuild_check_bytes`), summed over steps.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RebuildChecks {
    pub compared: u64,
    pub differed: u64,
    pub millis: f64,
    /// The last iteration added (a report is read more than once).
    #[serde(skip)]
    last: Option<u64>,
}

impl RebuildChecks {
    pub fn add(&mut self, report: &burn_swap::IterationReport) {
        if self.last == Some(report.iteration) {
            return;
        }
        self.last = Some(report.iteration);
        self.compared += report.rebuilds_checked;
        self.differed += report.rebuilds_differed;
        self.millis += report.rebuild_check_time.as_secs_f64() * 1e3;
    }
}

/// A saved tensor whose return held up the compute thread.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WaitedTensor {
    /// The op that made it, and its size.
    pub produced_at: u32,
    pub bytes: u64,
    /// The op before which its copy back was started (none: loaded on demand).
    pub prefetched_at: Option<u32>,
    /// Its first backward use.
    pub needed_at: Option<u32>,
    pub wait_ms: f64,
}

/// What a child measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measured {
    /// `Backend::name` of the device backend (`Device`).
    pub device_name: String,
    /// `Backend::name` of the benchmarked (autodiff) backend.
    pub backend_name: String,
    pub warmup_secs: Vec<f64>,
    pub step_secs: Vec<f64>,
    /// Per timed step: seconds until the host had enqueued it (including
    /// any wait for swapped tensors); the rest of the step is the device
    /// draining its queue.
    #[serde(default)]
    pub enqueue_secs: Vec<f64>,
    pub median_samples_per_s: f64,
    /// Samples over the total time of the timed steps.
    pub mean_samples_per_s: f64,
    pub final_loss: f32,
    /// Every step's loss, warm-up first: runs of different lengths compare
    /// bit for bit over the steps they share.
    #[serde(default)]
    pub losses: Vec<f32>,
    /// Whether warm-up reached the steady state before the timed steps
    /// (for burn-swap: the last warm-up step followed a plan); false when
    /// `--max-warmup` ended it first.
    pub steady_before_timing: bool,
    /// `None` where the runtime does not report memory (Flex).
    pub memory: Option<MemoryPeak>,
    /// `None` for the baseline backends.
    pub swap: Option<SwapStats>,
    /// Under burn's fusion: what was really moved.
    #[serde(default)]
    pub fusion_swaps: Option<FusionSwaps>,
    /// burn-swap's decorator: where the training thread's time in the ops
    /// of a timed step went.
    #[serde(default)]
    pub op_thread: Option<OpThread>,
    /// Memory every `--memory-every` timed steps: flat when nothing leaks.
    #[serde(default)]
    pub memory_series: Vec<MemorySample>,
}

/// Device and pinned host memory after a timed step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemorySample {
    pub step: usize,
    pub device_in_use: u64,
    pub device_reserved: u64,
    pub driver_used: Option<u64>,
    /// burn-swap's pinned pool (CUDA engine), once it was made.
    pub pinned_reserved: Option<u64>,
    pub pinned_in_use: Option<u64>,
    /// What the CUDA driver's memory pool holds unused (freed, whole or in
    /// pieces between live buffers).
    #[serde(default)]
    pub pool_unused: Option<u64>,
}

/// One row of the report: a case and its outcome.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub case: Case,
    pub input: String,
    /// Whether this case was a probe of the largest-batch search.
    pub search_probe: bool,
    pub result: Option<Measured>,
    /// Why there is no result: "out of memory", "timed out after 300 s", ...
    pub why: Option<String>,
    /// The panic message or stderr lines behind `why`.
    pub detail: Option<String>,
    /// The case ran out of time with no failure seen: it may have fit.
    #[serde(default)]
    pub undecided: bool,
    /// For search probes: whether the batch fits the search budget.
    pub fits: Option<bool>,
    pub wall_secs: f64,
}

/// The outcome of one largest-batch search.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Search {
    pub model: String,
    pub input: String,
    pub policy: String,
    /// The search budget, if any.
    pub budget: Option<u64>,
    /// `--device-memory`, if set: the memory the run had.
    #[serde(default)]
    pub device_memory: Option<u64>,
    /// (batch, fits) in the order probed.
    pub probes: Vec<(usize, bool)>,
    pub largest_fitting_batch: Option<usize>,
    pub smallest_failing_batch: Option<usize>,
    /// The smallest batch above the largest whose case timed out.
    #[serde(default)]
    pub undecided_batch: Option<usize>,
    /// Median samples/s and peak device MiB of the largest fitting batch.
    #[serde(default)]
    pub samples_per_s_at_largest: Option<f64>,
    #[serde(default)]
    pub peak_device_bytes_at_largest: Option<u64>,
}

/// How a policy name is run.
pub enum PolicyRun {
    /// `Autodiff<Device>`.
    Plain,
    /// `Autodiff<Device, BalancedCheckpointing>`.
    Balanced,
    /// `SwapAutodiff<Device>` with this burn-swap policy name.
    BurnSwap(String),
}

impl PolicyRun {
    pub fn from_name(name: &str) -> Result<Self, String> {
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
pub fn policy_takes_budget(name: &str) -> bool {
    policy_by_name(name)
        .map(|p| p.name() != "keep-all")
        .unwrap_or(false)
}
