//! The real models build for both image shapes, produce logits of the right
//! shape, train through `Autodiff<Flex>`, and have the parameter counts of
//! the reference implementations.

use std::sync::{Mutex, MutexGuard};

use burn::backend::{Autodiff, Flex};
use burn::module::Module;
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;
use burn_swap_models::params::trainable_params;
use burn_swap_models::zoo::inference_model;
use burn_swap_models::{Batch, GptConfig, ImageShape, Model, ModelKind, ModelSpec, Trainer};

type B = Autodiff<Flex>;

/// Flex's RNG is one process-wide generator (parameter init and dropout both
/// draw from it), so tests that seed it must not interleave with tests that
/// build models. Every test here holds this lock.
static RNG: Mutex<()> = Mutex::new(());

fn rng_lock() -> MutexGuard<'static, ()> {
    RNG.lock().unwrap_or_else(|e| e.into_inner())
}

fn logits<BB: Backend>(model: &Model<BB>, images: Tensor<BB, 4>) -> Tensor<BB, 2> {
    // The loss path is what the examples use; logits come through the
    // per-model forward, reached here through the enum.
    match model {
        Model::AlexNet(m) => m.forward(images),
        Model::Vgg16(m) => m.forward(images),
        Model::ResNet50(m) => m.forward(images),
        Model::MobileNetV1(m) => m.forward(images),
        Model::SqueezeNet(m) => m.forward(images),
        Model::Plain20(m) => m.forward(images),
        other => panic!("{} is not an image model", other.kind()),
    }
}

fn image_kinds() -> impl Iterator<Item = ModelKind> {
    ModelKind::REAL
        .into_iter()
        .filter(|k| k.takes_image_shape())
}

#[test]
fn every_image_model_trains_one_step_on_cifar_shapes() {
    let _rng = rng_lock();
    let device = Default::default();
    for kind in image_kinds() {
        let spec = ModelSpec::new(kind);
        let model: Model<B> = spec.init(&device);
        let batch = spec.synthetic_batch::<B>(2, 3, &device);
        let Batch::Images { images, .. } = &batch else {
            panic!("{kind}: expected an image batch")
        };
        assert_eq!(images.dims(), [2, 3, 32, 32]);
        assert_eq!(logits(&model, images.clone()).dims(), [2, 10], "{kind}");
        let loss = model.loss(&batch);
        let value: f32 = loss.clone().into_scalar();
        assert!(value.is_finite(), "{kind}: loss {value}");
        let _grads = loss.backward();
    }
}

/// Parameter counts of torchvision's models with 1000 classes (and of the
/// papers' for Plain20-style nets), so the layer shapes match the references.
fn reference_params(kind: ModelKind) -> Option<usize> {
    match kind {
        ModelKind::AlexNet => Some(61_100_840),
        ModelKind::Vgg16 => Some(138_357_544),
        ModelKind::ResNet50 => Some(25_557_032),
        ModelKind::SqueezeNet => Some(1_248_424),
        // MobileNet v1 (no torchvision model): 4.2 million in the paper.
        ModelKind::MobileNetV1 => Some(4_231_976),
        _ => None,
    }
}

#[test]
fn every_image_model_builds_for_imagenet_with_reference_shapes() {
    let _rng = rng_lock();
    let device = Default::default();
    for kind in image_kinds() {
        let spec = ModelSpec::new(kind).with_image(ImageShape::ImageNet);
        let model: Model<B> = spec.init(&device);
        if let Some(expected) = reference_params(kind) {
            assert_eq!(trainable_params(&model), expected, "{kind} parameter count");
        }
        let model = inference_model(&model);
        let Batch::Images { images, .. } = spec.synthetic_batch::<Flex>(1, 3, &device) else {
            panic!("{kind}: expected an image batch")
        };
        assert_eq!(images.dims(), [1, 3, 224, 224]);
        assert_eq!(logits(&model, images).dims(), [1, 1000], "{kind}");
    }
}

#[test]
fn plain20_has_nineteen_convolutions_and_a_cifar_parameter_count() {
    let _rng = rng_lock();
    // Stem 3->16, six 16->16, then 16->32 and five 32->32, 32->64 and five
    // 64->64 3x3 convolution weights (no biases); 2 batch-norm parameters per
    // channel of the 19 convolutions; the 64->10 linear layer.
    let convs = 16 * 3 * 9
        + 6 * 16 * 16 * 9
        + 16 * 32 * 9
        + 5 * 32 * 32 * 9
        + 32 * 64 * 9
        + 5 * 64 * 64 * 9;
    let bn = 2 * (7 * 16 + 6 * 32 + 6 * 64);
    let fc = 64 * 10 + 10;
    let model: Model<B> = ModelSpec::new(ModelKind::Plain20).init(&Default::default());
    assert_eq!(trainable_params(&model), convs + bn + fc);
    // Module::num_params also counts the batch-norm running mean and variance.
    assert_eq!(model.num_params(), convs + 2 * bn + fc);
}

