#![warn(missing_docs)]

//! Models shared by burn-swap's examples, benches and tests.
//!
//! Every model is generic over the Burn backend (`B: Backend`), so the same
//! code trains with `Autodiff<B>`, `SwapAutodiff<B>` or any other decorated
//! backend.
//!
//! - [`zoo`]: pick a model by name ([`ModelKind`], [`ModelSpec`]), build it
//!   as one [`Model`] type, draw a deterministic [`Batch`] for it, compute
//!   its loss, and train it with Adam ([`Trainer`]).
//! - The real models, one module each: [`alexnet`], [`vgg`] (VGG16),
//!   [`resnet`] (ResNet-50), [`mobilenet`] (MobileNet v1), [`squeezenet`],
//!   [`plain`] (Plain20), [`gpt`] (a GPT-2-small-style decoder). Image models
//!   build for CIFAR (32x32) and ImageNet (224x224) inputs ([`ImageShape`]).
//! - [`test_nets`]: small networks for unit and integration tests (an MLP, a
//!   small CNN with batch-norm and dropout, a residual block, a transformer
//!   block), each a forward plus backward in well under a second on the CPU.
//! - [`cifar10`]: real CIFAR-10 batches from the binary distribution.
//! - [`synthetic`]: deterministic data from a seed, generated on the host (no
//!   backend RNG, no files).
//! - [`loss`]: the cross-entropy used by every model.
//! - [`params`]: eager parameter initialisation (every `init` here uses it, so
//!   seeding the backend before a forward pass makes dropout reproducible).
//! - [`bytes`]: gradients and parameters as raw bytes, for bit-for-bit
//!   comparisons between backends.

pub mod alexnet;
pub mod bytes;
pub mod cifar10;
pub mod gpt;
pub mod image;
pub mod loss;
pub mod mobilenet;
pub mod params;
pub mod plain;
pub mod resnet;
pub mod squeezenet;
pub mod synthetic;
pub mod test_nets;
pub mod vgg;
pub mod zoo;

pub use gpt::{Gpt, GptConfig};
pub use image::ImageShape;
pub use zoo::{synthetic_batch, Batch, Model, ModelKind, ModelSpec, Trainer, UnknownModel};
