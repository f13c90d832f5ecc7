//! The profiler: what one iteration did, op by op and tensor by tensor.
//!
//! Every iteration is recorded (op names, float inputs and outputs, optional
//! synchronised durations, live bytes after each op, and the offload, load
//! and release of every tensor). At the iteration boundary the record becomes
//! a [`Profile`]: each tensor produced in the iteration with its size,
//! producer, forward and backward uses, release, and whether it is a *saved*
//! activation (alive when backward starts, used in backward, released before
//! backward ends). Policies plan from it; users read its summary or its JSON.

use std::borrow::Cow;
use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::fmt;
use std::path::Path;

use burn_backend::DType;
use serde::{Deserialize, Serialize};

mod svg;

pub use svg::timeline_svg;

use crate::handle::TensorId;
use crate::policy::Plan;

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

/// A float tensor an op produced, as the decorator saw it.
#[derive(Debug, Clone)]
pub(crate) struct OutputInfo {
    pub id: TensorId,
    /// Position among the op's outputs.
    pub output: u16,
    pub bytes: u64,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

/// One op, as the decorator reports it to the executor.
#[derive(Debug)]
pub(crate) struct OpRecord {
    pub index: u32,
    pub name: &'static str,
    pub signature: u64,
    pub inputs: Vec<TensorId>,
    pub outputs: Vec<TensorId>,
    pub output_info: Vec<OutputInfo>,
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
    /// Wall time with the device synchronised before and after (timing mode only).
    pub duration_ns: Option<u64>,
    /// Bytes of all tracked float tensors on the device after the op.
    pub live_bytes: u64,
    /// Device bytes the op took beyond its outputs and gave back before it
    /// ended (kernel workspaces, layout copies, autotune's buffers), as the
    /// runtime's allocator saw them; measured in iterations without a plan
    /// under exact allocations, else 0.
    #[serde(default)]
    pub workspace_bytes: u64,
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
    /// Time the compute thread waited for it to come back (a prefetch that
    /// had not landed at its use, or a load on demand); 0 if it never did.
    #[serde(default)]
    pub swap_in_wait_ns: u64,
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
    pub device: Option<crate::transfer::DeviceReport>,
}

impl Profile {
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

#[derive(Debug, Clone, Copy)]
enum Event {
    Offloaded,
    Loaded,
}

/// Collects one iteration.
pub(crate) struct Recorder {
    max_ops: usize,
    truncated: bool,
    ops: Vec<OpProfile>,
    signatures: Vec<u64>,
    produced: FxHashMap<TensorId, (u32, OutputInfo)>,
    released: FxHashMap<TensorId, u32>,
    events: Vec<(TensorId, u32, Event)>,
    /// Time the compute thread waited for each tensor to come back.
    waited: FxHashMap<TensorId, u64>,
    swapped_out: u64,
    swapped_in: u64,
    stalls: SwapInStalls,
    backward_start: Option<u32>,
    start_live_bytes: u64,
}

impl Recorder {
    /// A recorder for an iteration that begins with `start_live_bytes` of
    /// tracked tensors on the device.
    pub(crate) fn new(max_ops: usize, start_live_bytes: u64) -> Self {
        Self {
            max_ops,
            truncated: false,
            ops: Vec::new(),
            signatures: Vec::new(),
            produced: FxHashMap::default(),
            released: FxHashMap::default(),
            events: Vec::new(),
            waited: FxHashMap::default(),
            swapped_out: 0,
            swapped_in: 0,
            stalls: SwapInStalls::default(),
            backward_start: None,
            start_live_bytes,
        }
    }

    /// Room for an iteration of `ops` ops (the last one's length), so a
    /// steady loop does not grow the buffers op by op.
    pub(crate) fn reserve(&mut self, ops: usize) {
        let ops = ops.min(self.max_ops);
        self.ops.reserve(ops);
        self.signatures.reserve(ops);
        self.produced.reserve(ops);
    }

    pub(crate) fn op(
        &mut self,
        record: OpRecord,
        phase: Phase,
        duration_ns: Option<u64>,
        live_bytes: u64,
        workspace_bytes: u64,
    ) {
        if self.ops.len() >= self.max_ops {
            self.truncated = true;
            return;
        }
        for info in record.output_info {
            self.produced.insert(info.id, (record.index, info));
        }
        self.signatures.push(record.signature);
        self.ops.push(OpProfile {
            index: record.index,
            name: Cow::Borrowed(record.name),
            phase,
            inputs: record.inputs,
            outputs: record.outputs,
            duration_ns,
            live_bytes,
            workspace_bytes,
        });
    }

    pub(crate) fn released(&mut self, id: TensorId, at: u32) {
        if self.produced.contains_key(&id) {
            self.released.insert(id, at);
        }
    }

    pub(crate) fn offloaded(&mut self, id: TensorId, bytes: u64, at: u32) {
        self.swapped_out += bytes;
        self.events.push((id, at, Event::Offloaded));
    }

    pub(crate) fn loaded(&mut self, id: TensorId, bytes: u64, at: u32) {
        self.swapped_in += bytes;
        self.events.push((id, at, Event::Loaded));
    }

    pub(crate) fn stalled(&mut self, id: TensorId, nanos: u64, on_demand: bool) {
        *self.waited.entry(id).or_default() += nanos;
        if on_demand {
            self.stalls.on_demand_loads += 1;
            self.stalls.on_demand_ns += nanos;
        } else {
            self.stalls.late_prefetches += 1;
            self.stalls.late_prefetch_ns += nanos;
        }
    }

