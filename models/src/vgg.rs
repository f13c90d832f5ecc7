//! VGG16 (Simonyan and Zisserman 2014, configuration D).
//!
//! Thirteen 3x3 convolutions in five stages of 64, 128, 256, 512, 512
//! channels, each stage ending in a 2x2/2 max-pool. ImageNet: adaptive pool to
//! 7x7 and the 25088-4096-4096-classes classifier with dropout (torchvision
//! `vgg16`). CIFAR: the features end at 512x1x1 and a single linear layer
//! classifies them (the common CIFAR variant). Batch-norm after every
//! convolution is optional (`vgg16_bn`); off by default.

use burn::module::Module;
use burn::nn::conv::Conv2d;
use burn::nn::pool::MaxPool2d;
use burn::nn::{BatchNorm, BatchNormConfig, Dropout, DropoutConfig, Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::backend::Backend;
use burn::tensor::module::adaptive_avg_pool2d;
use burn::tensor::Tensor;

use crate::image::{conv, max_pool, ImageShape};
use crate::params::materialize;

/// Channels per stage; every stage ends with a max-pool.
const STAGES: [&[usize]; 5] = [
    &[64, 64],
    &[128, 128],
    &[256, 256, 256],
    &[512, 512, 512],
    &[512, 512, 512],
];

/// Configuration of [`Vgg16`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vgg16Config {
    /// Input shape.
    pub image: ImageShape,
    /// Output classes.
    pub classes: usize,
    /// Batch-norm after every convolution. Default false.
    pub batch_norm: bool,
    /// Dropout probability in the ImageNet classifier. Default 0.5.
    pub dropout: f64,
}

impl Vgg16Config {
    /// VGG16 for `image` with `classes` outputs.
    pub fn new(image: ImageShape, classes: usize) -> Self {
        Self {
            image,
            classes,
            batch_norm: false,
            dropout: 0.5,
        }
    }

    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> Vgg16<B> {
        let mut layers = Vec::new();
        let mut cin = 3;
        for stage in STAGES {
            for (i, &cout) in stage.iter().enumerate() {
                layers.push(VggConv {
                    conv: conv([cin, cout], 3, 1, 1, 1, !self.batch_norm, device),
                    bn: self
                        .batch_norm
                        .then(|| BatchNormConfig::new(cout).init(device)),
                    pool_after: i + 1 == stage.len(),
                });
                cin = cout;
            }
        }
        let classifier = match self.image {
            ImageShape::ImageNet => vec![
                LinearConfig::new(512 * 7 * 7, 4096).init(device),
                LinearConfig::new(4096, 4096).init(device),
                LinearConfig::new(4096, self.classes).init(device),
            ],
            ImageShape::Cifar => vec![LinearConfig::new(512, self.classes).init(device)],
        };
        materialize(Vgg16 {
            layers,
            pool: max_pool(2, 2, 0),
            pooled: if self.image == ImageShape::ImageNet {
                7
            } else {
                1
            },
            dropout: DropoutConfig::new(self.dropout).init(),
            classifier,
        })
    }
}

/// One convolution of VGG: conv (+ batch-norm), relu, max-pool at the end of a stage.
#[derive(Module, Debug)]
pub struct VggConv<B: Backend> {
    conv: Conv2d<B>,
    bn: Option<BatchNorm<B>>,
    pool_after: bool,
}

/// VGG16; see the [module documentation](self).
#[derive(Module, Debug)]
pub struct Vgg16<B: Backend> {
    layers: Vec<VggConv<B>>,
    pool: MaxPool2d,
    pooled: usize,
    dropout: Dropout,
    classifier: Vec<Linear<B>>,
}

impl<B: Backend> Vgg16<B> {
    /// Images `[N, 3, H, W]` to logits `[N, classes]`.
    pub fn forward(&self, mut x: Tensor<B, 4>) -> Tensor<B, 2> {
        for layer in &self.layers {
            x = layer.conv.forward(x);
            if let Some(bn) = &layer.bn {
                x = bn.forward(x);
            }
            x = relu(x);
            if layer.pool_after {
                x = self.pool.forward(x);
            }
        }
        let mut x = adaptive_avg_pool2d(x, [self.pooled, self.pooled]).flatten(1, 3);
        let last = self.classifier.len() - 1;
        for (i, fc) in self.classifier.iter().enumerate() {
            x = fc.forward(x);
            if i < last {
                x = self.dropout.forward(relu(x));
            }
        }
        x
    }
}