#[test]
fn tiny_gpt_trains_one_step_and_is_causal() {
    let _rng = rng_lock();
    let device = Default::default();
    let gpt = GptConfig::tiny();
    let spec = ModelSpec::new(ModelKind::GptSmall).with_gpt(gpt);
    let model: Model<B> = spec.init(&device);
    let batch = spec.synthetic_batch::<B>(2, 5, &device);
    let Batch::Tokens { tokens, .. } = &batch else {
        panic!("expected a token batch")
    };
    assert_eq!(tokens.dims(), [2, gpt.seq]);
    let mut trainer = Trainer::new(model, 1e-3);
    let loss: f32 = trainer.step(&batch).into_scalar();
    assert!(loss.is_finite() && loss > 0.0);

    // Without autodiff there is no dropout: changing the last token must leave
    // the logits of the earlier positions unchanged.
    let Model::Gpt(gpt_model) = inference_model(trainer.model()) else {
        panic!("expected a GPT")
    };
    let (tokens, _) = gpt.batch::<Flex>(1, 9, &device);
    let t = gpt.seq;
    let changed = tokens.clone().slice_assign(
        [0..1, t - 1..t],
        tokens
            .clone()
            .slice([0..1, t - 1..t])
            .add_scalar(1)
            .remainder_scalar(gpt.vocab as i64),
    );
    let a = gpt_model
        .forward(tokens)
        .slice([0..1, 0..t - 1, 0..gpt.vocab]);
    let b = gpt_model
        .forward(changed)
        .slice([0..1, 0..t - 1, 0..gpt.vocab]);
    a.into_data()
        .assert_approx_eq::<f32>(&b.into_data(), Default::default());
}

#[test]
fn gpt_defaults_are_gpt2_small() {
    let _rng = rng_lock();
    let c = GptConfig::default();
    assert_eq!(
        (c.layers, c.width, c.heads, c.seq, c.vocab, c.dropout),
        (12, 768, 12, 1024, 50257, 0.1)
    );
    assert_eq!(ModelSpec::new(ModelKind::GptSmall).gpt, c);
}

#[test]
fn model_kinds_parse_from_their_names_and_aliases() {
    let _rng = rng_lock();
    for kind in ModelKind::ALL {
        assert_eq!(kind.to_string().parse::<ModelKind>(), Ok(kind));
    }
    assert_eq!("VGG16".parse(), Ok(ModelKind::Vgg16));
    assert_eq!("resnet-50".parse(), Ok(ModelKind::ResNet50));
    assert_eq!("gpt".parse(), Ok(ModelKind::GptSmall));
    assert_eq!("mobilenet".parse(), Ok(ModelKind::MobileNetV1));
    let err = "vgg19".parse::<ModelKind>().unwrap_err().to_string();
    assert!(err.contains("vgg19") && err.contains("gpt-small"), "{err}");
    assert_eq!("imagenet".parse(), Ok(ImageShape::ImageNet));
    assert_eq!(ImageShape::Cifar.to_string().parse(), Ok(ImageShape::Cifar));
}

#[test]
fn adam_steps_lower_the_loss_of_every_test_net() {
    let _rng = rng_lock();
    let device = Default::default();
    for kind in [
        ModelKind::Mlp,
        ModelKind::SmallCnn,
        ModelKind::ResidualNet,
        ModelKind::TransformerNet,
    ] {
        <B as Backend>::seed(&device, 0);
        let spec = ModelSpec::new(kind);
        let batch = spec.synthetic_batch::<B>(8, 1, &device);
        let mut trainer = Trainer::new(spec.init::<B>(&device), 1e-2);
        let first: f32 = trainer.step(&batch).into_scalar();
        for _ in 0..15 {
            trainer.step(&batch);
        }
        let last: f32 = trainer.step(&batch).into_scalar();
        assert!(last < first, "{kind}: loss {first} -> {last}");
    }
}

#[test]
fn synthetic_batches_depend_only_on_the_seed() {
    let _rng = rng_lock();
    let device = Default::default();
    let spec = ModelSpec::new(ModelKind::Vgg16);
    let images = |seed| match spec.synthetic_batch::<Flex>(2, seed, &device) {
        Batch::Images { images, targets } => (images.into_data(), targets.into_data()),
        _ => panic!("expected an image batch"),
    };
    assert_eq!(images(4), images(4));
    assert_ne!(images(4).0, images(5).0);
}

/// Losses of a few Adam steps on `AB`, from a seeded start.
fn seeded_losses<AB: burn::tensor::backend::AutodiffBackend>(kind: ModelKind) -> Vec<f32>
where
    AB::FloatElem: Into<f32>,
{
    let device = Default::default();
    AB::seed(&device, 21);
    let spec = ModelSpec::new(kind);
    let batch = spec.synthetic_batch::<AB>(4, 2, &device);
    let mut trainer = Trainer::new(spec.init::<AB>(&device), 1e-3);
    (0..3)
        .map(|_| trainer.step(&batch).into_scalar().into())
        .collect()
}

#[test]
fn seeded_training_with_dropout_is_reproducible_and_checkpointing_changes_nothing() {
    let _rng = rng_lock();
    use burn::backend::autodiff::checkpoint::strategy::BalancedCheckpointing;
    // AlexNet has dropout in its classifier: every step draws masks from the
    // backend's RNG, so equal losses mean equal masks.
    let a = seeded_losses::<B>(ModelKind::AlexNet);
    let b = seeded_losses::<B>(ModelKind::AlexNet);
    assert_eq!(a, b);
    let c = seeded_losses::<Autodiff<Flex, BalancedCheckpointing>>(ModelKind::AlexNet);
    assert_eq!(a, c, "Burn's own checkpointing must not change the losses");
}
