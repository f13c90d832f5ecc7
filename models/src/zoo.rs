//! Choosing a model by name, drawing a synthetic batch for it, computing its
//! training loss, and taking optimizer steps, all generically.
//!
//! ```ignore
//! use burn_swap_models::{ModelKind, ModelSpec, ImageShape, Trainer};
//! let spec = ModelSpec::new("resnet50".parse()?).with_image(ImageShape::ImageNet);
//! let model = spec.init::<B>(&device);               // Model<B>
//! let batch = spec.synthetic_batch::<B>(64, 0, &device); // Batch<B>
//! let loss = model.loss(&batch);                     // Tensor<B, 1>
//! let mut trainer = Trainer::new(model, 1e-3);       // Adam
//! let loss = trainer.step(&batch);                   // forward, backward, Adam step
//! ```

use std::fmt;
use std::str::FromStr;

use burn::module::{AutodiffModule, Module};
use burn::optim::adaptor::OptimizerAdaptor;
use burn::optim::{Adam, AdamConfig, GradientsParams, Optimizer};
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::tensor::{Int, Tensor};

use crate::alexnet::{AlexNet, AlexNetConfig};
use crate::gpt::{Gpt, GptConfig};
use crate::image::ImageShape;
use crate::loss::{cross_entropy, sequence_cross_entropy};
use crate::mobilenet::{MobileNetV1, MobileNetV1Config};
use crate::plain::{Plain20, Plain20Config};
use crate::resnet::{ResNet50, ResNet50Config};
use crate::squeezenet::{SqueezeNet, SqueezeNetConfig};
use crate::synthetic;
use crate::test_nets::{
    Mlp, MlpConfig, ResidualNet, ResidualNetConfig, SmallCnn, SmallCnnConfig, TransformerNet,
    TransformerNetConfig,
};
use crate::vgg::{Vgg16, Vgg16Config};

/// Every model this crate builds, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelKind {
    /// `mlp`: [`Mlp`] test net.
    Mlp,
    /// `small-cnn`: [`SmallCnn`] test net.
    SmallCnn,
    /// `residual-net`: [`ResidualNet`] test net.
    ResidualNet,
    /// `transformer-net`: [`TransformerNet`] test net.
    TransformerNet,
    /// `alexnet`: [`AlexNet`].
    AlexNet,
    /// `vgg16`: [`Vgg16`].
    Vgg16,
    /// `resnet50`: [`ResNet50`].
    ResNet50,
    /// `mobilenet-v1`: [`MobileNetV1`].
    MobileNetV1,
    /// `squeezenet`: [`SqueezeNet`].
    SqueezeNet,
    /// `plain20`: [`Plain20`].
    Plain20,
    /// `gpt-small`: [`Gpt`] (its size comes from [`ModelSpec::gpt`]).
    GptSmall,
}

impl ModelKind {
    /// All kinds, test nets first.
    pub const ALL: [ModelKind; 11] = [
        ModelKind::Mlp,
        ModelKind::SmallCnn,
        ModelKind::ResidualNet,
        ModelKind::TransformerNet,
        ModelKind::AlexNet,
        ModelKind::Vgg16,
        ModelKind::ResNet50,
        ModelKind::MobileNetV1,
        ModelKind::SqueezeNet,
        ModelKind::Plain20,
        ModelKind::GptSmall,
    ];

    /// The real models (not the test nets).
    pub const REAL: [ModelKind; 7] = [
        ModelKind::AlexNet,
        ModelKind::Vgg16,
        ModelKind::ResNet50,
        ModelKind::MobileNetV1,
        ModelKind::SqueezeNet,
        ModelKind::Plain20,
        ModelKind::GptSmall,
    ];

    /// The name [`FromStr`] accepts and [`Display`](fmt::Display) writes.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Mlp => "mlp",
            ModelKind::SmallCnn => "small-cnn",
            ModelKind::ResidualNet => "residual-net",
            ModelKind::TransformerNet => "transformer-net",
            ModelKind::AlexNet => "alexnet",
            ModelKind::Vgg16 => "vgg16",
            ModelKind::ResNet50 => "resnet50",
            ModelKind::MobileNetV1 => "mobilenet-v1",
            ModelKind::SqueezeNet => "squeezenet",
            ModelKind::Plain20 => "plain20",
            ModelKind::GptSmall => "gpt-small",
        }
    }

    /// Whether the model takes images shaped by [`ModelSpec::image`].
    pub fn takes_image_shape(self) -> bool {
        matches!(
            self,
            ModelKind::AlexNet
                | ModelKind::Vgg16
                | ModelKind::ResNet50
                | ModelKind::MobileNetV1
                | ModelKind::SqueezeNet
                | ModelKind::Plain20
        )
    }
}

