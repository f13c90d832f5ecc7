//! Rebuilt tensors compared on the device with the tensors they stand for.
//!
//! A rebuilt tensor must have the bits its op made in forward, or the
//! gradients drift from plain's. Under burn's fusion an op rebuilt in
//! backward runs outside the fused block it ran in during forward (on a
//! stream of its own, so the training stream's blocks stay as they are): a
//! matmul or a reduction can then sum in another order (on an H200,
//! GPT-small's loss went one bit off plain's when such rebuilds were read at
//! once). Even element-wise ops are compiled into other kernels than in
//! forward (nvrtc contracts a multiply and an add into one rounding). So
//! each rebuilt tensor is compared once with the tensor itself: it is kept
//! aside in forward instead of freed, its rebuild is made in backward, and
//! both are read back and compared when the next iteration begins. Under
//! fusion backward reads the tensor kept aside, so no iteration reads a
//! rebuild before one gave its bits; a rebuild of an op other than
//! element-wise and layout ones is read only then, and where its tensors
//! can never be compared (over the bytes for checks) it is not rebuilt. An
//! op whose rebuild differed is not rebuilt again: its tensors stay from
//! then on, and the plan is made anew. Without fusion backward reads the
//! rebuild in the iteration that checks it; one that differed there is
//! warned of.

use std::collections::{HashMap, HashSet};

use burn_backend::{read_sync, Backend, ExecutionError};

use crate::handle::TensorId;
use crate::profiler::TensorKey;

/// A rebuilt tensor and the one it stands for, both still on the device.
pub(crate) trait RebuildCheck: Send {
    /// The tensor's id.
    fn id(&self) -> TensorId;
    /// Reads both back and compares them bit for bit.
    fn same_bits(self: Box<Self>) -> Result<bool, ExecutionError>;
}

/// [`RebuildCheck`] on `B`'s primitives.
pub(crate) struct SameBits<B: Backend> {
    id: TensorId,
    original: B::FloatTensorPrimitive,
    rebuilt: B::FloatTensorPrimitive,
}

impl<B: Backend> SameBits<B> {
    pub(crate) fn new(
        id: TensorId,
        original: B::FloatTensorPrimitive,
        rebuilt: B::FloatTensorPrimitive,
    ) -> Self {
        Self {
            id,
            original,
            rebuilt,
        }
    }
}

impl<B: Backend> RebuildCheck for SameBits<B> {
    fn id(&self) -> TensorId {
        self.id
    }
    fn same_bits(self: Box<Self>) -> Result<bool, ExecutionError> {
        let original = read_sync(B::float_into_data(self.original))?;
        let rebuilt = read_sync(B::float_into_data(self.rebuilt))?;
        Ok(original.as_bytes() == rebuilt.as_bytes())
    }
}

/// What becomes of a tensor the plan frees for a rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RebuildAs {
    /// Kept aside, and its rebuild compared with it.
    Checked,
    /// Freed, and rebuilt unchecked: checked before, not comparable (a
    /// ReLU's output standing in for its input), or over this iteration's
    /// bytes for checks.
    Unchecked,
    /// Not freed: a rebuild of its op differed before.
    Kept,
}

/// A rebuild that did not give the tensor's bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Differed {
    pub key: TensorKey,
    /// Its op's signature.
    pub signature: u64,
    /// The read that failed, where one did (the tensor is counted as
    /// differing: its op is not rebuilt again).
    pub read_error: Option<String>,
}

/// What the checks of one iteration found.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// Rebuilds compared.
    pub compared: u64,
    /// Those that differed.
    pub differed: Vec<Differed>,
    /// Tensors to be checked before their rebuild is read that cannot be:
    /// their ops are not rebuilt again.
    pub unverifiable: u64,
}

/// Which rebuilt tensors were checked, and what was found.
#[derive(Debug, Default)]
pub(crate) struct RebuildChecks {
    /// Tensors whose rebuild gave their bits: (op, output, op signature).
    same: HashSet<(u32, u16, u64)>,
    /// Ops, by signature, a rebuild of which differed: never rebuilt again.
    differ: HashSet<u64>,
    /// This iteration's tensors kept aside: id -> (key, op signature).
    pending: HashMap<TensorId, (TensorKey, u64)>,
    /// Device bytes kept aside this iteration (each tensor twice: it and
    /// its rebuild live until the comparison).
    kept_bytes: u64,
    /// Rebuilt tensors too large to check under the allowance.
    too_large: HashSet<(u32, u16, u64)>,
    /// Tensors kept aside once that backward never rebuilt: not kept
    /// aside again (each would hold the allowance every iteration).
    unread: HashSet<(u32, u16, u64)>,
    /// Ops, by signature, to be checked before a rebuild is read, whose
    /// tensors cannot be (over the allowance): never rebuilt.
    unverifiable: HashSet<u64>,
    /// Tensors found so since the last [`Self::finish`].
    unverifiable_new: u64,
}

