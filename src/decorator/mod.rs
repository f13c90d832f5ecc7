//! `Swapping<B>`: the backend decorator.
//!
//! Its float primitive is a residency handle ([`SwapTensor`]); int, bool and
//! quantized primitives are `B`'s own. Every op (generated in
//! `src/forwarding.rs`) does the same few things through an `OpScope`:
//! resolve its float inputs to `B`'s primitives, call `B`'s own op, wrap the
//! float outputs in new handles, and tell the executor, which records the
//! op and carries out the plan's offloads and prefetches.

pub(crate) mod overrides;
mod time;

use std::any::Any;
use std::marker::PhantomData;
use std::sync::{Arc, Weak};
use std::time::Instant;

use burn_backend::{Backend, BackendTypes};

use crate::executor::{self, next_tensor_id, Leave};
use crate::handle::{
    recipe_of, ManagedSlot, Recipe, RecipeInput, Replay, Residency, Slot, SwapTensor, TensorId,
    Tracker, TransientRecipe,
};
use crate::profiler::{dtype_name, OpRecord, OutputInfo};
use crate::transfer::TransferOptions;

/// A backend that manages where `B`'s saved activations live.
///
/// Use it under autodiff, through [`SwapAutodiff`](crate::SwapAutodiff)
/// (`Autodiff<Swapping<B>>` plus iteration boundaries).
#[derive(Clone, Copy, Debug, Default)]
pub struct Swapping<B> {
    _inner: PhantomData<B>,
}

impl<B: Backend> BackendTypes for Swapping<B> {
    type Device = B::Device;
    type FloatTensorPrimitive = SwapTensor<B>;
    type FloatElem = B::FloatElem;
    type IntTensorPrimitive = B::IntTensorPrimitive;
    type IntElem = B::IntElem;
    type BoolTensorPrimitive = B::BoolTensorPrimitive;
    type BoolElem = B::BoolElem;
    type QuantizedTensorPrimitive = B::QuantizedTensorPrimitive;
}

pub use time::{op_thread_time, OpThreadTime};
pub(crate) use time::{timed, timed_ns, Part};

/// One op on its way through the decorator.
pub(crate) struct OpScope<B: Backend> {
    /// Its place in the training iteration; `None` for an op called on the
    /// inner backend directly (see [`crate::autodiff::TrainingOp`]).
    index: Option<u32>,
    name: &'static str,
    signature: u64,
    inputs: Vec<TensorId>,
    /// Inputs other handles still share: the plan may offload them after the op.
    shared_inputs: Vec<Arc<Slot<B>>>,
    outputs: Vec<Arc<Slot<B>>>,
    started: Option<Instant>,
    tracker: Arc<Tracker>,
    /// Inputs another thread made, now accounted here: (id, bytes, on the device).
    adopted: Vec<(TensorId, u64, bool)>,
    /// The op can run again on the same inputs (see [`Self::replayable`]).
    replayable: bool,
    /// The plan rebuilds this op's output in backward: its float inputs,
    /// kept for the rebuild.
    recipe_inputs: Option<Vec<RecipeInput<B>>>,
    /// Its output is a tensor forward frees that a rebuilt tensor is made
    /// from: its recipe goes to the tensors made from it, not to a rebuild.
    makes_transient: bool,
    /// Bytes of the float inputs so far.
    input_bytes: u64,
    /// The float inputs' shapes, for an op whose work is arithmetic
    /// (`cost::work::counts_flops`).
    input_shapes: Option<Vec<Vec<usize>>>,
    /// Where `begin` handed over to the inner op (training ops only).
    begun: Option<time::HandedOver>,
}

/// FNV-1a: op signatures only need to be stable and cheap.
fn mix(hash: u64, value: u64) -> u64 {
    (hash ^ value).wrapping_mul(0x100_0000_01b3)
}

