//! What one iteration did, op by op and tensor by tensor.
//!
//! Every iteration is recorded (op names, float inputs and outputs, optional
//! synchronised durations, live bytes after each op, and the offload, load
//! and release of every tensor). At the iteration boundary the record becomes
//! a [`Profile`]: each tensor produced in the iteration with its size,
//! producer, forward and backward uses, release, and whether it is a *saved*
//! activation (alive when backward starts, used in backward, released before
//! backward ends). Policies plan from it; users read its summary or its JSON.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

mod device;
mod recorder;

pub use device::{DeviceReport, DeviceUsage};
pub use recorder::{OpRecord, OutputInfo, Recorder};

use crate::human_bytes;

/// A tensor's identity for its whole life (unique in the process, so it
/// differs every iteration).
pub type TensorId = u64;

/// A tensor's identity across iterations: the op that produced it, counted
/// from the start of the iteration, and which of the op's outputs it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TensorKey {
    /// Index of the producing op within the iteration.
    pub op: u32,
    /// Which output of that op.
    pub output: u16,
}

impl fmt::Display for TensorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "op{}.{}", self.op, self.output)
    }
}

/// Forward (everything since the previous backward) or backward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// From the end of the previous backward to the start of this one.
    Forward,
    /// Inside `backward()`.
    Backward,
}

/// One op of a profiled iteration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpProfile {
    /// Position in the iteration.
    pub index: u32,
    /// The backend method, e.g. `float_matmul` (borrowed while recording:
    /// no allocation per op).
    pub name: Cow<'static, str>,
    /// Forward or backward.
    pub phase: Phase,
    /// Float tensors read (ids).
    pub inputs: Vec<TensorId>,
    /// Float tensors produced (ids).
    pub outputs: Vec<TensorId>,
    /// Its time on the device: as measured with the device synchronised
    /// before and after (timing mode), or its share of the iteration's
    /// measured compute time (see [`Profile::op_times`]); `None` untimed.
    pub duration_ns: Option<u64>,
    /// Floating-point operations it does, where its work is arithmetic
    /// (matrix products, convolutions; see [`crate::cost::work`]).
    #[serde(default)]
    pub flops: u64,
    /// Bytes of its float inputs and outputs.
    #[serde(default)]
    pub bytes: u64,
    /// Bytes of all tracked float tensors on the device after the op.
    pub live_bytes: u64,
    /// Device bytes the op took beyond its outputs and gave back before it
    /// ended (kernel workspaces, layout copies, autotune's buffers), as the
    /// runtime's allocator saw them; measured in iterations without a plan
    /// under exact allocations, else 0.
    #[serde(default)]
    pub workspace_bytes: u64,
    /// Its output can be rebuilt by running it again (see
    /// [`OpRecord::replayable`]).
    #[serde(default)]
    pub replayable: bool,
}

/// What a count of a saved tensor's elements found: what compressing it
/// would gain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sparsity {
    /// Fraction of its elements whose bits are all zero.
    pub zero_fraction: f32,
    /// Whether every non-zero element has the same bit pattern; `None`
    /// where the count could not tell.
    pub two_valued: Option<bool>,
}

/// One tensor produced in a profiled iteration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TensorProfile {
    /// Process-unique id (differs every iteration).
    pub id: TensorId,
    /// Identity across iterations.
    pub key: TensorKey,
    /// Size in bytes.
    pub bytes: u64,
    /// Shape.
    pub shape: Vec<usize>,
    /// Element type.
    pub dtype: String,
    /// Name of the producing op.
    pub producer: String,
    /// Forward ops that read it (after the producer).
    pub forward_uses: Vec<u32>,
    /// Backward ops that read it.
    pub backward_uses: Vec<u32>,
    /// The last forward op that needs it on the device (the producer if none read it).
    pub last_forward_use: u32,
    /// The first backward op that reads it.
    pub first_backward_use: Option<u32>,
    /// Op at which its last handle dropped, if within the iteration.
    pub released_at: Option<u32>,
    /// A saved activation: alive at the start of backward, read in backward,
    /// released before backward ends.
    pub saved: bool,
    /// Ops after which it was offloaded.
    pub offloaded_at: Vec<u32>,
    /// Ops before which it was brought back.
    pub loaded_at: Vec<u32>,
    /// Ops after which it was freed, to be rebuilt in backward by running
    /// its op again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped_at: Vec<u32>,
    /// Ops before which it was rebuilt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rebuilt_at: Vec<u32>,
    /// Time the compute thread waited for it to come back (a prefetch that
    /// had not landed at its use, or a load on demand); 0 if it never did.
    #[serde(default)]
    pub swap_in_wait_ns: u64,
    /// Fraction of its elements that are zero, where it was sampled on the
    /// device (saved float tensors, every few iterations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_fraction: Option<f32>,
    /// Whether every non-zero element had the same bit pattern where it
    /// was sampled (a dropout mask's zeros and ones): what the bitmap
    /// codec needs to shrink it ([`crate::cost::Codec::Bitmap`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_valued: Option<bool>,
    /// A plan's executor could not free it for a rebuild (under fusion: the
    /// tensor standing in for it had left the device, or another live
    /// tensor shares its buffer): plans keep or swap it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rebuild_refused: bool,
}

