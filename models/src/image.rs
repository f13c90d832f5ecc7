//! Image input shapes and the layers the image models share.

use std::fmt;
use std::str::FromStr;

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::backend::Backend;
use burn::tensor::module::adaptive_avg_pool2d;
use burn::tensor::Tensor;

/// The input shape an image model is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImageShape {
    /// CIFAR-10: `[N, 3, 32, 32]`, 10 classes.
    #[default]
    Cifar,
    /// ImageNet: `[N, 3, 224, 224]`, 1000 classes.
    ImageNet,
}

impl ImageShape {
    /// Height and width in pixels.
    pub fn size(self) -> usize {
        match self {
            ImageShape::Cifar => 32,
            ImageShape::ImageNet => 224,
        }
    }

    /// The input tensor shape for `batch` images.
    pub fn dims(self, batch: usize) -> [usize; 4] {
        let s = self.size();
        [batch, 3, s, s]
    }

    /// The usual class count of the data set this shape comes from.
    pub fn default_classes(self) -> usize {
        match self {
            ImageShape::Cifar => 10,
            ImageShape::ImageNet => 1000,
        }
    }
}

impl fmt::Display for ImageShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ImageShape::Cifar => "cifar",
            ImageShape::ImageNet => "imagenet",
        })
    }
}

/// An image shape name that is not `cifar` or `imagenet`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownImageShape(pub String);

impl fmt::Display for UnknownImageShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown image shape `{}`: expected `cifar` (32x32) or `imagenet` (224x224)",
            self.0
        )
    }
}

impl std::error::Error for UnknownImageShape {}

impl FromStr for ImageShape {
    type Err = UnknownImageShape;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "cifar" | "cifar10" | "cifar-10" | "32" => Ok(ImageShape::Cifar),
            "imagenet" | "224" => Ok(ImageShape::ImageNet),
            _ => Err(UnknownImageShape(s.to_string())),
        }
    }
}

/// A `k`x`k` convolution with the given stride, symmetric padding and groups.
pub(crate) fn conv<B: Backend>(
    channels: [usize; 2],
    kernel: usize,
    stride: usize,
    padding: usize,
    groups: usize,
    bias: bool,
    device: &B::Device,
) -> Conv2d<B> {
    Conv2dConfig::new(channels, [kernel, kernel])
        .with_stride([stride, stride])
        .with_padding(PaddingConfig2d::Explicit(
            padding, padding, padding, padding,
        ))
        .with_groups(groups)
        .with_bias(bias)
        .init(device)
}

/// A `k`x`k` max-pool with the given stride and padding.
pub(crate) fn max_pool(kernel: usize, stride: usize, padding: usize) -> MaxPool2d {
    MaxPool2dConfig::new([kernel, kernel])
        .with_strides([stride, stride])
        .with_padding(PaddingConfig2d::Explicit(
            padding, padding, padding, padding,
        ))
        .init()
}

/// Global average pool: `[N, C, H, W]` to `[N, C]`.
pub(crate) fn global_avg_pool<B: Backend>(x: Tensor<B, 4>) -> Tensor<B, 2> {
    adaptive_avg_pool2d(x, [1, 1]).flatten(1, 3)
}

/// A convolution (no bias) followed by batch-norm and, optionally, relu.
#[derive(Module, Debug)]
pub struct ConvBn<B: Backend> {
    conv: Conv2d<B>,
    bn: BatchNorm<B>,
    relu: bool,
}

impl<B: Backend> ConvBn<B> {
    /// conv(k, stride, padding, groups) + batch-norm (+ relu when `relu`).
    pub(crate) fn new(
        channels: [usize; 2],
        kernel: usize,
        stride: usize,
        padding: usize,
        groups: usize,
        relu: bool,
        device: &B::Device,
    ) -> Self {
        Self {
            conv: conv(channels, kernel, stride, padding, groups, false, device),
            bn: BatchNormConfig::new(channels[1]).init(device),
            relu,
        }
    }

    /// Applies the convolution, the batch-norm and the relu if it has one.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 4> {
        let y = self.bn.forward(self.conv.forward(x));
        if self.relu {
            relu(y)
        } else {
            y
        }
    }
}
