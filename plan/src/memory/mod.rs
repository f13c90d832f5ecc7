//! The bytes on the device at each op of an iteration.
//!
//! Everything here is one interval sweep ([`sweep`]) over one of two
//! sources: what the iteration really did (each saved tensor from its
//! production to its offload, and from its load to its release, as
//! recorded), or what it would do under a plan's decisions (a simulation on
//! the profile). Policies check plans with the simulation; the profile's
//! timeline and its picture use the record.

mod footprint;

pub use footprint::Footprint;

use rustc_hash::FxHashMap;

use crate::plan::{Action, Decision};
use crate::profile::{Profile, TensorKey, TensorProfile};

/// Bytes resident during each of `op_count` ops, given inclusive intervals
/// `(first op, last op, bytes)`.
pub fn sweep(op_count: u32, intervals: impl IntoIterator<Item = (u32, u32, u64)>) -> Vec<u64> {
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

/// The highest bytes of a timeline and the first op where they occur.
pub fn peak_of(timeline: &[u64]) -> (u64, u32) {
    timeline
        .iter()
        .enumerate()
        .map(|(op, &bytes)| (bytes, op as u32))
        .max_by_key(|&(bytes, op)| (bytes, std::cmp::Reverse(op)))
        .unwrap_or((0, 0))
}

/// The most bytes swapped tensors hold in host memory at once under
/// `decisions`: each from the op after its offload to the op that brings it
/// back, whose copy reads it. (A compressed copy's block is taken at the
/// codec's worst case and shrunk once its size is known; counted at the
/// tensor's size.)
pub fn host_peak(profile: &Profile, decisions: &[Decision]) -> u64 {
    let intervals = decisions
        .iter()
        .filter(|d| d.action == Action::Swap && d.prefetch_at > d.offload_after)
        .map(|d| (d.offload_after + 1, d.prefetch_at, d.bytes));
    peak_of(&sweep(profile.op_count, intervals)).0
}

/// Where a tensor was on the device, as recorded: `(first op, last op,
/// bytes)` from its production, a load or a rebuild to the next offload,
/// drop or its release.
pub fn recorded_intervals(t: &TensorProfile, op_count: u32) -> Vec<(u32, u32, u64)> {
    let end = t.released_at.unwrap_or(op_count);
    let mut out = Vec::new();
    let mut from = Some(t.key.op);
    let mut moves: Vec<(u32, bool)> = t
        .offloaded_at
        .iter()
        .chain(&t.dropped_at)
        .map(|&o| (o, false))
        .collect();
    moves.extend(t.loaded_at.iter().chain(&t.rebuilt_at).map(|&l| (l, true)));
    moves.sort();
    for (at, is_load) in moves {
        match (is_load, from) {
            (false, Some(f)) => {
                out.push((f, at, t.bytes));
                from = None;
            }
            (true, None) => from = Some(at),
            _ => {}
        }
    }
    if let Some(f) = from {
        out.push((f, end, t.bytes));
    }
    out
}

/// The bytes of `tensors` on the device during each of `op_count` ops, as recorded.
pub fn recorded<'a>(
    tensors: impl IntoIterator<Item = &'a TensorProfile>,
    op_count: u32,
) -> Vec<u64> {
    sweep(
        op_count,
        tensors
            .into_iter()
            .flat_map(|t| recorded_intervals(t, op_count)),
    )
}

/// Saved bytes on the device during each of `op_count` ops, as recorded.
pub fn recorded_saved(tensors: &[TensorProfile], op_count: u32) -> Vec<u64> {
    recorded(tensors.iter().filter(|t| t.saved), op_count)
}

/// Where a tensor was in host memory, as recorded: `(first op, last op,
/// bytes)` from the op after an offload to the op before the next load (or
/// to its release, if it never came back). The op of the offload and the
/// op of the load count on the device, as in [`recorded_intervals`].
pub fn recorded_host_intervals(t: &TensorProfile, op_count: u32) -> Vec<(u32, u32, u64)> {
    let end = t.released_at.unwrap_or(op_count);
    let mut moves: Vec<(u32, bool)> = t.offloaded_at.iter().map(|&o| (o, false)).collect();
    moves.extend(t.loaded_at.iter().map(|&l| (l, true)));
    moves.sort();
    let mut out = Vec::new();
    let mut since = None;
    for (at, is_load) in moves {
        match (is_load, since) {
            (false, None) => since = Some(at + 1),
            (true, Some(from)) => {
                if at > from {
                    out.push((from, at - 1, t.bytes));
                }
                since = None;
            }
            _ => {}
        }
    }
    if let Some(from) = since {
        out.push((from, end, t.bytes));
    }
    out
}

