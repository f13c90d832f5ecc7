//! burn-train's own `Learner` (`SupervisedTraining`), as the Burn book uses
//! it, with only the backend type changed: data-loader threads, an Adam step
//! after each backward, a validation pass on `model.valid()` after each epoch.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use burn::backend::Flex;
use burn::data::dataloader::batcher::Batcher;
use burn::data::dataloader::DataLoaderBuilder;
use burn::data::dataset::InMemDataset;
use burn::nn::loss::{MseLoss, Reduction};
use burn::optim::AdamConfig;
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::tensor::{Tensor, TensorData, TensorPrimitive};
use burn::train::{
    InferenceStep, Learner, RegressionOutput, SupervisedTraining, TrainOutput, TrainStep,
};
use burn_swap::{Residency, SwapAutodiff, SwapConfig};
use common::mlp::{Mlp, FEATURES, TARGETS};
use common::{serial, swap_every_tensor};

type Swap = SwapAutodiff<Flex>;
type Plain = burn::backend::Autodiff<Flex>;

const BATCH: usize = 8;
const TRAIN_ITEMS: usize = 64;
const EPOCHS: usize = 3;

/// The model's regression output for a batch.
fn regress<B: Backend>(model: &Mlp<B>, batch: Pairs<B>) -> RegressionOutput<B> {
    let output = model.forward(batch.inputs);
    let loss = MseLoss::new().forward(output.clone(), batch.targets.clone(), Reduction::Mean);
    RegressionOutput {
        loss,
        output,
        targets: batch.targets,
    }
}

/// What the test saw from inside burn-train's loop.
#[derive(Default)]
struct Seen {
    /// A batch reached the training step already moved off the device.
    moved_on_loader: AtomicBool,
    /// Bytes the training thread moved, summed over the iterations.
    moved_here: AtomicU64,
    /// Iterations that followed the plan, in order.
    followed: Mutex<Vec<bool>>,
    /// Iterations at whose end a plan was made.
    planned: AtomicUsize,
}

static SEEN: Mutex<Option<Arc<Seen>>> = Mutex::new(None);

fn seen() -> Arc<Seen> {
    SEEN.lock().unwrap().clone().expect("set by the test")
}

/// Whether a `Swap` tensor is on the device now (other backends: always).
fn on_device<B: Backend>(t: &Tensor<B, 2>) -> bool {
    let any = &t.clone().into_primitive() as &dyn std::any::Any;
    match any.downcast_ref::<TensorPrimitive<Swap>>() {
        Some(TensorPrimitive::Float(p)) => p.primitive.residency() == Residency::Resident,
        _ => true,
    }
}

/// What burn-swap said of the iteration before this step's.
fn note_last_iteration(seen: &Seen) {
    if let Some(report) = burn_swap::last_iteration() {
        seen.followed.lock().unwrap().push(report.followed_plan);
        seen.planned
            .fetch_add(usize::from(report.planning.is_some()), Ordering::Relaxed);
    }
    if let Some(profile) = burn_swap::last_profile() {
        seen.moved_here
            .fetch_add(profile.swapped_out_bytes, Ordering::Relaxed);
    }
}

impl<B: AutodiffBackend> TrainStep for Mlp<B> {
    type Input = Pairs<B>;
    type Output = RegressionOutput<B>;

    fn step(&self, batch: Pairs<B>) -> TrainOutput<RegressionOutput<B>> {
        let seen = seen();
        if !on_device(&batch.inputs) {
            seen.moved_on_loader.store(true, Ordering::Relaxed);
        }
        note_last_iteration(&seen);
        let item = regress(self, batch);
        TrainOutput::new(self, item.loss.backward(), item)
    }
}

impl<B: Backend> InferenceStep for Mlp<B> {
    type Input = Pairs<B>;
    type Output = RegressionOutput<B>;

    fn step(&self, batch: Pairs<B>) -> RegressionOutput<B> {
        regress(self, batch)
    }
}

#[derive(Clone, Debug)]
pub struct Pair {
    input: [f32; FEATURES],
    target: [f32; TARGETS],
}

#[derive(Clone, Debug)]
pub struct Pairs<B: Backend> {
    inputs: Tensor<B, 2>,
    targets: Tensor<B, 2>,
}

#[derive(Clone, Default)]
struct PairBatcher;

