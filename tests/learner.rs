//! A training loop shaped like burn-train's `Learner`: batches made on
//! data-loader threads, an optimizer step after each backward, and a
//! validation pass on the inner backend (and one under autodiff, without
//! backward) at the end of each epoch, on the training thread.

mod common;

use std::sync::mpsc;

use burn::backend::Flex;
use burn::module::AutodiffModule;
use burn::optim::{AdamConfig, GradientsParams, Optimizer};
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::tensor::{Tensor, TensorData, TensorPrimitive};
use burn_swap::{OnBudgetError, Residency, SwapAutodiff, SwapConfig};
use common::mlp::{Mlp, FEATURES};
use common::{serial, swap_every_tensor};

type Swap = SwapAutodiff<Flex>;
type Plain = burn::backend::Autodiff<Flex>;

const BATCH: usize = 8;
const STEPS_PER_EPOCH: usize = 4;
const EPOCHS: usize = 3;

fn batch_data(n: usize) -> TensorData {
    let values = (0..BATCH * FEATURES)
        .map(|v| ((v * 7 + n * 13) % 23) as f32 / 23.0 - 0.5)
        .collect();
    TensorData::new(values, [BATCH, FEATURES])
}

/// What the loader threads saw of their own batches.
struct Loaded<B: Backend> {
    batch: Tensor<B, 2>,
    moved_on_loader: bool,
}

/// Whether a `Swap` tensor is on the device now (other backends: always).
fn on_device<B: Backend>(t: &Tensor<B, 2>) -> bool {
    let any = &t.clone().into_primitive() as &dyn std::any::Any;
    match any.downcast_ref::<TensorPrimitive<Swap>>() {
        Some(TensorPrimitive::Float(p)) => p.primitive.residency() == Residency::Resident,
        _ => true,
    }
}

/// What a training run left and did.
struct Trained {
    /// Every parameter, as bytes.
    params: Vec<Vec<u8>>,
    /// A batch arrived already moved off the device.
    moved_on_loader: bool,
    /// Bytes the training thread moved.
    moved_here: u64,
    /// The last iteration's device growth after each op, as the training
    /// thread counted it.
    growth: Vec<u64>,
    /// Iterations at whose end a plan was made, or failed.
    planned: usize,
    /// Iterations that followed the plan, and the steps after a validation
    /// pass that did.
    followed: usize,
    followed_after_validation: usize,
}

/// Trains with `workers` loader threads (batch `n` made by worker
/// `n % workers`, taken in order; none: made on the training thread),
/// validating after each epoch.
fn train<B: AutodiffBackend>(workers: usize, config: Option<SwapConfig>) -> Trained
where
    Mlp<B>: AutodiffModule<B, InnerModule = Mlp<B::InnerBackend>>,
{
    B::seed(&Default::default(), 7);
    if let Some(config) = &config {
        burn_swap::configure(config.clone());
    }
    let device = B::Device::default();
    let total = STEPS_PER_EPOCH * EPOCHS;
    let receivers: Vec<mpsc::Receiver<Loaded<B>>> = (0..workers)
        .map(|w| {
            let (tx, rx) = mpsc::sync_channel(2);
            let config = config.clone();
            std::thread::spawn(move || {
                // The same configuration as the training thread, as
                // `BURN_SWAP_*` variables would give it.
                if let Some(config) = config {
                    burn_swap::configure(config);
                }
                let device = B::Device::default();
                for n in (w..total).step_by(workers) {
                    let batch = Tensor::<B, 2>::from_data(batch_data(n), &device);
                    let extra = batch.clone() * 1.0;
                    drop(extra);
                    let moved_on_loader = !on_device(&batch);
                    if tx
                        .send(Loaded {
                            batch,
                            moved_on_loader,
                        })
                        .is_err()
                    {
                        return;
                    }
                }
            });
            rx
        })
        .collect();

    let mut model = Mlp::<B>::new(&device);
    let mut optim = AdamConfig::new().init();
    let mut moved_on_loader = false;
    let mut moved_here = 0;
    let mut planned = 0;
    let mut followed = 0;
    let mut followed_after_validation = 0;
    for n in 0..total {
        let loaded = match workers {
            0 => Loaded {
                batch: Tensor::<B, 2>::from_data(batch_data(n), &device),
                moved_on_loader: false,
            },
            _ => receivers[n % workers].recv().expect("a batch"),
        };
        moved_on_loader |= loaded.moved_on_loader || !on_device(&loaded.batch);
        let loss = model.forward(loaded.batch).powi_scalar(2).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(1e-2, model, grads);
        if let Some(p) = burn_swap::last_profile() {
            moved_here += p.swapped_out_bytes;
        }
        if let Some(report) = burn_swap::last_iteration() {
            planned += usize::from(report.planning.is_some());
            followed += usize::from(report.followed_plan);
            let after_validation = n > 0 && n % STEPS_PER_EPOCH == 0;
            followed_after_validation += usize::from(report.followed_plan && after_validation);
        }
        if (n + 1) % STEPS_PER_EPOCH == 0 {
            let valid = model.valid();
            let x = Tensor::from_data(batch_data(1000 + n), &device);
            let _ = valid.forward(x).into_data();
            // Inference under autodiff, with no backward.
            let x = Tensor::<B, 2>::from_data(batch_data(2000 + n), &device);
            let _ = model.forward(x).into_data();
        }
    }
    Trained {
        params: model.param_bytes(),
        moved_on_loader,
        moved_here,
        growth: burn_swap::last_profile().map_or(Vec::new(), |p| {
            p.ops
                .iter()
                .map(|o| o.live_bytes - p.start_live_bytes)
                .collect()
        }),
        planned,
        followed,
        followed_after_validation,
    }
}

