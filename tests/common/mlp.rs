//! The two-layer perceptron the training-loop tests train.

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

/// Inputs and outputs per sample.
pub const FEATURES: usize = 16;
pub const TARGETS: usize = 4;

#[derive(Module, Debug)]
pub struct Mlp<B: Backend> {
    a: Linear<B>,
    b: Linear<B>,
}

impl<B: Backend> Mlp<B> {
    pub fn new(device: &B::Device) -> Self {
        Self {
            a: LinearConfig::new(FEATURES, 64).init(device),
            b: LinearConfig::new(64, TARGETS).init(device),
        }
    }

    pub fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        self.b.forward(relu(self.a.forward(x)))
    }

    /// Every parameter, as bytes.
    pub fn param_bytes(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for linear in [&self.a, &self.b] {
            out.push(linear.weight.val().into_data().as_bytes().to_vec());
            if let Some(bias) = &linear.bias {
                out.push(bias.val().into_data().as_bytes().to_vec());
            }
        }
        out
    }
}
