//! Plain20: the 20-layer plain network of the ResNet paper's CIFAR
//! experiments (He et al. 2015, section 4.2), i.e. ResNet-20 without its
//! shortcuts.
//!
//! A 3x3 convolution to 16 channels, then three stages of six 3x3
//! convolutions with 16, 32 and 64 channels (the first of stages two and
//! three has stride 2), every convolution followed by batch-norm and relu,
//! then a global average pool and a 64-classes linear layer: 19 convolutions
//! and 1 linear layer. ImageNet inputs get the ResNet ImageNet stem instead
//! of the 3x3 one (a 7x7/2 convolution and a 3x3/2 max-pool, 224 -> 56), so
//! the stages run at 56, 28 and 14 pixels rather than at full resolution.

use burn::module::Module;
use burn::nn::pool::MaxPool2d;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

use crate::image::{global_avg_pool, max_pool, ConvBn, ImageShape};
use crate::params::materialize;

/// Configuration of [`Plain20`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plain20Config {
    /// Input shape.
    pub image: ImageShape,
    /// Output classes.
    pub classes: usize,
}

impl Plain20Config {
    /// Plain20 for `image` with `classes` outputs.
    pub fn new(image: ImageShape, classes: usize) -> Self {
        Self { image, classes }
    }

    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> Plain20<B> {
        let (stem, stem_pool) = match self.image {
            ImageShape::ImageNet => (
                ConvBn::new([3, 16], 7, 2, 3, 1, true, device),
                Some(max_pool(3, 2, 1)),
            ),
            ImageShape::Cifar => (ConvBn::new([3, 16], 3, 1, 1, 1, true, device), None),
        };
        let mut layers = Vec::new();
        let mut cin = 16;
        for (stage, cout) in [16, 32, 64].into_iter().enumerate() {
            for i in 0..6 {
                let stride = if stage > 0 && i == 0 { 2 } else { 1 };
                layers.push(ConvBn::new([cin, cout], 3, stride, 1, 1, true, device));
                cin = cout;
            }
        }
        materialize(Plain20 {
            stem,
            stem_pool,
            layers,
            fc: LinearConfig::new(64, self.classes).init(device),
        })
    }
}

/// Plain20; see the [module documentation](self).
#[derive(Module, Debug)]
pub struct Plain20<B: Backend> {
    stem: ConvBn<B>,
    stem_pool: Option<MaxPool2d>,
    layers: Vec<ConvBn<B>>,
    fc: Linear<B>,
}

impl<B: Backend> Plain20<B> {
    /// Images `[N, 3, H, W]` to logits `[N, classes]`.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 2> {
        let mut x = self.stem.forward(x);
        if let Some(pool) = &self.stem_pool {
            x = pool.forward(x);
        }
        for layer in &self.layers {
            x = layer.forward(x);
        }
        self.fc.forward(global_avg_pool(x))
    }
}
