//! SqueezeNet 1.0 (Iandola et al. 2016).
//!
//! A stem convolution, eight fire modules (a 1x1 squeeze convolution feeding
//! parallel 1x1 and 3x3 expand convolutions whose outputs are concatenated,
//! all with relu) with max-pools after the stem, fire 4 and fire 8, dropout,
//! a 1x1 convolution to the classes, relu and a global average pool.
//! ImageNet: 7x7/2 stem to 96 channels and 3x3/2 pools. CIFAR: 3x3/1 stem and
//! 2x2/2 pools (32 -> 16 -> 8 -> 4).

use burn::module::Module;
use burn::nn::conv::Conv2d;
use burn::nn::pool::MaxPool2d;
use burn::nn::{Dropout, DropoutConfig};
use burn::tensor::activation::relu;
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

use crate::image::{conv, global_avg_pool, max_pool, ImageShape};
use crate::params::materialize;

/// (squeeze, expand 1x1, expand 3x3) channels of the eight fire modules.
const FIRES: [(usize, usize, usize); 8] = [
    (16, 64, 64),
    (16, 64, 64),
    (32, 128, 128),
    (32, 128, 128),
    (48, 192, 192),
    (48, 192, 192),
    (64, 256, 256),
    (64, 256, 256),
];

/// Fire modules followed by a max-pool (0-based).
const POOL_AFTER: [usize; 2] = [2, 6];

/// Configuration of [`SqueezeNet`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SqueezeNetConfig {
    /// Input shape.
    pub image: ImageShape,
    /// Output classes.
    pub classes: usize,
    /// Dropout probability before the classifier. Default 0.5.
    pub dropout: f64,
}

impl SqueezeNetConfig {
    /// SqueezeNet for `image` with `classes` outputs.
    pub fn new(image: ImageShape, classes: usize) -> Self {
        Self {
            image,
            classes,
            dropout: 0.5,
        }
    }

    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> SqueezeNet<B> {
        let (stem, pool) = match self.image {
            ImageShape::ImageNet => (conv([3, 96], 7, 2, 0, 1, true, device), max_pool(3, 2, 0)),
            ImageShape::Cifar => (conv([3, 96], 3, 1, 1, 1, true, device), max_pool(2, 2, 0)),
        };
        let mut cin = 96;
        let fires = FIRES
            .iter()
            .enumerate()
            .map(|(i, &(squeeze, e1, e3))| {
                let fire = Fire {
                    squeeze: conv([cin, squeeze], 1, 1, 0, 1, true, device),
                    expand1x1: conv([squeeze, e1], 1, 1, 0, 1, true, device),
                    expand3x3: conv([squeeze, e3], 3, 1, 1, 1, true, device),
                    pool_after: POOL_AFTER.contains(&i),
                };
                cin = e1 + e3;
                fire
            })
            .collect();
        materialize(SqueezeNet {
            stem,
            pool,
            fires,
            dropout: DropoutConfig::new(self.dropout).init(),
            classifier: conv([cin, self.classes], 1, 1, 0, 1, true, device),
        })
    }
}

/// A fire module: 1x1 squeeze, then 1x1 and 3x3 expands concatenated.
#[derive(Module, Debug)]
pub struct Fire<B: Backend> {
    squeeze: Conv2d<B>,
    expand1x1: Conv2d<B>,
    expand3x3: Conv2d<B>,
    pool_after: bool,
}

impl<B: Backend> Fire<B> {
    /// Applies the module.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 4> {
        let s = relu(self.squeeze.forward(x));
        Tensor::cat(
            vec![
                relu(self.expand1x1.forward(s.clone())),
                relu(self.expand3x3.forward(s)),
            ],
            1,
        )
    }
}

/// SqueezeNet 1.0; see the [module documentation](self).
#[derive(Module, Debug)]
pub struct SqueezeNet<B: Backend> {
    stem: Conv2d<B>,
    pool: MaxPool2d,
    fires: Vec<Fire<B>>,
    dropout: Dropout,
    classifier: Conv2d<B>,
}

impl<B: Backend> SqueezeNet<B> {
    /// Images `[N, 3, H, W]` to logits `[N, classes]`.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 2> {
        let mut x = self.pool.forward(relu(self.stem.forward(x)));
        for fire in &self.fires {
            x = fire.forward(x);
            if fire.pool_after {
                x = self.pool.forward(x);
            }
        }
        let x = relu(self.classifier.forward(self.dropout.forward(x)));
        global_avg_pool(x)
    }
}