/// Resident bytes at one op.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct TimelinePoint {
    /// Op index.
    pub op: u32,
    /// All tracked float tensors on the device after the op.
    pub live_bytes: u64,
    /// Saved activations on the device during the op.
    pub resident_saved_bytes: u64,
    /// Saved activations in host memory during the op (offloaded, not yet
    /// brought back).
    #[serde(default)]
    pub host_saved_bytes: u64,
}

/// Everything burn-swap saw in one iteration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Profile {
    /// Iteration number (0 is the first backward).
    pub iteration: u64,
    /// False when the iteration had more ops than `max_recorded_ops`.
    pub complete: bool,
    /// Ops in the iteration.
    pub op_count: u32,
    /// Index of the first backward op.
    pub backward_start: Option<u32>,
    /// The ops, in order.
    pub ops: Vec<OpProfile>,
    /// The tensors produced in the iteration.
    pub tensors: Vec<TensorProfile>,
    /// Bytes of all tracked float tensors on the device when the iteration
    /// began (parameters, optimizer state, gradients kept from before): the
    /// budget counts growth over it.
    #[serde(default)]
    pub start_live_bytes: u64,
    /// Per-op resident bytes.
    pub timeline: Vec<TimelinePoint>,
    /// Peak of `live_bytes`.
    pub peak_live_bytes: u64,
    /// Peak of `resident_saved_bytes`.
    pub peak_resident_saved_bytes: u64,
    /// Op at which saved bytes peaked.
    pub peak_resident_saved_op: u32,
    /// Total bytes of saved activations.
    pub saved_bytes: u64,
    /// Number of saved activations.
    pub saved_count: usize,
    /// Bytes copied device to host.
    pub swapped_out_bytes: u64,
    /// Bytes copied host to device.
    pub swapped_in_bytes: u64,
    /// Time the compute thread waited for tensors to come back.
    #[serde(default)]
    pub swap_in_stalls: SwapInStalls,
    /// Per-op signature hashes (name and float input shapes).
    pub op_signatures: Vec<u64>,
    /// Device memory the runtime reported during the iteration (CUDA; `None`
    /// where the backend does not say).
    #[serde(default)]
    pub device: Option<DeviceReport>,
    /// Where the ops' times come from.
    #[serde(default)]
    pub op_times: OpTimes,
}

/// Where a profile's op times (`OpProfile::duration_ns`) come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpTimes {
    /// Not timed.
    #[default]
    None,
    /// Each op timed with the device synchronised around it (slow, and
    /// under fusion not the fused kernels' times).
    Synced,
    /// `compute_ns`, the compute time of a whole iteration, shared out over
    /// the ops by their synchronised times where they were timed, else by
    /// their work ([`crate::cost::work`]).
    Shared {
        /// The ops' compute time: the iteration's, less what the plan it
        /// followed spent rebuilding tensors and on codec kernels.
        compute_ns: u64,
        /// Measured on iterations that followed a plan (the time between
        /// their starts, less the compute thread's waits), rather than the
        /// profiled iteration's own wall time.
        measured: bool,
    },
}

impl Profile {
    /// The saved activations, in key order.
    pub fn saved_tensors(&self) -> impl Iterator<Item = &TensorProfile> {
        self.tensors.iter().filter(|t| t.saved)
    }

    /// Whether its ops have times (`OpProfile::duration_ns`).
    pub fn is_timed(&self) -> bool {
        self.ops.iter().any(|o| o.duration_ns.is_some())
    }

