//! Collects one iteration as the model runs, and turns it into a [`Profile`].

use std::borrow::Cow;
use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::{
    DeviceReport, OpProfile, OpTimes, Phase, Profile, Sparsity, SwapInStalls, TensorId, TensorKey,
    TensorProfile, TimelinePoint,
};
use crate::memory::{recorded_saved, recorded_saved_on_host};

/// A float tensor an op produced, as the model's backend saw it.
#[derive(Debug, Clone)]
pub struct OutputInfo {
    /// Its id.
    pub id: TensorId,
    /// Position among the op's outputs.
    pub output: u16,
    /// Its size.
    pub bytes: u64,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its element type's name, as the profile writes it (e.g. `F32`);
    /// borrowed for the common types, so recording does not allocate.
    pub dtype: Cow<'static, str>,
}

/// One op, as the backend reports it.
#[derive(Debug)]
pub struct OpRecord {
    /// Position in the iteration.
    pub index: u32,
    /// The backend method.
    pub name: &'static str,
    /// Hash of the name and the float inputs' types and shapes.
    pub signature: u64,
    /// Float tensors read.
    pub inputs: Vec<TensorId>,
    /// Float tensors produced.
    pub outputs: Vec<TensorId>,
    /// What each output is.
    pub output_info: Vec<OutputInfo>,
    /// Running the op again on the same inputs gives the same output (a
    /// deterministic op of float inputs with one float output), so a plan
    /// may rebuild its output instead of keeping it.
    pub replayable: bool,
    /// Floating-point operations it does (see [`crate::cost::work`]).
    pub flops: u64,
    /// Bytes of its float inputs and outputs.
    pub bytes: u64,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Offloaded,
    Loaded,
    Dropped,
    Rebuilt,
}

/// One tensor's moves, as recorded: the ops of its offloads, loads, drops
/// and rebuilds.
#[derive(Default)]
struct Moves {
    offloaded: Vec<u32>,
    loaded: Vec<u32>,
    dropped: Vec<u32>,
    rebuilt: Vec<u32>,
}

/// Collects one iteration.
pub struct Recorder {
    max_ops: usize,
    truncated: bool,
    ops: Vec<OpProfile>,
    signatures: Vec<u64>,
    produced: FxHashMap<TensorId, (u32, OutputInfo)>,
    released: FxHashMap<TensorId, u32>,
    events: Vec<(TensorId, u32, Event)>,
    /// Time the compute thread waited for each tensor to come back.
    waited: FxHashMap<TensorId, u64>,
    /// Zero fractions sampled on the device.
    sparsity: FxHashMap<TensorId, Sparsity>,
    swapped_out: u64,
    swapped_in: u64,
    stalls: SwapInStalls,
    backward_start: Option<u32>,
    start_live_bytes: u64,
}

impl Recorder {
    /// A recorder for an iteration that begins with `start_live_bytes` of
    /// tracked tensors on the device; past `max_ops` ops the profile is
    /// marked incomplete.
    pub fn new(max_ops: usize, start_live_bytes: u64) -> Self {
        Self {
            max_ops,
            truncated: false,
            ops: Vec::new(),
            signatures: Vec::new(),
            produced: FxHashMap::default(),
            released: FxHashMap::default(),
            events: Vec::new(),
            waited: FxHashMap::default(),
            sparsity: FxHashMap::default(),
            swapped_out: 0,
            swapped_in: 0,
            stalls: SwapInStalls::default(),
            backward_start: None,
            start_live_bytes,
        }
    }

    /// The iteration's first op begins with `live_bytes` of tracked tensors
    /// on the device (what was made between iterations, such as the
    /// optimizer's state, is not the iteration's).
    pub fn starts_with(&mut self, live_bytes: u64) {
        self.start_live_bytes = live_bytes;
    }

    /// The compute thread's waits for copies so far in the iteration.
    pub fn stalls(&self) -> SwapInStalls {
        self.stalls
    }

    /// Bytes offloaded so far in the iteration.
    pub fn swapped_out_bytes(&self) -> u64 {
        self.swapped_out
    }

    /// Room for an iteration of `ops` ops (the last one's length), so a
    /// steady loop does not grow the buffers op by op.
    pub fn reserve(&mut self, ops: usize) {
        let ops = ops.min(self.max_ops);
        self.ops.reserve(ops);
        self.signatures.reserve(ops);
        self.produced.reserve(ops);
    }

