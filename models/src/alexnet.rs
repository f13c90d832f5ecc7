//! AlexNet (Krizhevsky et al. 2012, the single-tower torchvision layout).
//!
//! ImageNet: conv 11x11/4, 5x5, three 3x3, with three 3x3/2 max-pools, an
//! adaptive pool to 6x6, and a 9216-4096-4096-classes classifier with dropout.
//! CIFAR: the usual small-image variant: the first conv is 3x3/2, pools are
//! 2x2/2 (32 -> 16 -> 8 -> 4 -> 2), the classifier takes 256*2*2 features.

use burn::module::Module;
use burn::nn::conv::Conv2d;
use burn::nn::pool::MaxPool2d;
use burn::nn::{Dropout, DropoutConfig, Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::backend::Backend;
use burn::tensor::module::adaptive_avg_pool2d;
use burn::tensor::Tensor;

use crate::image::{conv, max_pool, ImageShape};
use crate::params::materialize;

/// Configuration of [`AlexNet`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlexNetConfig {
    /// Input shape.
    pub image: ImageShape,
    /// Output classes.
    pub classes: usize,
    /// Dropout probability in the classifier. Default 0.5.
    pub dropout: f64,
}

impl AlexNetConfig {
    /// AlexNet for `image` with `classes` outputs.
    pub fn new(image: ImageShape, classes: usize) -> Self {
        Self {
            image,
            classes,
            dropout: 0.5,
        }
    }

    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> AlexNet<B> {
        let (conv1, pool, pooled) = match self.image {
            ImageShape::ImageNet => (
                conv([3, 64], 11, 4, 2, 1, true, device),
                max_pool(3, 2, 0),
                6,
            ),
            ImageShape::Cifar => (
                conv([3, 64], 3, 2, 1, 1, true, device),
                max_pool(2, 2, 0),
                2,
            ),
        };
        materialize(AlexNet {
            conv1,
            conv2: conv([64, 192], 5, 1, 2, 1, true, device),
            conv3: conv([192, 384], 3, 1, 1, 1, true, device),
            conv4: conv([384, 256], 3, 1, 1, 1, true, device),
            conv5: conv([256, 256], 3, 1, 1, 1, true, device),
            pool,
            pooled,
            dropout: DropoutConfig::new(self.dropout).init(),
            fc1: LinearConfig::new(256 * pooled * pooled, 4096).init(device),
            fc2: LinearConfig::new(4096, 4096).init(device),
            fc3: LinearConfig::new(4096, self.classes).init(device),
        })
    }
}

/// AlexNet; see the [module documentation](self).
#[derive(Module, Debug)]
pub struct AlexNet<B: Backend> {
    conv1: Conv2d<B>,
    conv2: Conv2d<B>,
    conv3: Conv2d<B>,
    conv4: Conv2d<B>,
    conv5: Conv2d<B>,
    pool: MaxPool2d,
    pooled: usize,
    dropout: Dropout,
    fc1: Linear<B>,
    fc2: Linear<B>,
    fc3: Linear<B>,
}

impl<B: Backend> AlexNet<B> {
    /// Images `[N, 3, H, W]` to logits `[N, classes]`.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 2> {
        let x = self.pool.forward(relu(self.conv1.forward(x)));
        let x = self.pool.forward(relu(self.conv2.forward(x)));
        let x = relu(self.conv3.forward(x));
        let x = relu(self.conv4.forward(x));
        let x = self.pool.forward(relu(self.conv5.forward(x)));
        let x = adaptive_avg_pool2d(x, [self.pooled, self.pooled]).flatten(1, 3);
        let x = relu(self.fc1.forward(self.dropout.forward(x)));
        let x = relu(self.fc2.forward(self.dropout.forward(x)));
        self.fc3.forward(x)
    }
}