impl<B: Backend> Batcher<B, Pair, Pairs<B>> for PairBatcher {
    fn batch(&self, items: Vec<Pair>, device: &B::Device) -> Pairs<B> {
        let n = items.len();
        let inputs: Vec<f32> = items.iter().flat_map(|p| p.input).collect();
        let targets: Vec<f32> = items.iter().flat_map(|p| p.target).collect();
        let inputs = Tensor::<B, 2>::from_data(TensorData::new(inputs, [n, FEATURES]), device);
        // An op on the loader thread too, as a real batcher's normalisation.
        let inputs = inputs * 1.0;
        let targets = Tensor::<B, 2>::from_data(TensorData::new(targets, [n, TARGETS]), device);
        Pairs { inputs, targets }
    }
}

fn dataset(items: usize, salt: usize) -> InMemDataset<Pair> {
    let value = |i: usize, j: usize| ((i * 7 + j * 13 + salt) % 23) as f32 / 23.0 - 0.5;
    InMemDataset::new(
        (0..items)
            .map(|i| Pair {
                input: std::array::from_fn(|j| value(i, j)),
                target: std::array::from_fn(|j| value(i + 3, j * 5)),
            })
            .collect(),
    )
}

/// Trains with burn-train's `Learner` and `workers` loader threads per split.
fn train<B: AutodiffBackend>(
    workers: usize,
    config: Option<SwapConfig>,
) -> (Vec<Vec<u8>>, Arc<Seen>)
where
    Mlp<B>: burn::module::AutodiffModule<B, InnerModule = Mlp<B::InnerBackend>>,
{
    let seen = Arc::new(Seen::default());
    *SEEN.lock().unwrap() = Some(seen.clone());
    let device = B::Device::default();
    B::seed(&device, 7);
    if let Some(config) = config {
        burn_swap::configure(config);
    }
    let train = DataLoaderBuilder::<B, Pair, Pairs<B>>::new(PairBatcher)
        .batch_size(BATCH)
        .num_workers(workers)
        .build(dataset(TRAIN_ITEMS, 0));
    let valid =
        DataLoaderBuilder::<B::InnerBackend, Pair, Pairs<B::InnerBackend>>::new(PairBatcher)
            .batch_size(BATCH)
            .num_workers(workers)
            .build(dataset(2 * BATCH, 5));
    let directory = std::env::temp_dir().join(format!(
        "burn-swap-learner-test-{}-{workers}",
        std::process::id()
    ));
    let learner = Learner::new(Mlp::<B>::new(&device), AdamConfig::new().init(), 1e-2);
    let result = SupervisedTraining::new(&directory, train, valid)
        .num_epochs(EPOCHS)
        .with_application_logger(None)
        .launch(learner);
    note_last_iteration(&seen);
    let _ = std::fs::remove_dir_all(&directory);
    let params = result.model.param_bytes();
    (params, seen)
}

#[test]
fn learner_with_swap_all_trains_as_autodiff_and_follows_the_plan_across_validation() {
    let _guard = serial();
    let (plain, _) = train::<Plain>(1, None);
    let config = swap_every_tensor(1 << 20).build();
    let (swapped, seen) = train::<Swap>(1, Some(config));
    assert!(plain == swapped, "weights differ from Autodiff<Flex>");
    assert!(seen.moved_here.load(Ordering::Relaxed) > 0, "nothing moved");
    // The first iteration also makes the parameters, the second is planned
    // once; every later one follows that plan, the first step of each epoch
    // after a validation pass included.
    let followed = seen.followed.lock().unwrap().clone();
    let steps = EPOCHS * TRAIN_ITEMS / BATCH;
    assert_eq!(followed.len(), steps);
    assert_eq!(seen.planned.load(Ordering::Relaxed), 2);
    assert!(followed[2..].iter().all(|&f| f), "{followed:?}");
}

#[test]
fn learner_with_loader_threads_moves_only_training_tensors() {
    let _guard = serial();
    for config in [
        SwapConfig::builder().policy(burn_swap::KeepAll).build(),
        swap_every_tensor(1 << 20).build(),
    ] {
        let moves = config.policy.moves_tensors();
        let (params, seen) = train::<Swap>(4, Some(config));
        assert!(!params.is_empty());
        assert!(
            !seen.moved_on_loader.load(Ordering::Relaxed),
            "a loader thread's batch was moved"
        );
        assert_eq!(seen.moved_here.load(Ordering::Relaxed) > 0, moves);
        let followed = seen.followed.lock().unwrap().clone();
        assert!(followed[2..].iter().all(|&f| f), "{followed:?}");
    }
}