impl<B: Backend> OpScope<B> {
    pub(crate) fn begin(name: &'static str) -> Self {
        let entered = Instant::now();
        crate::runtime_failure::check_before_op(
            |failed| executor::with(|e| e.memory_when_failed(failed)),
            |skipped| executor::with(|e| e.autotune_candidates_skipped(skipped)),
        );
        let training = crate::autodiff::in_training_op();
        let fused = crate::transfer::is_fused::<B>();
        let (start, tracker) =
            executor::with(|e| (training.then(|| e.begin_op(fused)), e.tracker()));
        let recipe_inputs = start
            .as_ref()
            .is_some_and(|s| s.keeps_recipe)
            .then(|| Vec::with_capacity(2));
        let makes_transient = start.as_ref().is_some_and(|s| s.makes_transient);
        let mut started = None;
        if let Some(start) = &start {
            for slot in &start.prefetch {
                slot.prefetch();
            }
            if start.timing && fused {
                crate::notice::once("op timing under fusion", || {
                    "BURN_SWAP_TIMING times every op by synchronising the device around it; under burn's fusion that changes which ops fuse, and the gradients of timed iterations are not bit-identical to Autodiff<B> (measured on CUDA)".to_string()
                });
            }
            started = start.timing.then(|| {
                let _ = B::sync(&B::Device::default());
                Instant::now()
            });
        }
        let signature = name
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325, |h, b| mix(h, b as u64));
        let index = start.map(|s| s.index);
        let begun = index.map(|_| time::handed_over(entered));
        Self {
            index,
            name,
            signature,
            inputs: Vec::with_capacity(2),
            shared_inputs: Vec::new(),
            outputs: Vec::with_capacity(1),
            started,
            tracker,
            adopted: Vec::new(),
            replayable: false,
            recipe_inputs,
            makes_transient,
            input_bytes: 0,
            input_shapes: burn_swap_plan::cost::work::counts_flops(name).then(Vec::new),
            begun,
        }
    }

    /// Marks the op as one that can run again on the same inputs (generated
    /// for deterministic ops of float tensors with one float output), and
    /// says whether the plan rebuilds its output: then its float inputs are
    /// kept, and the op hands its [`Self::recipe`] over once it ran. Under
    /// burn's fusion a rebuild of an op other than element-wise and layout
    /// ones is read only once one gave its tensor's bits (the executor's
    /// `verify_first`).
    pub(crate) fn replayable(&mut self) -> bool {
        self.replayable = true;
        self.recipe_inputs.is_some()
    }

    /// How to run the op again, for its output's rebuild in backward.
    pub(crate) fn recipe(&mut self, replay: Replay<B>) {
        if let (Some(inputs), Some(output)) = (self.recipe_inputs.take(), self.outputs.first()) {
            match self.makes_transient {
                true => output.set_transient_recipe(TransientRecipe::new(inputs, replay)),
                false => output.set_recipe(recipe_of(inputs, replay)),
            }
        }
    }

    fn note_input(&mut self, slot: &Slot<B>) {
        if slot.adopt(&self.tracker) {
            let resident = slot.residency() != Residency::OnHost;
            self.adopted.push((slot.id, slot.bytes, resident));
        }
        self.inputs.push(slot.id);
        self.input_bytes += slot.bytes;
        if let Some(shapes) = &mut self.input_shapes {
            shapes.push(slot.shape.to_vec());
        }
        self.signature = mix(self.signature, slot.dtype.size() as u64);
        for &dim in slot.shape.iter() {
            self.signature = mix(self.signature, dim as u64);
        }
    }

    /// `B`'s primitive for a float input.
    pub(crate) fn input(&mut self, tensor: SwapTensor<B>) -> B::FloatTensorPrimitive {
        self.note_input(&tensor.slot);
        if let Some(inputs) = &mut self.recipe_inputs {
            inputs.push(tensor.slot.as_recipe_input());
        }
        if Arc::strong_count(&tensor.slot) > 1 {
            self.shared_inputs.push(tensor.slot.clone());
        }
        tensor.into_primitive()
    }

    /// `B`'s primitive for a float input passed by reference.
    pub(crate) fn input_ref(&mut self, tensor: &SwapTensor<B>) -> B::FloatTensorPrimitive {
        self.note_input(&tensor.slot);
        tensor.slot.resident_clone()
    }

    /// Wraps a float output of `B` in a new handle.
    pub(crate) fn output(&mut self, primitive: B::FloatTensorPrimitive) -> SwapTensor<B> {
        let tensor = SwapTensor::new(next_tensor_id(), primitive, self.tracker.clone());
        self.outputs.push(tensor.slot.clone());
        tensor
    }

    /// Reports the op and carries out the offloads the plan asks for now.
    pub(crate) fn finish(self) {
        let Some(begun) = self.begun else {
            return self.finish_op();
        };
        let entered = time::taken_back(begun);
        self.finish_op();
        time::own_since(entered);
    }

    fn finish_op(self) {
        if !self.adopted.is_empty() {
            executor::with(|e| {
                for &(id, bytes, resident) in &self.adopted {
                    e.adopt(id, bytes, resident);
                }
            });
        }
        let Some(index) = self.index else {
            let outputs: Vec<_> = self.outputs.iter().map(|s| (s.id, s.bytes)).collect();
            executor::with(|e| e.outside_op(&outputs));
            return;
        };
        if self.started.is_some() {
            let _ = B::sync(&B::Device::default());
        }
        let flops = self.input_shapes.as_ref().map_or(0, |shapes| {
            let output_elems = self.outputs.first().map_or(0, |s| s.shape.num_elements());
            burn_swap_plan::cost::work::op_flops(self.name, shapes, output_elems as u64)
        });
        let output_bytes: u64 = self.outputs.iter().map(|s| s.bytes).sum();
        let record = OpRecord {
            flops,
            bytes: self.input_bytes + output_bytes,
            index,
            name: self.name,
            signature: self.signature,
            inputs: self.inputs,
            outputs: self.outputs.iter().map(|s| s.id).collect(),
            replayable: self.replayable,
            output_info: self
                .outputs
                .iter()
                .enumerate()
                .map(|(n, s)| OutputInfo {
                    id: s.id,
                    output: n as u16,
                    bytes: s.bytes,
                    shape: s.shape.to_vec(),
                    dtype: dtype_name(s.dtype),
                })
                .collect(),
        };
        let (started, outputs) = (self.started, &self.outputs);
        let end = executor::with(|e| {
            if e.wants_probe() {
                if let Some(slot) = outputs.first() {
                    e.install_probe(crate::transfer::memory_probe::<B>(&slot.device));
                }
            }
            let slots = || {
                outputs
                    .iter()
                    .map(|s| Arc::downgrade(s) as Weak<dyn ManagedSlot>)
                    .collect()
            };
            e.finish_op(record, started, slots)
        });
        let holds_budget = end.holds_budget;
        if !end.remember.is_empty() {
            let slots = self
                .outputs
                .iter()
                .filter(|s| end.remember.contains(&s.id))
                .map(|s| (s.id, Arc::downgrade(s) as Weak<dyn Any + Send + Sync>));
            executor::with(|e| e.remember_stand_ins(slots));
        }
        for (id, earlier) in end.equal_to {
            let output = self.outputs.iter().find(|s| s.id == id);
            // Another backend's slot (two on one thread) cannot stand in:
            // without a recipe the tensor stays.
            if let (Some(output), Ok(earlier)) = (output, earlier.downcast::<Slot<B>>()) {
                // The same element-wise op of the same tensors: the same bits.
                output.set_recipe(Recipe::stand_in(earlier));
            }
        }
        for &(id, output) in &end.stand_ins {
            let input = self.shared_inputs.iter().find(|s| s.id == id);
            if let (Some(input), Some(output)) = (input, self.outputs.get(output as usize)) {
                // `relu_backward` reads only which elements are positive,
                // which the output tells as the input does.
                input.set_recipe(Recipe::stand_in(output.clone()));
            }
        }
        for slot in end.evict {
            evict(&slot, &end.transfer);
        }
        for (id, leave) in end.leave {
            let slot = self
                .shared_inputs
                .iter()
                .chain(self.outputs.iter())
                .find(|s| s.id == id);
            let Some(slot) = slot else { continue };
            let codec = match leave {
                Leave::ForRebuild { check } => {
                    slot.drop_for_rebuild(check);
                    continue;
                }
                Leave::ToHost(codec) => codec,
            };
            offload(slot.clone(), &end.transfer, codec);
        }
        for (slot, codec) in end.leave_elsewhere {
            offload(slot, &end.transfer, codec);
        }
        // While an iteration without a plan is profiled under a budget (where
        // autotune needs the device's room), the training thread keeps pace
        // with the runtime's thread, so that the buffers it asked to move off
        // leave before later ops run.
        crate::transfer::progress(end.keep_pace);
        if holds_budget {
            wait_for_budget();
        }
    }
}

