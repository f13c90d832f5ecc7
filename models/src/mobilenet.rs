//! MobileNet v1 (Howard et al. 2017), width multiplier 1.
//!
//! A 3x3 convolution to 32 channels, then thirteen depthwise separable blocks
//! (a 3x3 depthwise convolution, `groups` = channels, and a 1x1 pointwise
//! convolution, each with batch-norm and relu), global average pool and a
//! 1024-classes linear layer. ImageNet: the first convolution has stride 2
//! (224 -> 112 -> ... -> 7). CIFAR: stride 1 (32 -> 16 -> 8 -> 4 -> 2), as in
//! the usual CIFAR variant.

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

use crate::image::{global_avg_pool, ConvBn, ImageShape};
use crate::params::materialize;

/// (output channels, stride) of the thirteen depthwise separable blocks.
const BLOCKS: [(usize, usize); 13] = [
    (64, 1),
    (128, 2),
    (128, 1),
    (256, 2),
    (256, 1),
    (512, 2),
    (512, 1),
    (512, 1),
    (512, 1),
    (512, 1),
    (512, 1),
    (1024, 2),
    (1024, 1),
];

/// Configuration of [`MobileNetV1`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MobileNetV1Config {
    /// Input shape.
    pub image: ImageShape,
    /// Output classes.
    pub classes: usize,
}

impl MobileNetV1Config {
    /// MobileNet v1 for `image` with `classes` outputs.
    pub fn new(image: ImageShape, classes: usize) -> Self {
        Self { image, classes }
    }

    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> MobileNetV1<B> {
        let stem_stride = if self.image == ImageShape::ImageNet {
            2
        } else {
            1
        };
        let mut cin = 32;
        let blocks = BLOCKS
            .iter()
            .map(|&(cout, stride)| {
                let block = DepthwiseSeparable {
                    depthwise: ConvBn::new([cin, cin], 3, stride, 1, cin, true, device),
                    pointwise: ConvBn::new([cin, cout], 1, 1, 0, 1, true, device),
                };
                cin = cout;
                block
            })
            .collect();
        materialize(MobileNetV1 {
            stem: ConvBn::new([3, 32], 3, stem_stride, 1, 1, true, device),
            blocks,
            fc: LinearConfig::new(1024, self.classes).init(device),
        })
    }
}

/// A 3x3 depthwise convolution and a 1x1 pointwise one, each with batch-norm and relu.
#[derive(Module, Debug)]
pub struct DepthwiseSeparable<B: Backend> {
    depthwise: ConvBn<B>,
    pointwise: ConvBn<B>,
}

/// MobileNet v1; see the [module documentation](self).
#[derive(Module, Debug)]
pub struct MobileNetV1<B: Backend> {
    stem: ConvBn<B>,
    blocks: Vec<DepthwiseSeparable<B>>,
    fc: Linear<B>,
}

impl<B: Backend> MobileNetV1<B> {
    /// Images `[N, 3, H, W]` to logits `[N, classes]`.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 2> {
        let mut x = self.stem.forward(x);
        for block in &self.blocks {
            x = block.pointwise.forward(block.depthwise.forward(x));
        }
        self.fc.forward(global_avg_pool(x))
    }
}
