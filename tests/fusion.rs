//! Under burn's fusion (`Wgpu` here, on any Vulkan driver, lavapipe in CI;
//! burn-cuda's `Cuda` goes through the same code): swapping is on, moves
//! bytes for real, gives losses, gradients and Adam-updated parameters
//! byte-equal to `Autodiff<Wgpu>`, and fusion runs the same kernels: the
//! blocks it executed (fused or not, and their ops with relative tensor ids
//! and statuses) are recorded in both runs and compared.
#![cfg(feature = "wgpu")]

mod common;

use std::collections::HashMap;

use burn::backend::{Autodiff, Wgpu};
use burn::tensor::backend::AutodiffBackend;
use burn_backend::StreamId;
use burn_fusion::inspect::{BlockKind, FusionInspector};
use burn_swap::{KeepAll, SwapAll, SwapAutodiff, SwapConfig};
use burn_swap_models::{Batch, GptConfig, ModelKind, ModelSpec, Trainer};
use common::{grad_bytes, param_bytes, serial};

type Plain = Autodiff<Wgpu>;
type Swap = SwapAutodiff<Wgpu>;

const STEPS: usize = 6;

/// What a run produced, byte for byte, and what fusion ran.
struct Run {
    /// Per step: the loss, then every parameter's gradient.
    steps: Vec<Vec<Vec<u8>>>,
    /// Parameters after the last Adam step.
    params: Vec<Vec<u8>>,
    /// Fusion's executed blocks on the training stream, in order.
    blocks: Vec<String>,
}

/// `STEPS` Adam steps of `spec` on fresh batches. `drain_at`: make fusion
/// run its whole queue once, before that step's backward (the negative
/// control: what reading a tensor through fusion's client does).
fn train<B: AutodiffBackend>(spec: ModelSpec, batch: usize, drain_at: Option<usize>) -> Run {
    let device = B::Device::default();
    B::seed(&device, 5);
    let inspector = FusionInspector::install(StreamId::current());
    let mut trainer = Trainer::new(spec.init::<B>(&device), 1e-2);
    let mut steps = Vec::new();
    for step in 0..STEPS {
        let data: Batch<B> = spec.synthetic_batch(batch, 100 + step as u64, &device);
        let loss = trainer.model().loss(&data);
        if drain_at == Some(step) {
            B::sync(&device).unwrap();
        }
        let grads = loss.backward();
        let mut record = vec![loss.into_data().as_bytes().to_vec()];
        record.extend(grad_bytes(trainer.model(), &grads));
        trainer.apply(grads);
        steps.push(record);
    }
    let params = param_bytes(trainer.model());
    B::sync(&device).unwrap();
    let blocks = inspector
        .drain()
        .iter()
        .flat_map(|report| report.blocks.clone())
        .map(|block| {
            let kind = match block.kind {
                BlockKind::Fused { name, .. } => name,
                BlockKind::Unfused => "unfused",
            };
            format!("{kind}: {:?}", block.operations)
        })
        .collect();
    Run {
        steps,
        params,
        blocks: relative_ids(blocks),
    }
}

/// Tensor ids differ between runs (fusion counts them process-wide):
/// renumbered by first appearance, blocks compare on structure.
fn relative_ids(blocks: Vec<String>) -> Vec<String> {
    const TAG: &str = "TensorId { value: ";
    let mut ids = HashMap::new();
    blocks
        .into_iter()
        .map(|block| {
            let mut out = String::with_capacity(block.len());
            let mut rest = block.as_str();
            while let Some(at) = rest.find(TAG) {
                out.push_str(&rest[..at + TAG.len()]);
                rest = &rest[at + TAG.len()..];
                let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
                let next = ids.len();
                let id = *ids.entry(rest[..end].to_string()).or_insert(next);
                out.push_str(&id.to_string());
                rest = &rest[end..];
            }
            out.push_str(rest);
            out
        })
        .collect()
}

fn swap_all() -> SwapConfig {
    SwapConfig::builder()
        .policy(SwapAll)
        .min_swap_bytes(0)
        .build()
}

fn assert_same(kind: &str, expected: &Run, actual: &Run) {
    for (step, (e, a)) in expected.steps.iter().zip(&actual.steps).enumerate() {
        assert_eq!(e.len(), a.len());
        for (n, (eb, ab)) in e.iter().zip(a).enumerate() {
            assert!(eb == ab, "{kind}: step {step}, entry {n} (0 is the loss) differs");
        }
    }
    assert!(
        expected.params == actual.params,
        "{kind}: parameters differ after {STEPS} Adam steps"
    );
    assert_eq!(
        expected.blocks.len(),
        actual.blocks.len(),
        "{kind}: fusion ran a different number of blocks"
    );
    for (n, (e, a)) in expected.blocks.iter().zip(&actual.blocks).enumerate() {
        assert_eq!(e, a, "{kind}: fusion's block {n} differs");
    }
}

/// Swap-all and keep-all against `Autodiff<Wgpu>`, with bytes really moved
/// under swap-all.
fn check(kind: &str, spec: ModelSpec, batch: usize) {
    let _guard = serial();
    let expected = train::<Plain>(spec, batch, None);
    burn_swap::configure(SwapConfig::builder().policy(KeepAll).build());
    assert_same(kind, &expected, &train::<Swap>(spec, batch, None));

    burn_swap::configure(swap_all());
    let before = burn_swap::transfer::fusion_swap_stats();
    let actual = train::<Swap>(spec, batch, None);
    let moved = burn_swap::transfer::fusion_swap_stats().moved_bytes - before.moved_bytes;
    assert!(moved > 0, "{kind}: swap-all moved nothing under fusion");
    assert_same(kind, &expected, &actual);
}

#[test]
fn small_cnn_under_fusion_is_bit_identical_and_moves_bytes() {
    check("small-cnn", ModelSpec::new(ModelKind::SmallCnn), 4);
}

#[test]
fn transformer_block_under_fusion_is_bit_identical_and_moves_bytes() {
    check(
        "transformer-net",
        ModelSpec::new(ModelKind::TransformerNet),
        2,
    );
}

#[test]
fn plain20_under_fusion_is_bit_identical_and_moves_bytes() {
    check("plain20", ModelSpec::new(ModelKind::Plain20), 2);
}

#[test]
fn gpt_tiny_under_fusion_is_bit_identical_and_moves_bytes() {
    check(
        "gpt-tiny",
        ModelSpec::new(ModelKind::GptSmall).with_gpt(GptConfig::tiny()),
        2,
    );
}

/// The comparison sees a drain: running fusion's queue at one point (what
/// an offload through fusion's client did) changes the executed blocks.
#[test]
fn a_drain_changes_fusions_blocks() {
    let _guard = serial();
    let spec = ModelSpec::new(ModelKind::SmallCnn);
    let plain = train::<Plain>(spec, 4, None);
    let drained = train::<Plain>(spec, 4, Some(2));
    assert_ne!(plain.blocks, drained.blocks, "the block record missed a drain");
}