    /// Shares `compute_ns`, the compute time of a whole iteration, out over
    /// the ops: in proportion to their times where they have them (synced,
    /// or shared before), else to their work.
    pub fn share_compute_time(&mut self, compute_ns: u64, measured: bool) {
        let timed = self.is_timed();
        let weight = |op: &OpProfile| match timed {
            true => op.duration_ns.unwrap_or(0) as f64,
            false => crate::cost::work::work_weight(op.flops, op.bytes),
        };
        let total: f64 = self.ops.iter().map(weight).sum();
        if total <= 0.0 {
            return;
        }
        let scale = compute_ns as f64 / total;
        let shares: Vec<u64> = self
            .ops
            .iter()
            .map(|op| (weight(op) * scale) as u64)
            .collect();
        for (op, ns) in self.ops.iter_mut().zip(shares) {
            op.duration_ns = Some(ns);
        }
        self.op_times = OpTimes::Shared {
            compute_ns,
            measured,
        };
    }

    /// The most tracked device bytes the iteration added over what it began
    /// with, after any op: the figure the budget holds (on CUDA the runtime's
    /// own count is in `device`).
    pub fn peak_growth_bytes(&self) -> u64 {
        self.ops
            .iter()
            .map(|o| o.live_bytes.saturating_sub(self.start_live_bytes))
            .max()
            .unwrap_or(0)
    }
}

/// Where bringing tensors back held up the compute thread in one iteration.
/// Waits block the thread that enqueues kernels, so the device runs dry once
/// its queue drains: these are the swap's visible cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapInStalls {
    /// Prefetched tensors whose copy had not landed at their first use.
    pub late_prefetches: u32,
    /// Time spent waiting for them.
    pub late_prefetch_ns: u64,
    /// Tensors brought back at their use, with no prefetch (outside a plan,
    /// or a plan that did not foresee the use).
    pub on_demand_loads: u32,
    /// Time those loads took.
    pub on_demand_ns: u64,
    /// Times the compute thread waited for downloads to finish so that the
    /// device stayed under the budget (a download holds its device memory
    /// until its copy is done).
    #[serde(default)]
    pub budget_waits: u32,
    /// Time spent in those waits.
    #[serde(default)]
    pub budget_wait_ns: u64,
}

impl SwapInStalls {
    /// All waiting, in nanoseconds.
    pub fn total_ns(&self) -> u64 {
        self.late_prefetch_ns + self.on_demand_ns + self.budget_wait_ns
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bwd = self.backward_start.unwrap_or(self.op_count);
        writeln!(
            f,
            "burn-swap profile, iteration {}: {} ops ({} forward, {} backward){}",
            self.iteration,
            self.op_count,
            bwd,
            self.op_count - bwd,
            if self.complete { "" } else { " [truncated]" }
        )?;
        writeln!(
            f,
            "  saved activations: {} tensors, {}",
            self.saved_count,
            human_bytes(self.saved_bytes)
        )?;
        writeln!(
            f,
            "  peak resident saved: {} at op {}; peak live: {} (the iteration added at most {})",
            human_bytes(self.peak_resident_saved_bytes),
            self.peak_resident_saved_op,
            human_bytes(self.peak_live_bytes),
            human_bytes(self.peak_growth_bytes())
        )?;
        writeln!(
            f,
            "  swapped out {}, brought back {}",
            human_bytes(self.swapped_out_bytes),
            human_bytes(self.swapped_in_bytes)
        )?;
        let stalls = &self.swap_in_stalls;
        if stalls.late_prefetches + stalls.on_demand_loads + stalls.budget_waits > 0 {
            writeln!(
                f,
                "  waited for swapped tensors: {:.3} ms ({} late prefetches {:.3} ms, {} loads on demand {:.3} ms, {} downloads to stay under the budget {:.3} ms)",
                stalls.total_ns() as f64 / 1e6,
                stalls.late_prefetches,
                stalls.late_prefetch_ns as f64 / 1e6,
                stalls.on_demand_loads,
                stalls.on_demand_ns as f64 / 1e6,
                stalls.budget_waits,
                stalls.budget_wait_ns as f64 / 1e6
            )?;
        }
        let timed: Vec<&OpProfile> = self
            .ops
            .iter()
            .filter(|o| o.duration_ns.is_some())
            .collect();
        if !timed.is_empty() {
            let total: u64 = timed.iter().filter_map(|o| o.duration_ns).sum();
            writeln!(f, "  timed ops: {:.3} ms in total", total as f64 / 1e6)?;
        }
        let mut largest: Vec<&TensorProfile> = self.tensors.iter().filter(|t| t.saved).collect();
        largest.sort_by_key(|t| std::cmp::Reverse(t.bytes));
        for t in largest.iter().take(3) {
            writeln!(
                f,
                "  largest saved: {} {:?} from {} ({}), last forward use op {}, first backward use op {}",
                t.key,
                t.shape,
                t.producer,
                human_bytes(t.bytes),
                t.last_forward_use,
                t.first_backward_use.unwrap_or(0)
            )?;
        }
        Ok(())
    }
}
