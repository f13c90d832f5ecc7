//! A model's gradients and parameters as raw bytes, for bit-for-bit
//! comparisons between backends (`Autodiff<B>` against a decorated one).

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::tensor::Tensor;

use crate::{Batch, Model, ModelKind, ModelSpec, Trainer};

struct GradBytes<'a, B: AutodiffBackend> {
    grads: &'a B::Gradients,
    out: Vec<Vec<u8>>,
}

impl<B: AutodiffBackend> ModuleVisitor<B> for GradBytes<'_, B> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<B, D>>) {
        let bytes = param
            .val()
            .grad(self.grads)
            .map(|g| g.into_data().as_bytes().to_vec());
        self.out.push(bytes.unwrap_or_default());
    }
}

struct ParamBytes {
    out: Vec<Vec<u8>>,
}

impl<B: Backend> ModuleVisitor<B> for ParamBytes {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<B, D>>) {
        self.out.push(param.val().into_data().as_bytes().to_vec());
    }
}

/// Every parameter's gradient, as bytes, in module order.
pub fn grad_bytes<B: AutodiffBackend>(model: &Model<B>, grads: &B::Gradients) -> Vec<Vec<u8>> {
    let mut v = GradBytes::<B> {
        grads,
        out: Vec::new(),
    };
    model.visit(&mut v);
    v.out
}

/// Every parameter, as bytes, in module order.
pub fn param_bytes<B: Backend>(model: &Model<B>) -> Vec<Vec<u8>> {
    let mut v = ParamBytes { out: Vec::new() };
    model.visit(&mut v);
    v.out
}

/// Gradients of `iterations` backward passes of `kind` on the same batch
/// (no optimizer), each as a list of byte vectors, plus the loss bytes.
pub fn gradients_per_iteration<B: AutodiffBackend>(
    kind: ModelKind,
    batch_size: usize,
    iterations: usize,
    seed: u64,
) -> Vec<Vec<Vec<u8>>> {
    let device = B::Device::default();
    B::seed(&device, seed);
    let spec = ModelSpec::new(kind);
    let model: Model<B> = spec.init(&device);
    let batch: Batch<B> = spec.synthetic_batch(batch_size, seed, &device);
    (0..iterations)
        .map(|_| {
            let loss = model.loss(&batch);
            let mut out = vec![loss.clone().into_data().as_bytes().to_vec()];
            let grads = loss.backward();
            out.extend(grad_bytes(&model, &grads));
            out
        })
        .collect()
}

/// Parameters after `steps` Adam steps (a fresh batch each step).
pub fn params_after_training<B: AutodiffBackend>(
    kind: ModelKind,
    steps: usize,
    seed: u64,
) -> Vec<Vec<u8>> {
    let device = B::Device::default();
    B::seed(&device, seed);
    let spec = ModelSpec::new(kind);
    let mut trainer = Trainer::new(spec.init::<B>(&device), 1e-2);
    for step in 0..steps {
        let batch: Batch<B> = spec.synthetic_batch(4, seed + step as u64, &device);
        trainer.step(&batch);
    }
    param_bytes(trainer.model())
}