impl RebuildChecks {
    /// What becomes of tensor `id` (`key`, `bytes`, made by an op of
    /// `signature`) that the plan frees for a rebuild, with `allowance`
    /// device bytes for checks an iteration. `comparable`: its rebuild is
    /// meant to have its bits. `verify_first`: its rebuild is read only
    /// once one gave its bits (it is checked first, or kept); where it never
    /// can be checked, its op is not rebuilt again.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_drop(
        &mut self,
        id: TensorId,
        key: TensorKey,
        signature: u64,
        bytes: u64,
        allowance: u64,
        comparable: bool,
        verify_first: bool,
    ) -> RebuildAs {
        if self.differ.contains(&signature) || self.unverifiable.contains(&signature) {
            return RebuildAs::Kept;
        }
        let at = (key.op, key.output, signature);
        if !comparable || self.same.contains(&at) {
            return RebuildAs::Unchecked;
        }
        // A tensor kept aside lives until its rebuild is compared; a
        // tensor to check first would stay otherwise, so only its rebuild
        // is more.
        let cost = match verify_first {
            true => bytes,
            false => bytes.saturating_mul(2),
        };
        if allowance == 0 || cost > allowance || self.unread.contains(&at) {
            if verify_first {
                self.unverifiable.insert(signature);
                self.unverifiable_new += 1;
                return RebuildAs::Kept;
            }
            if allowance > 0 && cost > allowance {
                self.too_large.insert(at);
            }
            return RebuildAs::Unchecked;
        }
        if self.kept_bytes + cost > allowance {
            tracing::debug!(
                op = key.op,
                output = key.output,
                bytes,
                "rebuild not checked in this iteration: its bytes for checks are taken"
            );
            return match verify_first {
                // Checked in a later iteration; kept meanwhile.
                true => RebuildAs::Kept,
                false => RebuildAs::Unchecked,
            };
        }
        self.kept_bytes += cost;
        self.pending.insert(id, (key, signature));
        RebuildAs::Checked
    }

    /// Whether an op of `signature` is not rebuilt any more: a rebuild of
    /// it differed, or it is to be checked first and cannot be (asked of
    /// every replayable op: nothing to hash while there is none).
    pub(crate) fn differs(&self, signature: u64) -> bool {
        (!self.differ.is_empty() && self.differ.contains(&signature))
            || (!self.unverifiable.is_empty() && self.unverifiable.contains(&signature))
    }

    /// The signatures of the ops not rebuilt any more (see [`Self::differs`]).
    pub(crate) fn differing(&self) -> HashSet<u64> {
        self.differ.union(&self.unverifiable).copied().collect()
    }

    /// Rebuilt tensors that are never checked: too large for the allowance.
    pub(crate) fn too_large(&self) -> usize {
        self.too_large.len()
    }

    /// Compares the iteration's rebuilds with their tensors (reading each
    /// back) and starts the next iteration's count.
    pub(crate) fn finish(&mut self, checks: Vec<Box<dyn RebuildCheck>>) -> Checked {
        let mut found = Checked::default();
        for check in checks {
            let Some((key, signature)) = self.pending.remove(&check.id()) else {
                continue;
            };
            found.compared += 1;
            let read_error = match check.same_bits() {
                Ok(true) => {
                    self.same.insert((key.op, key.output, signature));
                    continue;
                }
                Ok(false) => None,
                Err(err) => Some(format!("{err:?}")),
            };
            self.differ.insert(signature);
            found.differed.push(Differed {
                key,
                signature,
                read_error,
            });
        }
        // Kept aside, but never rebuilt (backward did not read them).
        for (_, (key, signature)) in self.pending.drain() {
            tracing::debug!(
                op = key.op,
                output = key.output,
                "kept aside for a check, but backward did not rebuild it"
            );
            self.unread.insert((key.op, key.output, signature));
        }
        self.kept_bytes = 0;
        found.unverifiable = std::mem::take(&mut self.unverifiable_new);
        found
    }
}