impl fmt::Display for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A model name [`ModelKind`] does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownModel(pub String);

impl fmt::Display for UnknownModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = ModelKind::ALL.iter().map(|k| k.name()).collect();
        write!(
            f,
            "unknown model `{}`: expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownModel {}

impl FromStr for ModelKind {
    type Err = UnknownModel;

    /// Accepts the [`name`](ModelKind::name)s, case-insensitively, with `_`
    /// for `-`, and the aliases `mobilenet`, `gpt`, `gpt2-small`, `resnet-50`,
    /// `vgg-16`, `plain-20`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key = s.trim().to_ascii_lowercase().replace('_', "-");
        let alias = match key.as_str() {
            "mobilenet" | "mobilenetv1" => Some(ModelKind::MobileNetV1),
            "gpt" | "gpt2-small" | "gpt2" => Some(ModelKind::GptSmall),
            "resnet-50" => Some(ModelKind::ResNet50),
            "vgg-16" => Some(ModelKind::Vgg16),
            "plain-20" => Some(ModelKind::Plain20),
            _ => None,
        };
        alias
            .or_else(|| ModelKind::ALL.into_iter().find(|k| k.name() == key))
            .ok_or_else(|| UnknownModel(s.to_string()))
    }
}

/// What to build: a kind plus the sizes it needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelSpec {
    /// Which model.
    pub kind: ModelKind,
    /// Input shape of the image models (ignored by the others). Default CIFAR.
    pub image: ImageShape,
    /// Classes of the image models (ignored by the others). Default 10.
    pub classes: usize,
    /// Size of the `gpt-small` decoder. Default [`GptConfig::small`].
    pub gpt: GptConfig,
}

impl ModelSpec {
    /// `kind` on CIFAR shapes with 10 classes; GPT-2 small sizes.
    pub fn new(kind: ModelKind) -> Self {
        Self {
            kind,
            image: ImageShape::Cifar,
            classes: ImageShape::Cifar.default_classes(),
            gpt: GptConfig::small(),
        }
    }

    /// Sets the image shape, and the classes to that data set's (10 or 1000).
    pub fn with_image(mut self, image: ImageShape) -> Self {
        self.image = image;
        self.classes = image.default_classes();
        self
    }

    /// Sets the class count of the image models.
    pub fn with_classes(mut self, classes: usize) -> Self {
        self.classes = classes;
        self
    }

    /// Sets the decoder's size.
    pub fn with_gpt(mut self, gpt: GptConfig) -> Self {
        self.gpt = gpt;
        self
    }

    /// Builds the model on `device`. Parameters come from the backend's RNG
    /// (seed it with `B::seed` first for reproducible weights).
    pub fn init<B: Backend>(&self, device: &B::Device) -> Model<B> {
        let (image, classes) = (self.image, self.classes);
        match self.kind {
            ModelKind::Mlp => Model::Mlp(MlpConfig::default().init(device)),
            ModelKind::SmallCnn => Model::SmallCnn(SmallCnnConfig::default().init(device)),
            ModelKind::ResidualNet => Model::ResidualNet(ResidualNetConfig::default().init(device)),
            ModelKind::TransformerNet => {
                Model::TransformerNet(TransformerNetConfig::default().init(device))
            }
            ModelKind::AlexNet => Model::AlexNet(AlexNetConfig::new(image, classes).init(device)),
            ModelKind::Vgg16 => Model::Vgg16(Vgg16Config::new(image, classes).init(device)),
            ModelKind::ResNet50 => {
                Model::ResNet50(ResNet50Config::new(image, classes).init(device))
            }
            ModelKind::MobileNetV1 => {
                Model::MobileNetV1(MobileNetV1Config::new(image, classes).init(device))
            }
            ModelKind::SqueezeNet => {
                Model::SqueezeNet(SqueezeNetConfig::new(image, classes).init(device))
            }
            ModelKind::Plain20 => Model::Plain20(Plain20Config::new(image, classes).init(device)),
            ModelKind::GptSmall => Model::Gpt(self.gpt.init(device)),
        }
    }

