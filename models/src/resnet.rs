//! ResNet-50 (He et al. 2015) with bottleneck blocks and batch-norm.
//!
//! Stages of 3, 4, 6, 3 bottlenecks (1x1, 3x3, 1x1 convolutions, each with
//! batch-norm, widths 64, 128, 256, 512, expansion 4), a 1x1 projection on
//! the skip where the shape changes, the stride on the 3x3 convolution
//! (torchvision's v1.5), global average pool and a 2048-classes linear
//! layer. ImageNet stem: 7x7/2 conv, batch-norm, relu, 3x3/2 max-pool. CIFAR
//! stem: 3x3/1 conv, batch-norm, relu and no pool (the usual CIFAR variant).

use burn::module::Module;
use burn::nn::pool::MaxPool2d;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

use crate::image::{global_avg_pool, max_pool, ConvBn, ImageShape};
use crate::params::materialize;

const EXPANSION: usize = 4;

/// Configuration of [`ResNet50`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResNet50Config {
    /// Input shape.
    pub image: ImageShape,
    /// Output classes.
    pub classes: usize,
}

impl ResNet50Config {
    /// ResNet-50 for `image` with `classes` outputs.
    pub fn new(image: ImageShape, classes: usize) -> Self {
        Self { image, classes }
    }

    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> ResNet50<B> {
        let (stem, stem_pool) = match self.image {
            ImageShape::ImageNet => (
                ConvBn::new([3, 64], 7, 2, 3, 1, true, device),
                Some(max_pool(3, 2, 1)),
            ),
            ImageShape::Cifar => (ConvBn::new([3, 64], 3, 1, 1, 1, true, device), None),
        };
        let mut blocks = Vec::new();
        let mut cin = 64;
        for (stage, (&width, &count)) in [64, 128, 256, 512].iter().zip(&[3, 4, 6, 3]).enumerate() {
            for i in 0..count {
                let stride = if stage > 0 && i == 0 { 2 } else { 1 };
                blocks.push(Bottleneck::new(cin, width, stride, device));
                cin = width * EXPANSION;
            }
        }
        materialize(ResNet50 {
            stem,
            stem_pool,
            blocks,
            fc: LinearConfig::new(512 * EXPANSION, self.classes).init(device),
        })
    }
}

/// A bottleneck block: 1x1 reduce, 3x3 (strided), 1x1 expand, each with
/// batch-norm; projection skip where the shape changes; relu after the sum.
#[derive(Module, Debug)]
pub struct Bottleneck<B: Backend> {
    reduce: ConvBn<B>,
    conv: ConvBn<B>,
    expand: ConvBn<B>,
    projection: Option<ConvBn<B>>,
}

impl<B: Backend> Bottleneck<B> {
    fn new(cin: usize, width: usize, stride: usize, device: &B::Device) -> Self {
        let cout = width * EXPANSION;
        Self {
            reduce: ConvBn::new([cin, width], 1, 1, 0, 1, true, device),
            conv: ConvBn::new([width, width], 3, stride, 1, 1, true, device),
            expand: ConvBn::new([width, cout], 1, 1, 0, 1, false, device),
            projection: (stride != 1 || cin != cout)
                .then(|| ConvBn::new([cin, cout], 1, stride, 0, 1, false, device)),
        }
    }

    /// Applies the block.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 4> {
        let skip = match &self.projection {
            Some(p) => p.forward(x.clone()),
            None => x.clone(),
        };
        let y = self
            .expand
            .forward(self.conv.forward(self.reduce.forward(x)));
        relu(y + skip)
    }
}

/// ResNet-50; see the [module documentation](self).
#[derive(Module, Debug)]
pub struct ResNet50<B: Backend> {
    stem: ConvBn<B>,
    stem_pool: Option<MaxPool2d>,
    blocks: Vec<Bottleneck<B>>,
    fc: Linear<B>,
}

impl<B: Backend> ResNet50<B> {
    /// Images `[N, 3, H, W]` to logits `[N, classes]`.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 2> {
        let mut x = self.stem.forward(x);
        if let Some(pool) = &self.stem_pool {
            x = pool.forward(x);
        }
        for block in &self.blocks {
            x = block.forward(x);
        }
        self.fc.forward(global_avg_pool(x))
    }
}