/// Copies a tensor the plan moves now to the host; a refusal or failure
/// leaves it on the device, counted there.
fn offload(
    slot: Arc<dyn ManagedSlot>,
    options: &TransferOptions,
    codec: Option<crate::policy::Codec>,
) {
    let id = slot.id();
    match slot.offload(options, codec) {
        Ok(bytes) => {
            let weak = Arc::downgrade(&slot);
            executor::with(|e| e.offloaded(id, bytes, weak));
        }
        // A refusal by design is summed up once, at the end of the iteration.
        Err(err @ crate::TransferError::Unsupported(_)) => {
            tracing::debug!(tensor = id, %err, "offload refused; the tensor stays on the device");
            executor::with(|e| e.transfer_refused(&err));
        }
        Err(err) => {
            tracing::warn!(tensor = id, %err, "offload failed; the tensor stays on the device");
            executor::with(|e| e.transfer_refused(&err));
        }
    }
}

/// Waits for the downloads that still hold device memory the budget needs
/// back (none while the link keeps up with compute).
fn wait_for_budget() {
    let downloads = executor::with(|e| e.downloads_to_wait_for());
    if downloads.is_empty() {
        return;
    }
    let _span = tracing::trace_span!("budget_wait", downloads = downloads.len()).entered();
    let ((), nanos) = timed_ns(Part::BudgetWait, || {
        for slot in &downloads {
            slot.wait_downloaded();
        }
    });
    executor::with(|e| e.waited_for_budget(nanos));
}

/// Moves a tensor off the device because the profiled iteration went over
/// the budget; a refusal puts it back in the executor's count.
fn evict(slot: &Arc<dyn ManagedSlot>, options: &TransferOptions) {
    let id = slot.id();
    let refused_for_good = match slot.offload(options, None) {
        Ok(0) => false, // not resident after all (a copy was already under way)
        Ok(bytes) => {
            executor::with(|e| e.downloading(bytes, Arc::downgrade(slot)));
            return;
        }
        Err(err @ crate::TransferError::Unsupported(_)) => {
            tracing::debug!(tensor = id, %err, "eviction refused; the tensor stays on the device");
            crate::notice::once("offload refused", || {
                format!("tensors stay on the device: {err}")
            });
            true
        }
        Err(err) => {
            tracing::warn!(tensor = id, %err, "eviction failed; the tensor stays on the device");
            true
        }
    };
    executor::with(|e| e.eviction_refused(id, refused_for_good));
}