    /// A deterministic batch of `batch_size` samples for this model, drawn on
    /// the host from `seed` (the backend's RNG is not touched).
    pub fn synthetic_batch<B: Backend>(
        &self,
        batch_size: usize,
        seed: u64,
        device: &B::Device,
    ) -> Batch<B> {
        let n = batch_size;
        let labels = |classes| synthetic::classes([n], classes, seed.wrapping_add(1), device);
        match self.kind {
            ModelKind::Mlp => {
                let (inputs, targets) = MlpConfig::default().batch(n, seed, device);
                Batch::Features { inputs, targets }
            }
            ModelKind::SmallCnn => {
                let (images, targets) = SmallCnnConfig::default().batch(n, seed, device);
                Batch::Images { images, targets }
            }
            ModelKind::ResidualNet => {
                let (images, targets) = ResidualNetConfig::default().batch(n, seed, device);
                Batch::Images { images, targets }
            }
            ModelKind::TransformerNet => {
                let (tokens, targets) = TransformerNetConfig::default().batch(n, seed, device);
                Batch::Tokens { tokens, targets }
            }
            ModelKind::GptSmall => {
                let (tokens, targets) = self.gpt.batch(n, seed, device);
                Batch::Tokens { tokens, targets }
            }
            _ => Batch::Images {
                images: synthetic::normal(self.image.dims(n), seed, device),
                targets: labels(self.classes),
            },
        }
    }
}

/// A deterministic batch for `spec` (same as [`ModelSpec::synthetic_batch`]).
pub fn synthetic_batch<B: Backend>(
    spec: &ModelSpec,
    batch_size: usize,
    device: &B::Device,
    seed: u64,
) -> Batch<B> {
    spec.synthetic_batch(batch_size, seed, device)
}

/// One training batch: inputs and targets.
#[derive(Debug, Clone)]
pub enum Batch<B: Backend> {
    /// Feature vectors `[N, F]` and class targets `[N]` (the MLP).
    Features {
        /// `[N, F]`
        inputs: Tensor<B, 2>,
        /// `[N]`
        targets: Tensor<B, 1, Int>,
    },
    /// Images `[N, C, H, W]` and class targets `[N]`.
    Images {
        /// `[N, C, H, W]`
        images: Tensor<B, 4>,
        /// `[N]`
        targets: Tensor<B, 1, Int>,
    },
    /// Token ids `[N, T]` and next-token targets `[N, T]`.
    Tokens {
        /// `[N, T]`
        tokens: Tensor<B, 2, Int>,
        /// `[N, T]`
        targets: Tensor<B, 2, Int>,
    },
}

impl<B: Backend> Batch<B> {
    /// Samples in the batch (N).
    pub fn len(&self) -> usize {
        match self {
            Batch::Features { targets, .. } | Batch::Images { targets, .. } => targets.dims()[0],
            Batch::Tokens { targets, .. } => targets.dims()[0],
        }
    }

    /// Whether the batch has no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The batch on `device`.
    pub fn to_device(self, device: &B::Device) -> Self {
        match self {
            Batch::Features { inputs, targets } => Batch::Features {
                inputs: inputs.to_device(device),
                targets: targets.to_device(device),
            },
            Batch::Images { images, targets } => Batch::Images {
                images: images.to_device(device),
                targets: targets.to_device(device),
            },
            Batch::Tokens { tokens, targets } => Batch::Tokens {
                tokens: tokens.to_device(device),
                targets: targets.to_device(device),
            },
        }
    }
}

/// Any model of [`ModelKind`], as one type the optimizer and the examples can hold.
#[derive(Module, Debug)]
pub enum Model<B: Backend> {
    /// See [`Mlp`].
    Mlp(Mlp<B>),
    /// See [`SmallCnn`].
    SmallCnn(SmallCnn<B>),
    /// See [`ResidualNet`].
    ResidualNet(ResidualNet<B>),
    /// See [`TransformerNet`].
    TransformerNet(TransformerNet<B>),
    /// See [`AlexNet`].
    AlexNet(AlexNet<B>),
    /// See [`Vgg16`].
    Vgg16(Vgg16<B>),
    /// See [`ResNet50`].
    ResNet50(ResNet50<B>),
    /// See [`MobileNetV1`].
    MobileNetV1(MobileNetV1<B>),
    /// See [`SqueezeNet`].
    SqueezeNet(SqueezeNet<B>),
    /// See [`Plain20`].
    Plain20(Plain20<B>),
    /// See [`Gpt`].
    Gpt(Gpt<B>),
}

