//! Eager parameter initialisation.
//!
//! Burn 0.21 creates parameters lazily: a `Param` draws its initial values
//! from the backend's RNG the first time it is read, usually inside the first
//! forward pass. That makes the first forward consume random numbers the later
//! ones do not, so a run seeded with `B::seed` before its first forward draws
//! different dropout masks than one seeded later. Every `init` in this crate
//! therefore materialises all parameters at once, in module order.

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::tensor::{Bool, Int, Tensor};

struct Materialize;

impl<B: Backend> ModuleVisitor<B> for Materialize {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<B, D>>) {
        let _ = param.val();
    }
    fn visit_int<const D: usize>(&mut self, param: &Param<Tensor<B, D, Int>>) {
        let _ = param.val();
    }
    fn visit_bool<const D: usize>(&mut self, param: &Param<Tensor<B, D, Bool>>) {
        let _ = param.val();
    }
}

/// Initialises every lazily created parameter of `module` now, in module
/// order, and returns the module.
pub fn materialize<B: Backend, M: Module<B>>(module: M) -> M {
    module.visit(&mut Materialize);
    module
}

struct CountTrainable(usize);

impl<B: Backend> ModuleVisitor<B> for CountTrainable {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<B, D>>) {
        let value = param.val();
        if value.is_require_grad() {
            self.0 += value.shape().num_elements();
        }
    }
}

/// Number of trainable parameter values (those that get gradients) of
/// `module`. Unlike `Module::num_params` it leaves out batch-norm running
/// statistics, so it matches PyTorch's `sum(p.numel() for p in
/// model.parameters())`. Only an autodiff backend tracks gradients, hence the
/// bound.
pub fn trainable_params<B: AutodiffBackend, M: Module<B>>(module: &M) -> usize {
    let mut count = CountTrainable(0);
    module.visit(&mut count);
    count.0
}
