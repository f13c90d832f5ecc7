//! One iteration replayed with a plan's copies: the compute stream runs the
//! profiled ops one after another (their recorded times), the compression
//! kernels and the ops that rebuild recomputed tensors in between, and one
//! copy queue per direction carries the swapped tensors; the compute stream
//! waits where a tensor it needs has not landed.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{CodecCost, CostModel};
use crate::plan::{Action, Decision};
use crate::profile::{Profile, TensorKey, TensorProfile};

/// What the replay of one iteration under a plan predicts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SwapReplay {
    /// The compute stream's time for the whole iteration: ops, codec
    /// kernels and waits.
    pub iteration_ns: f64,
    /// The profiled ops alone.
    pub ops_ns: f64,
    /// Compression and decompression kernels.
    pub codec_ns: f64,
    /// Ops run again to rebuild recomputed tensors.
    #[serde(default)]
    pub recompute_ns: f64,
    /// Waiting for tensors to come back.
    pub wait_ns: f64,
    /// Bytes copied to the host (compressed where compressed).
    pub to_host_bytes: u64,
    /// Bytes copied back.
    pub to_device_bytes: u64,
    /// Ops that had a recorded time; the others count as taking none.
    pub timed_ops: u32,
}

/// Whether the replay charges the codecs' kernel time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodecTime {
    /// As the time model predicts.
    Measured,
    /// Nothing: compression is free (a bound).
    Free,
}

/// One swapped tensor as the replay sees it.
struct Swapped {
    cost: Option<CodecCost>,
    bytes: u64,
    offload_after: u32,
    prefetch_at: u32,
    needed_at: u32,
}

impl Swapped {
    fn moved_bytes(&self) -> u64 {
        self.cost.map_or(self.bytes, |c| c.compressed_bytes)
    }
}

/// Replays `profile`'s iteration under `decisions` with `costs`.
pub fn replay(
    profile: &Profile,
    decisions: &[Decision],
    costs: &CostModel,
    codec_time: CodecTime,
) -> SwapReplay {
    // Only compressed tensors are looked up: a planner replays many plans
    // without codecs, and the map would be the replay's largest cost then.
    let mut tensors: FxHashMap<TensorKey, &TensorProfile> = FxHashMap::default();
    if decisions.iter().any(|d| d.codec.is_some()) {
        tensors.extend(profile.tensors.iter().map(|t| (t.key, t)));
    }
    let swapped: Vec<Swapped> = decisions
        .iter()
        .filter(|d| d.action == Action::Swap)
        .map(|d| {
            let cost = d.codec.and_then(|codec| {
                let t = tensors.get(&d.key).copied();
                let dtype = t.map_or("F32", |t| t.dtype.as_str());
                let zeros = t.and_then(|t| t.zero_fraction).unwrap_or(0.0) as f64;
                let mut cost = costs.codec_cost(codec, dtype, d.bytes, zeros)?;
                if !codec.compresses(t) {
                    cost.compressed_bytes = codec.capacity_bytes(dtype, d.bytes);
                }
                if codec_time == CodecTime::Free {
                    cost.compress_ns = 0.0;
                    cost.decompress_ns = 0.0;
                }
                Some(cost)
            });
            Swapped {
                cost,
                bytes: d.bytes,
                offload_after: d.offload_after,
                prefetch_at: d.prefetch_at.min(d.needed_at),
                needed_at: d.needed_at,
            }
        })
        .collect();

    let op_count = profile.ops.len().max(profile.op_count as usize);
    let op_ns = |op: usize| profile.ops.get(op).and_then(|o| o.duration_ns);
    // Before each op: the time spent rebuilding the tensors it needs.
    let mut rebuilds = vec![0.0_f64; op_count + 1];
    for (needed_at, ns) in rebuild_times(profile, decisions) {
        rebuilds[(needed_at as usize).min(op_count)] += ns as f64;
    }
    let mut offloads: Vec<Vec<usize>> = vec![Vec::new(); op_count + 1];
    let mut prefetches: Vec<Vec<usize>> = vec![Vec::new(); op_count + 1];
    let mut needs: Vec<Vec<usize>> = vec![Vec::new(); op_count + 1];
    for (i, s) in swapped.iter().enumerate() {
        offloads[(s.offload_after as usize).min(op_count)].push(i);
        prefetches[(s.prefetch_at as usize).min(op_count)].push(i);
        needs[(s.needed_at as usize).min(op_count)].push(i);
    }
    for queue in &mut prefetches {
        queue.sort_by_key(|&i| swapped[i].needed_at);
    }

    let link = &costs.link;
    let mut out = SwapReplay::default();
    let mut now = 0.0_f64;
    let mut to_host_free = 0.0_f64;
    let mut to_device_free = 0.0_f64;
    let mut offloaded = vec![0.0_f64; swapped.len()];
    let mut landed = vec![0.0_f64; swapped.len()];
    for op in 0..=op_count {
        for &i in &prefetches[op] {
            let s = &swapped[i];
            let start = now.max(to_device_free).max(offloaded[i]);
            let bytes = s.moved_bytes();
            to_device_free = start + link.to_device_ns(bytes, to_host_free > start);
            landed[i] = to_device_free;
            out.to_device_bytes += bytes;
        }
        for &i in &needs[op] {
            if landed[i] > now {
                out.wait_ns += landed[i] - now;
                now = landed[i];
            }
            if let Some(cost) = swapped[i].cost {
                now += cost.decompress_ns;
                out.codec_ns += cost.decompress_ns;
            }
        }
        now += rebuilds[op];
        out.recompute_ns += rebuilds[op];
        if let Some(duration) = op_ns(op) {
            now += duration as f64;
            out.ops_ns += duration as f64;
            out.timed_ops += 1;
        }
        for &i in &offloads[op] {
            let s = &swapped[i];
            if let Some(cost) = s.cost {
                now += cost.compress_ns;
                out.codec_ns += cost.compress_ns;
            }
            let start = now.max(to_host_free);
            let bytes = s.moved_bytes();
            to_host_free = start + link.to_host_ns(bytes, to_device_free > start);
            offloaded[i] = to_host_free;
            out.to_host_bytes += bytes;
        }
    }
    out.iteration_ns = now;
    out
}

/// Each tensor `decisions` rebuild by running its op again: the op it is
/// needed before, and its op's time at `profile`'s op times. A stand-in (a
/// ReLU's output for its input, an earlier equal output) runs no op.
pub(crate) fn rebuild_times<'a>(
    profile: &'a Profile,
    decisions: &'a [Decision],
) -> impl Iterator<Item = (u32, u64)> + 'a {
    decisions
        .iter()
        .filter(|d| d.action == Action::Recompute && d.stand_in.is_none())
        .map(|d| {
            let ns = profile
                .ops
                .get(d.key.op as usize)
                .and_then(|o| o.duration_ns);
            (d.needed_at, ns.unwrap_or(0))
        })
}