impl<B: Backend> Model<B> {
    /// Which kind of model this is.
    pub fn kind(&self) -> ModelKind {
        match self {
            Model::Mlp(_) => ModelKind::Mlp,
            Model::SmallCnn(_) => ModelKind::SmallCnn,
            Model::ResidualNet(_) => ModelKind::ResidualNet,
            Model::TransformerNet(_) => ModelKind::TransformerNet,
            Model::AlexNet(_) => ModelKind::AlexNet,
            Model::Vgg16(_) => ModelKind::Vgg16,
            Model::ResNet50(_) => ModelKind::ResNet50,
            Model::MobileNetV1(_) => ModelKind::MobileNetV1,
            Model::SqueezeNet(_) => ModelKind::SqueezeNet,
            Model::Plain20(_) => ModelKind::Plain20,
            Model::Gpt(_) => ModelKind::GptSmall,
        }
    }

    /// Images `[N, C, H, W]` to logits `[N, classes]`, for the models that take images.
    fn image_logits(&self, images: Tensor<B, 4>) -> Option<Tensor<B, 2>> {
        Some(match self {
            Model::SmallCnn(m) => m.forward(images),
            Model::ResidualNet(m) => m.forward(images),
            Model::AlexNet(m) => m.forward(images),
            Model::Vgg16(m) => m.forward(images),
            Model::ResNet50(m) => m.forward(images),
            Model::MobileNetV1(m) => m.forward(images),
            Model::SqueezeNet(m) => m.forward(images),
            Model::Plain20(m) => m.forward(images),
            _ => return None,
        })
    }

    /// The training loss (mean softmax cross-entropy) of the model on `batch`.
    ///
    /// # Panics
    /// If the batch is not the kind this model takes (images for a GPT, ...).
    pub fn loss(&self, batch: &Batch<B>) -> Tensor<B, 1> {
        match (self, batch) {
            (Model::Mlp(m), Batch::Features { inputs, targets }) => {
                cross_entropy(m.forward(inputs.clone()), targets.clone())
            }
            (Model::TransformerNet(m), Batch::Tokens { tokens, targets }) => {
                sequence_cross_entropy(m.forward(tokens.clone()), targets.clone())
            }
            (Model::Gpt(m), Batch::Tokens { tokens, targets }) => {
                sequence_cross_entropy(m.forward(tokens.clone()), targets.clone())
            }
            (model, Batch::Images { images, targets }) => {
                match model.image_logits(images.clone()) {
                    Some(logits) => cross_entropy(logits, targets.clone()),
                    None => panic!("{} does not take an image batch", model.kind()),
                }
            }
            (model, _) => panic!("{} does not take this kind of batch", model.kind()),
        }
    }
}

/// A model and its Adam optimizer: one call per training step.
pub struct Trainer<B: AutodiffBackend> {
    model: Option<Model<B>>,
    optimizer: OptimizerAdaptor<Adam, Model<B>, B>,
    lr: f64,
}

impl<B: AutodiffBackend> Trainer<B> {
    /// Trains `model` with Adam (burn's defaults: betas 0.9, 0.999, epsilon
    /// 1e-5, no weight decay) at learning rate `lr`.
    pub fn new(model: Model<B>, lr: f64) -> Self {
        Self::with_optimizer(model, AdamConfig::new(), lr)
    }

    /// Trains `model` with the given Adam configuration at learning rate `lr`.
    pub fn with_optimizer(model: Model<B>, adam: AdamConfig, lr: f64) -> Self {
        Self {
            model: Some(model),
            optimizer: adam.init(),
            lr,
        }
    }

    /// The model as it is now.
    pub fn model(&self) -> &Model<B> {
        self.model
            .as_ref()
            .expect("the model is only taken out during a step")
    }

    /// Gives the model back.
    pub fn into_model(mut self) -> Model<B> {
        self.model
            .take()
            .expect("the model is only taken out during a step")
    }

    /// One training step: forward, loss, backward, Adam update. Returns the
    /// loss (before the update), detached from the graph; reading it
    /// (`into_scalar`) synchronises with the device, so benchmarks may skip it.
    pub fn step(&mut self, batch: &Batch<B>) -> Tensor<B::InnerBackend, 1> {
        let loss = self.model().loss(batch);
        let grads = loss.backward();
        self.apply(grads);
        loss.inner()
    }

    /// The update half of a step: applies `grads` (from `loss.backward()` on
    /// a loss of [`model`](Self::model)) with Adam.
    pub fn apply(&mut self, grads: B::Gradients) {
        let model = self
            .model
            .take()
            .expect("the model is only taken out during a step");
        let grads = GradientsParams::from_grads(grads, &model);
        self.model = Some(self.optimizer.step(self.lr, model, grads));
    }
}

/// The model without autodiff (for evaluation).
pub fn inference_model<B: AutodiffBackend>(model: &Model<B>) -> Model<B::InnerBackend> {
    model.valid()
}
