use super::{peak_of, resident_timeline, sweep};
use crate::plan::Decision;
use crate::profile::Profile;

/// The device bytes of an iteration that are not saved activations, op by op:
/// its working tensors (activation gradients, temporaries, and the
/// parameter gradients backward leaves behind), kept from production to
/// release as no plan moves them. Tensors forward makes that outlive the
/// iteration (parameters and optimizer state, new at each optimizer step)
/// replace ones from before, so they add nothing in the iterations a plan is
/// for and are not counted. Each op's workspace (buffers it takes and gives
/// back inside itself) counts at that op. A plan's device bytes at an op are
/// these plus its resident saved bytes. `Footprint::default()` counts nothing
/// besides them.
#[derive(Debug, Clone, Default)]
pub struct Footprint {
    other: Vec<u64>,
}

impl Footprint {
    /// The non-saved bytes of each op of `profile`.
    pub fn of(profile: &Profile) -> Self {
        let n = profile.op_count;
        let backward = profile.backward_start.unwrap_or(n);
        let other = sweep(
            n,
            profile
                .tensors
                .iter()
                .filter(|t| !t.saved && (t.released_at.is_some() || t.key.op >= backward))
                .map(|t| (t.key.op, t.released_at.unwrap_or(n), t.bytes))
                .chain(
                    profile
                        .ops
                        .iter()
                        .map(|o| (o.index, o.index, o.workspace_bytes)),
                ),
        );
        Self { other }
    }

    /// The most non-saved bytes at any op: the least a budget must hold.
    pub fn peak_other(&self) -> u64 {
        self.other.iter().copied().max().unwrap_or(0)
    }

    /// Non-saved bytes at op `op`.
    pub fn other_at(&self, op: usize) -> u64 {
        self.other.get(op).copied().unwrap_or(0)
    }

    /// The iteration's device bytes at each op under `decisions`.
    pub fn timeline(&self, profile: &Profile, decisions: &[Decision]) -> Vec<u64> {
        resident_timeline(profile, decisions)
            .into_iter()
            .enumerate()
            .map(|(op, saved)| saved + self.other_at(op))
            .collect()
    }

    /// Peak device bytes under `decisions`, and the op where it occurs.
    pub fn peak(&self, profile: &Profile, decisions: &[Decision]) -> (u64, u32) {
        peak_of(&self.timeline(profile, decisions))
    }
}