#[cfg(test)]
thread_local! {
    /// Checked rebuilds come out with other bits (a test of what follows).
    static SPOIL_CHECKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `rebuilt`, with other bits where a test asks for them.
#[cfg(test)]
pub(crate) fn spoiled<B: Backend>(rebuilt: B::FloatTensorPrimitive) -> B::FloatTensorPrimitive {
    match SPOIL_CHECKED.with(|s| s.get()) {
        true => B::float_add_scalar(rebuilt, 1.0f32.into()),
        false => rebuilt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed {
        id: TensorId,
        same: Result<bool, ()>,
    }

    impl RebuildCheck for Fixed {
        fn id(&self) -> TensorId {
            self.id
        }
        fn same_bits(self: Box<Self>) -> Result<bool, ExecutionError> {
            self.same.map_err(|()| ExecutionError::WithContext {
                reason: "the device is gone".into(),
            })
        }
    }

    fn key(op: u32) -> TensorKey {
        TensorKey { op, output: 0 }
    }

    fn check(id: TensorId, same: Result<bool, ()>) -> Box<dyn RebuildCheck> {
        Box::new(Fixed { id, same })
    }

    /// Tensor `id`, made by op `op` (of signature `10 + op`), freed for a
    /// comparable rebuild; with `verify_first`, one read only once a
    /// rebuild of it gave its bits.
    fn drop_as(
        checks: &mut RebuildChecks,
        (id, op, bytes, allowance): (TensorId, u32, u64, u64),
        verify_first: bool,
    ) -> RebuildAs {
        checks.on_drop(
            id,
            key(op),
            10 + op as u64,
            bytes,
            allowance,
            true,
            verify_first,
        )
    }

    /// [`drop_as`] for a rebuild read without waiting for a check.
    fn drop_one(
        checks: &mut RebuildChecks,
        id: TensorId,
        op: u32,
        bytes: u64,
        allowance: u64,
    ) -> RebuildAs {
        drop_as(checks, (id, op, bytes, allowance), false)
    }

    #[test]
    fn each_tensor_is_checked_once_within_the_allowance_an_iteration() {
        let mut checks = RebuildChecks::default();
        // 100 bytes for checks: two tensors of 25 (each counted twice).
        assert_eq!(drop_one(&mut checks, 1, 1, 25, 100), RebuildAs::Checked);
        assert_eq!(drop_one(&mut checks, 2, 2, 25, 100), RebuildAs::Checked);
        assert_eq!(drop_one(&mut checks, 3, 3, 25, 100), RebuildAs::Unchecked);
        let found = checks.finish(vec![check(1, Ok(true)), check(2, Ok(true))]);
        assert_eq!((found.compared, found.differed.len()), (2, 0));
        // The next iteration: the two checked are not checked again, the third is.
        assert_eq!(drop_one(&mut checks, 4, 1, 25, 100), RebuildAs::Unchecked);
        assert_eq!(drop_one(&mut checks, 5, 3, 25, 100), RebuildAs::Checked);
    }

    #[test]
    fn an_op_whose_rebuild_differed_is_not_freed_again() {
        let mut checks = RebuildChecks::default();
        assert_eq!(drop_one(&mut checks, 1, 1, 10, 100), RebuildAs::Checked);
        let found = checks.finish(vec![check(1, Ok(false))]);
        assert_eq!(
            found.differed,
            vec![Differed {
                key: key(1),
                signature: 11,
                read_error: None
            }]
        );
        assert!(checks.differs(11));
        // Another tensor of an op of that signature stays too.
        assert_eq!(
            checks.on_drop(2, key(7), 11, 10, 100, true, false),
            RebuildAs::Kept
        );
    }

    #[test]
    fn a_failed_read_counts_as_a_difference() {
        let mut checks = RebuildChecks::default();
        drop_one(&mut checks, 1, 1, 10, 100);
        let found = checks.finish(vec![check(1, Err(()))]);
        assert!(found.differed[0]
            .read_error
            .as_deref()
            .unwrap()
            .contains("the device is gone"));
        assert!(checks.differs(11));
    }

    #[test]
    fn stand_ins_tensors_too_large_or_never_rebuilt_and_no_allowance_go_unchecked() {
        let mut checks = RebuildChecks::default();
        assert_eq!(
            checks.on_drop(1, key(1), 11, 10, 100, false, false),
            RebuildAs::Unchecked
        );
        assert_eq!(drop_one(&mut checks, 2, 2, 60, 100), RebuildAs::Unchecked);
        assert_eq!(checks.too_large(), 1);
        assert_eq!(drop_one(&mut checks, 3, 3, 10, 0), RebuildAs::Unchecked);
        // What was kept aside but never rebuilt is not kept aside again.
        assert_eq!(drop_one(&mut checks, 4, 4, 10, 100), RebuildAs::Checked);
        assert_eq!(checks.finish(Vec::new()).compared, 0);
        assert_eq!(drop_one(&mut checks, 5, 4, 10, 100), RebuildAs::Unchecked);
    }

    #[test]
    fn a_rebuild_to_verify_first_is_kept_until_checked_and_its_op_dropped_if_it_never_can_be() {
        let mut checks = RebuildChecks::default();
        let expect = |checks: &mut RebuildChecks,
                      cases: &[(TensorId, u32, u64, u64, RebuildAs)]| {
            for &(id, op, bytes, allowance, want) in cases {
                let got = drop_as(checks, (id, op, bytes, allowance), true);
                assert_eq!(got, want, "tensor {id}");
            }
        };
        // 100 bytes for checks, each counting its rebuild only (it would
        // stay otherwise): the first of 60 is checked, the second waits for
        // the next iteration on the device.
        expect(
            &mut checks,
            &[
                (1, 1, 60, 100, RebuildAs::Checked),
                (2, 2, 60, 100, RebuildAs::Kept),
            ],
        );
        assert!(!checks.differs(12));
        let found = checks.finish(vec![check(1, Ok(true))]);
        assert_eq!((found.compared, found.unverifiable), (1, 0));
        // Verified: read unchecked from now on; the other is checked now.
        // Over the allowance, or with none: never checked, so its op is
        // not rebuilt again.
        expect(
            &mut checks,
            &[
                (3, 1, 60, 100, RebuildAs::Unchecked),
                (4, 2, 60, 100, RebuildAs::Checked),
                (5, 5, 110, 100, RebuildAs::Kept),
                (6, 6, 10, 0, RebuildAs::Kept),
            ],
        );
        assert!(checks.differs(15) && checks.differs(16));
        assert_eq!(checks.differing(), [15, 16].into_iter().collect());
        assert_eq!(checks.finish(vec![check(4, Ok(true))]).unverifiable, 2);
        assert_eq!(checks.too_large(), 0);
    }

    #[test]
    #[cfg_attr(
        not(feature = "recompute"),
        ignore = "without the `recompute` feature nothing is rebuilt"
    )]
    fn a_rebuild_that_differs_is_found_as_the_next_iteration_begins_and_not_made_again() {
        use burn::backend::{Autodiff, Flex};
        use burn_swap_models::bytes::gradients_per_iteration;
        use burn_swap_models::ModelKind;

        let (kind, batch, iterations) = (ModelKind::SmallCnn, 4, 5);
        let expected = gradients_per_iteration::<Autodiff<Flex>>(kind, batch, iterations, 7);
        crate::configure(
            crate::SwapConfig::builder()
                .policy(crate::policy::SuperNeurons)
                .min_swap_bytes(0)
                .build(),
        );
        SPOIL_CHECKED.with(|s| s.set(true));
        let actual =
            gradients_per_iteration::<crate::SwapAutodiff<Flex>>(kind, batch, iterations, 7);
        SPOIL_CHECKED.with(|s| s.set(false));
        // The first iteration to follow the plan (the third: the second is
        // profiled again) read the rebuilds; the next one found they
        // differ as it began and kept those tensors; the plan made at its
        // end no longer rebuilds them.
        let differing: Vec<usize> = (0..iterations)
            .filter(|&i| expected[i] != actual[i])
            .collect();
        assert_eq!(differing, vec![2]);
        let differed = crate::warnings().into_iter().find_map(|w| match w {
            crate::SwapWarning::RebuildDiffered { tensors, read, .. } => Some((tensors, read)),
            _ => None,
        });
        // Without fusion backward read the rebuilds.
        assert!(
            differed.is_some_and(|(n, read)| n > 0 && read),
            "{:?}",
            crate::warnings()
        );
        let last = crate::last_iteration().expect("an iteration");
        assert_eq!(
            (last.rebuilds_checked, last.rebuilds_differed),
            (0, 0),
            "{last}"
        );
    }
}