/// Saved bytes in host memory (offloaded and not yet brought back) during
/// each of `op_count` ops, as recorded.
pub fn recorded_saved_on_host(tensors: &[TensorProfile], op_count: u32) -> Vec<u64> {
    sweep(
        op_count,
        tensors
            .iter()
            .filter(|t| t.saved)
            .flat_map(|t| recorded_host_intervals(t, op_count)),
    )
}

/// Saved bytes resident at each op of `profile` under `decisions`. A
/// download holds its device memory until its copy is done, so a swapped
/// tensor is counted on the device through the op after its offload (a
/// recomputed one only through its last forward use); a link
/// slower than that is met by the executor, which waits for downloads
/// rather than go over the budget.
///
/// A compressed copy needs more than the tensor where it is made and where
/// it is undone: the compressor's output, allocated for the worst case
/// ([`Codec::capacity_bytes`](crate::cost::Codec::capacity_bytes)), is
/// held with the tensor at its offload and until its download is done; on
/// the way back only the uploaded copy, sized by the tensor's zeros
/// ([`bytes_coming_back`]), is held from its prefetch, and it meets the
/// decompressed tensor at the op that needs it.
pub fn resident_timeline(profile: &Profile, decisions: &[Decision]) -> Vec<u64> {
    let tensors: FxHashMap<TensorKey, (u32, &TensorProfile)> = profile
        .saved_tensors()
        .map(|t| (t.key, (t.released_at.unwrap_or(profile.op_count), t)))
        .collect();
    let mut intervals = Vec::with_capacity(decisions.len() * 2);
    for d in decisions {
        let (release, tensor) = match tensors.get(&d.key) {
            Some(&(release, t)) => (release, Some(t)),
            None => (profile.op_count, None),
        };
        match d.action {
            Action::Keep => intervals.push((d.key.op, release, d.bytes)),
            Action::Swap => {
                let held = (d.offload_after + 1).min(release);
                match d.codec {
                    None => {
                        intervals.push((d.key.op, held, d.bytes));
                        intervals.push((d.prefetch_at, release, d.bytes));
                    }
                    Some(codec) => {
                        let dtype = tensor.map_or("F32", |t| t.dtype.as_str());
                        let (left, needed) =
                            (d.offload_after.min(release), d.needed_at.min(release));
                        intervals.push((d.key.op, left, d.bytes));
                        intervals.push((left, held, codec.capacity_bytes(dtype, d.bytes)));
                        let back = bytes_coming_back(d, tensor);
                        intervals.push((d.prefetch_at.min(needed), needed, back));
                        intervals.push((needed, release, d.bytes));
                    }
                }
            }
            // Freed as its last forward use ends; rebuilt as the op that
            // needs it starts. An earlier equal output that stands in is
            // that output's buffer, which lives until then anyway: nothing
            // is added. (A ReLU's output that stands in lives until its
            // input's last use instead of its own, the input's bytes: so
            // it is counted as the input rebuilt.)
            // A tensor forward frees is working memory there (the
            // footprint's); made again for a rebuild, it lives while the
            // tensors made from it are made, counted at the op that needs
            // them all at once (the chain holds two or three at a time).
            Action::Recompute if d.transient => {
                intervals.push((d.needed_at, d.needed_at, d.bytes));
            }
            Action::Recompute => {
                intervals.push((d.key.op, d.offload_after.min(release), d.bytes));
                if d.earlier_stand_in().is_none() {
                    intervals.push((d.needed_at, release, d.bytes));
                }
            }
        }
    }
    sweep(profile.op_count, intervals)
}

/// The device bytes swapped tensor `d` holds from its prefetch until the
/// op that needs it: itself, or its compressed copy, sized by the zeros
/// `tensor` (its profile) counted
/// ([`Codec::coming_back_bytes`](crate::cost::Codec::coming_back_bytes)).
pub fn bytes_coming_back(d: &Decision, tensor: Option<&TensorProfile>) -> u64 {
    match d.codec {
        None => d.bytes,
        Some(codec) => {
            let dtype = tensor.map_or("F32", |t| t.dtype.as_str());
            let zeros = tensor.and_then(|t| t.zero_fraction).map(f64::from);
            // Not compressed (a bitmap of a tensor of more values): whole.
            let zeros = zeros.filter(|_| codec.compresses(tensor));
            codec.coming_back_bytes(dtype, d.bytes, zeros)
        }
    }
}

/// Peak saved bytes on the device, and the op where it occurs, if the
/// iteration in `profile` ran under `decisions`.
pub fn simulate(profile: &Profile, decisions: &[Decision]) -> (u64, u32) {
    peak_of(&resident_timeline(profile, decisions))
}

#[cfg(test)]
mod tests;
