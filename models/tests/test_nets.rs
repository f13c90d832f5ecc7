//! Every test net runs a forward and a backward on `Autodiff<Flex>`, and the
//! gradients reach every parameter.

use std::sync::{Mutex, MutexGuard};

use burn::backend::{Autodiff, Flex};
use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::tensor::{ElementConversion, Tensor};
use burn_swap_models::test_nets::{
    Mlp, MlpConfig, ResidualNet, ResidualNetConfig, SmallCnn, SmallCnnConfig, TransformerNet,
    TransformerNetConfig,
};

type B = Autodiff<Flex>;

/// Flex's RNG is one process-wide generator (parameter init and dropout both
/// draw from it), so tests that seed it must not interleave with other tests.
static RNG: Mutex<()> = Mutex::new(());

fn rng_lock() -> MutexGuard<'static, ()> {
    RNG.lock().unwrap_or_else(|e| e.into_inner())
}

/// Counts float parameters and how many of them got a finite, non-zero gradient.
struct GradCheck<'a, AB: AutodiffBackend> {
    grads: &'a AB::Gradients,
    params: usize,
    with_grad: usize,
}

impl<AB: AutodiffBackend> ModuleVisitor<AB> for GradCheck<'_, AB> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<AB, D>>) {
        // Batch-norm running statistics are float state without gradients.
        if !param.val().is_require_grad() {
            return;
        }
        self.params += 1;
        if let Some(g) = param.val().grad(self.grads) {
            let abs_sum: f32 = g.abs().sum().into_scalar().elem();
            if abs_sum.is_finite() && abs_sum > 0.0 {
                self.with_grad += 1;
            }
        }
    }
}

fn assert_all_params_get_gradients<M: Module<B>>(model: &M, loss: Tensor<B, 1>) {
    let value: f32 = loss.clone().into_scalar();
    assert!(value.is_finite() && value > 0.0, "loss {value}");
    let grads = loss.backward();
    let mut check = GradCheck::<B> {
        grads: &grads,
        params: 0,
        with_grad: 0,
    };
    model.visit(&mut check);
    assert!(check.params > 0);
    assert_eq!(
        check.with_grad, check.params,
        "{} of {} parameters got a gradient",
        check.with_grad, check.params
    );
}

#[test]
fn mlp_forward_backward_reaches_every_parameter() {
    let _rng = rng_lock();
    let device = Default::default();
    let config = MlpConfig::default();
    let model: Mlp<B> = config.init(&device);
    let (x, y) = config.batch::<B>(4, 7, &device);
    assert_eq!(model.forward(x.clone()).dims(), [4, config.classes]);
    assert_all_params_get_gradients(&model, model.loss(x, y));
}

#[test]
fn small_cnn_forward_backward_reaches_every_parameter() {
    let _rng = rng_lock();
    let device = Default::default();
    <B as Backend>::seed(&device, 1);
    let config = SmallCnnConfig::default();
    let model: SmallCnn<B> = config.init(&device);
    let (x, y) = config.batch::<B>(4, 7, &device);
    assert_eq!(model.forward(x.clone()).dims(), [4, config.classes]);
    assert_all_params_get_gradients(&model, model.loss(x, y));
}

#[test]
fn small_cnn_dropout_is_reproducible_after_seeding_the_backend() {
    let _rng = rng_lock();
    let device = Default::default();
    let config = SmallCnnConfig::default();
    let model: SmallCnn<B> = config.init(&device);
    let (x, y) = config.batch::<B>(4, 7, &device);
    let run = |seed| {
        <B as Backend>::seed(&device, seed);
        model.loss(x.clone(), y.clone()).into_scalar()
    };
    let (a, b, c) = (run(3), run(3), run(4));
    assert_eq!(a.to_bits(), b.to_bits());
    assert_ne!(
        a.to_bits(),
        c.to_bits(),
        "dropout should depend on the seed"
    );
}

#[test]
fn residual_net_forward_backward_reaches_every_parameter() {
    let _rng = rng_lock();
    let device = Default::default();
    let config = ResidualNetConfig::default();
    let model: ResidualNet<B> = config.init(&device);
    let (x, y) = config.batch::<B>(4, 7, &device);
    assert_eq!(model.forward(x.clone()).dims(), [4, config.classes]);
    assert_all_params_get_gradients(&model, model.loss(x, y));
}

#[test]
fn transformer_net_forward_backward_reaches_every_parameter() {
    let _rng = rng_lock();
    let device = Default::default();
    let config = TransformerNetConfig::default();
    let model: TransformerNet<B> = config.init(&device);
    let (tokens, targets) = config.batch::<B>(2, 7, &device);
    assert_eq!(
        model.forward(tokens.clone()).dims(),
        [2, config.seq, config.vocab]
    );
    assert_all_params_get_gradients(&model, model.loss(tokens, targets));
}

#[test]
fn transformer_net_is_causal() {
    let _rng = rng_lock();
    // Changing the last token must not change the logits of earlier positions.
    let device = Default::default();
    let config = TransformerNetConfig::default();
    let model: TransformerNet<Flex> = config.init(&device);
    let (tokens, _) = config.batch::<Flex>(1, 7, &device);
    let t = config.seq;
    let changed = tokens.clone().slice_assign(
        [0..1, t - 1..t],
        tokens
            .clone()
            .slice([0..1, t - 1..t])
            .add_scalar(1)
            .remainder_scalar(config.vocab as i64),
    );
    let a = model
        .forward(tokens)
        .slice([0..1, 0..t - 1, 0..config.vocab]);
    let b = model
        .forward(changed)
        .slice([0..1, 0..t - 1, 0..config.vocab]);
    a.into_data().assert_eq(&b.into_data(), true);
}

#[test]
fn synthetic_batches_are_deterministic() {
    let _rng = rng_lock();
    let device = Default::default();
    let config = SmallCnnConfig::default();
    let (x1, y1) = config.batch::<Flex>(2, 42, &device);
    let (x2, y2) = config.batch::<Flex>(2, 42, &device);
    let (x3, _) = config.batch::<Flex>(2, 43, &device);
    x1.clone().into_data().assert_eq(&x2.into_data(), true);
    y1.into_data().assert_eq(&y2.into_data(), true);
    assert_ne!(x1.into_data(), x3.into_data());
}

#[test]
fn seeded_init_gives_identical_parameters() {
    let _rng = rng_lock();
    let device = Default::default();
    let config = TransformerNetConfig::default();
    let (tokens, _) = config.batch::<Flex>(1, 7, &device);
    let build = || {
        <Flex as Backend>::seed(&device, 11);
        let model: TransformerNet<Flex> = config.init(&device);
        model.forward(tokens.clone()).into_data()
    };
    build().assert_eq(&build(), true);
}