fn swap_all_with_budget() -> SwapConfig {
    swap_every_tensor(1 << 20).build()
}

#[test]
fn swap_all_trains_as_autodiff_and_moves_only_training_tensors() {
    let _guard = serial();
    let plain = train::<Plain>(1, None);
    for workers in [1, 4] {
        let swapped = train::<Swap>(workers, Some(swap_all_with_budget()));
        assert!(
            plain.params == swapped.params,
            "weights differ with {workers} workers"
        );
        assert!(
            !swapped.moved_on_loader,
            "a loader thread's batch was moved"
        );
        assert!(
            swapped.moved_here > 0,
            "nothing moved on the training thread"
        );
    }
}

#[test]
fn validation_passes_and_optimizer_steps_leave_the_plan_in_force() {
    let _guard = serial();
    let swapped = train::<Swap>(1, Some(swap_all_with_budget()));
    // The first iteration also makes the parameters; the second is the
    // steady step, planned once. The optimizer's steps (the state Adam makes
    // in its first ones included) and the validation passes between epochs,
    // on the inner backend and under autodiff without backward, are not
    // the iteration's: every later step follows that plan.
    let total = STEPS_PER_EPOCH * EPOCHS;
    assert_eq!(swapped.planned, 2, "planned {} times", swapped.planned);
    assert_eq!(
        swapped.followed,
        total - 2,
        "followed the plan {} times",
        swapped.followed
    );
    assert_eq!(swapped.followed_after_validation, EPOCHS - 1);
}

#[test]
fn a_failed_plan_is_not_tried_again_after_each_validation_pass() {
    let _guard = serial();
    let config = swap_every_tensor(16)
        .on_budget_error(OnBudgetError::KeepAll)
        .build();
    let plain = train::<Plain>(1, None);
    let kept = train::<Swap>(1, Some(config));
    assert!(plain.params == kept.params);
    // One try for each op sequence the loop has: the first iteration (which
    // makes the parameters), the steady step, and the step after an
    // inference pass under autodiff (with no plan in force, its ops join the
    // next step's); none again in later epochs.
    assert!(
        kept.planned <= 3,
        "planned {} times in {EPOCHS} epochs",
        kept.planned
    );
    assert!(burn_swap::status().is_err());
}

#[test]
fn a_batch_from_a_loader_thread_is_counted_where_it_is_used() {
    let _guard = serial();
    let keep_all = || SwapConfig::builder().policy(burn_swap::KeepAll).build();
    let here = train::<Swap>(0, Some(keep_all()));
    let loaded = train::<Swap>(1, Some(keep_all()));
    // Made here, the batch is the iteration's first op's output; from a
    // loader, it is counted at its first use, the next op.
    assert_eq!(here.growth.len(), loaded.growth.len() + 1);
    assert_eq!(
        loaded.growth,
        here.growth[1..],
        "the training thread counts a loader's batch as its own"
    );
}