    pub(crate) fn waited_for_budget(&mut self, nanos: u64) {
        self.stalls.budget_waits += 1;
        self.stalls.budget_wait_ns += nanos;
    }

    pub(crate) fn backward_starts(&mut self, at: u32) {
        self.backward_start.get_or_insert(at);
    }

    /// The profile of the iteration that ended at op `end`, with the device
    /// memory samples taken during it.
    pub(crate) fn finish(
        self,
        iteration: u64,
        end: u32,
        device: Option<crate::transfer::DeviceReport>,
    ) -> Profile {
        let bwd = self.backward_start.unwrap_or(end);
        let mut uses: HashMap<TensorId, (Vec<u32>, Vec<u32>)> = HashMap::new();
        for op in &self.ops {
            for id in &op.inputs {
                if self.produced.contains_key(id) {
                    let entry = uses.entry(*id).or_default();
                    if op.index < bwd {
                        entry.0.push(op.index)
                    } else {
                        entry.1.push(op.index)
                    }
                }
            }
        }
        let mut moves: HashMap<TensorId, (Vec<u32>, Vec<u32>)> = HashMap::new();
        for (id, at, event) in &self.events {
            let entry = moves.entry(*id).or_default();
            match event {
                Event::Offloaded => entry.0.push(*at),
                Event::Loaded => entry.1.push(*at),
            }
        }

        let mut tensors: Vec<TensorProfile> = self
            .produced
            .iter()
            .map(|(id, (producer_op, info))| {
                let (forward_uses, backward_uses) = uses.remove(id).unwrap_or_default();
                let released_at = self.released.get(id).copied();
                let first_backward_use = backward_uses.first().copied();
                let saved = *producer_op < bwd
                    && first_backward_use.is_some()
                    && released_at.is_some_and(|r| r >= bwd && r < end);
                let (offloaded_at, loaded_at) = moves.remove(id).unwrap_or_default();
                TensorProfile {
                    id: *id,
                    key: TensorKey {
                        op: *producer_op,
                        output: info.output,
                    },
                    bytes: info.bytes,
                    shape: info.shape.clone(),
                    dtype: format!("{:?}", info.dtype),
                    producer: self
                        .ops
                        .get(*producer_op as usize)
                        .map(|o| o.name.to_string())
                        .unwrap_or_default(),
                    last_forward_use: forward_uses
                        .last()
                        .copied()
                        .unwrap_or(*producer_op)
                        .max(*producer_op),
                    forward_uses,
                    backward_uses,
                    first_backward_use,
                    released_at,
                    saved,
                    offloaded_at,
                    loaded_at,
                    swap_in_wait_ns: self.waited.get(id).copied().unwrap_or(0),
                }
            })
            .collect();
        tensors.sort_by_key(|t| t.key);

        let op_count = self.ops.len() as u32;
        let timeline = saved_timeline(&self.ops, &tensors, op_count);
        let (peak_resident_saved_op, peak_resident_saved_bytes) = timeline
            .iter()
            .map(|p| (p.op, p.resident_saved_bytes))
            .max_by_key(|(op, b)| (*b, std::cmp::Reverse(*op)))
            .unwrap_or((0, 0));
        let saved: Vec<&TensorProfile> = tensors.iter().filter(|t| t.saved).collect();
        Profile {
            iteration,
            complete: !self.truncated,
            op_count,
            backward_start: self.backward_start,
            peak_live_bytes: self.ops.iter().map(|o| o.live_bytes).max().unwrap_or(0),
            peak_resident_saved_bytes,
            peak_resident_saved_op,
            saved_bytes: saved.iter().map(|t| t.bytes).sum(),
            saved_count: saved.len(),
            swapped_out_bytes: self.swapped_out,
            swapped_in_bytes: self.swapped_in,
            swap_in_stalls: self.stalls,
            start_live_bytes: self.start_live_bytes,
            ops: self.ops,
            tensors,
            timeline,
            op_signatures: self.signatures,
            device,
        }
    }
}

/// Saved bytes resident during each op: from production to offload, and from
/// load to release.
fn saved_timeline(
    ops: &[OpProfile],
    tensors: &[TensorProfile],
    op_count: u32,
) -> Vec<TimelinePoint> {
    let resident = svg::resident_saved(tensors, op_count);
    ops.iter()
        .zip(resident)
        .map(|(op, bytes)| TimelinePoint {
            op: op.index,
            live_bytes: op.live_bytes,
            resident_saved_bytes: bytes,
        })
        .collect()
}

/// Bytes resident during each of `op_count` ops, given inclusive intervals
/// `(first op, last op, bytes)`.
pub(crate) fn sweep(
    op_count: u32,
    intervals: impl IntoIterator<Item = (u32, u32, u64)>,
) -> Vec<u64> {
    let n = op_count as usize;
    let mut delta = vec![0i64; n + 1];
    for (from, to, bytes) in intervals {
        let (from, to) = (from as usize, (to as usize).min(n.saturating_sub(1)));
        if from <= to && from < n {
            delta[from] += bytes as i64;
            delta[to + 1] -= bytes as i64;
        }
    }
    let mut running = 0i64;
    delta[..n]
        .iter()
        .map(|d| {
            running += d;
            running.max(0) as u64
        })
        .collect()
}

/// Writes a profile (and the plan made from it) as JSON.
pub fn write_json(path: &Path, profile: &Profile, plan: Option<&Plan>) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Out<'a> {
        profile: &'a Profile,
        plan: Option<&'a Plan>,
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    serde_json::to_writer(file, &Out { profile, plan }).map_err(std::io::Error::other)
}

/// Bytes in a human unit.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
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