    /// Op `record` ran in `phase`, leaving `live_bytes` of tracked tensors on
    /// the device; it took `workspace_bytes` beyond its outputs inside itself.
    pub fn op(
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
            replayable: record.replayable,
            flops: record.flops,
            bytes: record.bytes,
        });
    }

    /// The last handle of tensor `id` dropped at op `at`.
    pub fn released(&mut self, id: TensorId, at: u32) {
        if self.produced.contains_key(&id) {
            self.released.insert(id, at);
        }
    }

    /// Tensor `id` (`bytes`) was moved to the host after op `at`.
    pub fn offloaded(&mut self, id: TensorId, bytes: u64, at: u32) {
        self.swapped_out += bytes;
        self.events.push((id, at, Event::Offloaded));
    }

    /// Tensor `id` (`bytes`) was brought back before op `at`.
    pub fn loaded(&mut self, id: TensorId, bytes: u64, at: u32) {
        self.swapped_in += bytes;
        self.events.push((id, at, Event::Loaded));
    }

    /// Tensor `id` was freed after op `at`, to be rebuilt later.
    pub fn dropped(&mut self, id: TensorId, at: u32) {
        self.events.push((id, at, Event::Dropped));
    }

    /// Tensor `id` was rebuilt before op `at` by running its op again.
    pub fn rebuilt(&mut self, id: TensorId, at: u32) {
        self.events.push((id, at, Event::Rebuilt));
    }

    /// The compute thread waited `nanos` for tensor `id` to come back: its
    /// prefetch had not landed, or (`on_demand`) none was issued.
    pub fn stalled(&mut self, id: TensorId, nanos: u64, on_demand: bool) {
        *self.waited.entry(id).or_default() += nanos;
        if on_demand {
            self.stalls.on_demand_loads += 1;
            self.stalls.on_demand_ns += nanos;
        } else {
            self.stalls.late_prefetches += 1;
            self.stalls.late_prefetch_ns += nanos;
        }
    }

    /// Tensor `id`'s elements were counted (on the device, or on the host
    /// as it left).
    pub fn sparsity(&mut self, id: TensorId, counted: Sparsity) {
        self.sparsity.insert(id, counted);
    }

    /// The compute thread waited `nanos` for downloads, to stay under the budget.
    pub fn waited_for_budget(&mut self, nanos: u64) {
        self.stalls.budget_waits += 1;
        self.stalls.budget_wait_ns += nanos;
    }

    /// Backward starts at op `at` (the first call counts).
    pub fn backward_starts(&mut self, at: u32) {
        self.backward_start.get_or_insert(at);
    }

    /// The profile of the iteration that ended at op `end`, with the device
    /// memory samples taken during it.
    pub fn finish(self, iteration: u64, end: u32, device: Option<DeviceReport>) -> Profile {
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
        let mut moves: HashMap<TensorId, Moves> = HashMap::new();
        for (id, at, event) in &self.events {
            let entry = moves.entry(*id).or_default();
            match event {
                Event::Offloaded => entry.offloaded.push(*at),
                Event::Loaded => entry.loaded.push(*at),
                Event::Dropped => entry.dropped.push(*at),
                Event::Rebuilt => entry.rebuilt.push(*at),
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
                let moved = moves.remove(id).unwrap_or_default();
                TensorProfile {
                    id: *id,
                    key: TensorKey {
                        op: *producer_op,
                        output: info.output,
                    },
                    bytes: info.bytes,
                    shape: info.shape.clone(),
                    dtype: info.dtype.to_string(),
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
                    offloaded_at: moved.offloaded,
                    loaded_at: moved.loaded,
                    dropped_at: moved.dropped,
                    rebuilt_at: moved.rebuilt,
                    swap_in_wait_ns: self.waited.get(id).copied().unwrap_or(0),
                    zero_fraction: self.sparsity.get(id).map(|s| s.zero_fraction),
                    two_valued: self.sparsity.get(id).and_then(|s| s.two_valued),
                    rebuild_refused: false,
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
        let mut profile = Profile {
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
            op_times: OpTimes::None,
        };
        if profile.is_timed() {
            profile.op_times = OpTimes::Synced;
        }
        profile
    }
}

/// Saved bytes resident during each op: from production to offload, and from
/// load to release; and saved bytes in host memory, in between.
fn saved_timeline(
    ops: &[OpProfile],
    tensors: &[TensorProfile],
    op_count: u32,
) -> Vec<TimelinePoint> {
    let resident = recorded_saved(tensors, op_count);
    let host = recorded_saved_on_host(tensors, op_count);
    ops.iter()
        .zip(resident)
        .zip(host)
        .map(|((op, bytes), host)| TimelinePoint {
            op: op.index,
            live_bytes: op.live_bytes,
            resident_saved_bytes: bytes,
            host_saved_bytes: host,
        })
        .collect()
}
