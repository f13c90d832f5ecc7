//! Under burn's fusion (`Wgpu` on any Vulkan driver, lavapipe in CI; burn-cuda's
//! `Cuda` when built with the `cuda` feature and without `wgpu`, on the GPU):
//! swapping is on, moves bytes for real, gives losses, gradients and
//! Adam-updated parameters byte-equal to the undecorated `Autodiff<Base>`, and
//! fusion runs the same kernels: the blocks it executed (fused or not, and
//! their ops with relative tensor ids and statuses) are recorded in both runs
//! and compared.
#![cfg(any(feature = "wgpu", feature = "cuda"))]

mod common;

use std::collections::HashMap;

use burn::backend::Autodiff;
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn::tensor::Tensor;
use burn_backend::StreamId;
use burn_fusion::inspect::{BlockKind, FusionInspector};
use burn_swap::{KeepAll, SwapAll, SwapAutodiff, SwapConfig};
use burn_swap_models::{Batch, GptConfig, ModelKind, ModelSpec, Trainer};
use common::{grad_bytes, param_bytes, serial};

#[cfg(feature = "wgpu")]
type Base = burn::backend::Wgpu;
#[cfg(not(feature = "wgpu"))]
type Base = burn::backend::Cuda;

type Plain = Autodiff<Base>;
type Swap = SwapAutodiff<Base>;

const STEPS: usize = 6;

/// What a run produced, byte for byte, and what fusion ran.
struct Run {
    /// Per step: the loss, then every parameter's gradient.
    steps: Vec<Vec<Vec<u8>>>,
    /// Parameters after the last Adam step.
    params: Vec<Vec<u8>>,
    /// Fusion's executed blocks on the training stream, in order.
    blocks: Vec<String>,
    /// Rebuilt tensors compared with the tensors they stand for, summed
    /// over the steps' reports (burn-swap's runs only).
    rebuilds_checked: u64,
}

/// `STEPS` Adam steps of `spec` on fresh batches.
fn train<B: AutodiffBackend>(spec: ModelSpec, batch: usize) -> Run {
    let device = B::Device::default();
    B::seed(&device, 5);
    let inspector = FusionInspector::install(StreamId::current());
    let mut trainer = Trainer::new(spec.init::<B>(&device), 1e-2);
    let mut steps = Vec::new();
    let mut rebuilds_checked = 0;
    for step in 0..STEPS {
        let data: Batch<B> = spec.synthetic_batch(batch, 100 + step as u64, &device);
        let loss = trainer.model().loss(&data);
        let grads = loss.backward();
        let mut record = vec![loss.into_data().as_bytes().to_vec()];
        record.extend(grad_bytes(trainer.model(), &grads));
        trainer.apply(grads);
        steps.push(record);
        rebuilds_checked += burn_swap::last_iteration().map_or(0, |r| r.rebuilds_checked);
    }
    let params = param_bytes(trainer.model());
    B::sync(&device).unwrap();
    Run {
        steps,
        params,
        blocks: executed_blocks(&inspector),
        rebuilds_checked,
    }
}

/// The blocks fusion executed on the inspected stream, as text.
fn executed_blocks(inspector: &FusionInspector) -> Vec<String> {
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
    relative_ids(blocks)
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
                let end = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
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

/// Every step's loss and gradients, byte for byte.
fn assert_same_steps(kind: &str, expected: &Run, actual: &Run) {
    for (step, (e, a)) in expected.steps.iter().zip(&actual.steps).enumerate() {
        assert_eq!(e.len(), a.len());
        for (n, (eb, ab)) in e.iter().zip(a).enumerate() {
            assert!(
                eb == ab,
                "{kind}: step {step}, entry {n} (0 is the loss) differs"
            );
        }
    }
}

fn assert_same(kind: &str, expected: &Run, actual: &Run) {
    assert_same_steps(kind, expected, actual);
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

/// Swap-all and keep-all against `Autodiff<Base>`, with bytes really moved
/// under swap-all.
fn check(kind: &str, spec: ModelSpec, batch: usize) {
    let _guard = serial();
    let expected = train::<Plain>(spec, batch);
    burn_swap::configure(SwapConfig::builder().policy(KeepAll).build());
    assert_same(kind, &expected, &train::<Swap>(spec, batch));

    burn_swap::configure(swap_all());
    let before = burn_swap::transfer::fusion_swap_stats();
    let actual = train::<Swap>(spec, batch);
    let moved = burn_swap::transfer::fusion_swap_stats().moved_bytes - before.moved_bytes;
    assert!(moved > 0, "{kind}: swap-all moved nothing under fusion");
    assert_same(kind, &expected, &actual);
}

/// Rebuilds run on a fusion stream of burn-swap's own: the training stream
/// runs the same blocks as without burn-swap, and what is computed is the same.
#[cfg(feature = "recompute")]
#[test]
fn rebuilt_tensors_under_fusion_are_bit_identical() {
    let _guard = serial();
    let spec = ModelSpec::new(ModelKind::SmallCnn);
    let expected = train::<Plain>(spec, 4);
    burn_swap::configure(
        SwapConfig::builder()
            .policy(burn_swap::policy::SuperNeurons)
            .min_swap_bytes(0)
            .build(),
    );
    let before = burn_swap::transfer::fusion_swap_stats();
    let actual = train::<Swap>(spec, 4);
    assert!(
        burn_swap::last_iteration().unwrap().rebuilt_tensors > 0,
        "nothing was rebuilt"
    );
    assert_rebuilt_aside("small-cnn", before, &actual);
    // Its swapped ReLU outputs stand in for their inputs: their aliases
    // leave the device with them (else the copies would free nothing).
    let after = burn_swap::transfer::fusion_swap_stats();
    assert!(
        after.aliases_moved > before.aliases_moved,
        "no stand-in's alias followed its source to the host"
    );
    // One poll of fusion's server takes every waiting buffer: 75 polls for
    // 64 freed where each waiting take polled on its own after every op
    // (1,724). How many polls a buffer waits for depends on how fast the
    // device thread runs: 168 for 78 once with a build beside the tests.
    let taken = (after.freed - before.freed) + (after.moved - before.moved);
    assert!(
        after.polls - before.polls <= 4 * taken,
        "{} polls for {taken} buffers taken",
        after.polls - before.polls
    );
    // Its BatchNorms' second `input - mean` is handed the first, a buffer
    // fusion made earlier.
    let plan = burn_swap::current_plan().unwrap();
    assert!(
        plan.decisions
            .iter()
            .any(|d| d.stand_in.is_some_and(|s| s.op < d.key.op)),
        "{plan}"
    );
    assert_same("small-cnn", &expected, &actual);
}

/// An earlier output standing in for a later equal one is swapped after
/// the op that frees the later one, which does not read it: it leaves the
/// device then (its alias with it), and what is computed is the same.
#[cfg(feature = "recompute")]
#[test]
fn a_swapped_stand_in_under_fusion_leaves_after_an_op_that_does_not_read_it() {
    let _guard = serial();
    let spec = ModelSpec::new(ModelKind::SmallCnn);
    let expected = train::<Plain>(spec, 4);
    burn_swap::configure(
        SwapConfig::builder()
            .policy(common::SwapStandIns)
            .min_swap_bytes(0)
            .build(),
    );
    let actual = train::<Swap>(spec, 4);
    common::assert_stand_ins_left(&burn_swap::current_plan().unwrap());
    assert_same("small-cnn", &expected, &actual);
}

/// Every tensor that can be rebuilt, rebuilt, in a transformer: the
/// training stream runs the blocks it runs without burn-swap, so the
/// kernels autotune picks for them are the same ones.
#[cfg(feature = "recompute")]
#[test]
fn rebuilding_every_tensor_that_can_be_in_a_transformer_under_fusion_is_bit_identical() {
    let _guard = serial();
    for (kind, spec) in [
        (
            "gpt-tiny",
            ModelSpec::new(ModelKind::GptSmall).with_gpt(GptConfig::tiny()),
        ),
        ("transformer-net", ModelSpec::new(ModelKind::TransformerNet)),
    ] {
        let expected = train::<Plain>(spec, 2);
        burn_swap::configure(SwapConfig::builder().policy(common::RebuildAll).build());
        let before = burn_swap::transfer::fusion_swap_stats();
        let actual = train::<Swap>(spec, 2);
        assert!(
            burn_swap::last_iteration().unwrap().rebuilt_tensors > 0,
            "{kind}: nothing was rebuilt"
        );
        assert_rebuilt_aside(kind, before, &actual);
        // Chains through tensors forward freed, those with a matmul or a
        // reduction compared first.
        let plan = burn_swap::current_plan().unwrap();
        assert!(
            plan.transient_count() > 0,
            "{kind}: no rebuild ran through a tensor forward freed"
        );
        assert_same(kind, &expected, &actual);
    }
}

/// A chain through a tensor forward freed whose op is a matmul or a
/// reduction (the attention's scores, at a sequence of 64 large enough to
/// compare): its rebuild is compared with the tensor before backward reads
/// one, and where it differs backward reads the tensor kept to compare.
#[cfg(feature = "recompute")]
#[test]
fn a_rebuild_through_a_freed_matmul_under_fusion_is_compared_first() {
    let _guard = serial();
    let spec = ModelSpec::new(ModelKind::GptSmall).with_gpt(GptConfig {
        seq: 64,
        ..GptConfig::tiny()
    });
    let expected = train::<Plain>(spec, 2);
    burn_swap::configure(SwapConfig::builder().policy(common::RebuildAll).build());
    let actual = train::<Swap>(spec, 2);
    let plan = burn_swap::current_plan().unwrap();
    let profile = burn_swap::plan_profile().unwrap();
    let unalike = plan
        .decisions
        .iter()
        .filter(|d| d.transient)
        .map(|d| profile.ops[d.key.op as usize].name.as_ref())
        .filter(|name| !burn_swap::policy::replays_alike_under_fusion(name))
        .count();
    assert!(
        unalike > 0,
        "no chain ran through a matmul or a reduction: {plan}"
    );
    assert!(actual.rebuilds_checked > 0, "no rebuild was compared");
    assert_same("gpt-tiny seq 64", &expected, &actual);
}

/// Under fusion a matmul's rebuild is read only once a rebuild of it gave
/// its bits. With no room to compare any, such tensors the plan frees are
/// copied to the host instead (not kept, which would hold more than the
/// plan), and their ops are planned anew.
#[cfg(feature = "recompute")]
#[test]
fn tensors_whose_rebuild_cannot_be_compared_yet_are_swapped_meanwhile() {
    let _guard = serial();
    let spec = ModelSpec::new(ModelKind::GptSmall).with_gpt(GptConfig::tiny());
    let expected = train::<Plain>(spec, 2);
    burn_swap::configure(
        SwapConfig::builder()
            .policy(common::RebuildAll)
            .rebuild_check_bytes(1)
            .build(),
    );
    let before = burn_swap::transfer::fusion_swap_stats();
    let actual = train::<Swap>(spec, 2);
    let after = burn_swap::transfer::fusion_swap_stats();
    assert_same("gpt-tiny", &expected, &actual);
    assert!(
        after.moved > before.moved,
        "nothing was copied while rebuilds waited for a check"
    );
}

/// Buffers were freed and rebuilt on burn-swap's rebuild stream since
/// `before`; rebuilds were compared with the tensors they stand for, and on
/// `Wgpu` none differed. On `Cuda` a `linear` run again alone can round
/// otherwise than forward's fused one: its comparison catches it, and the
/// gradients are compared bit for bit all the same.
#[cfg(feature = "recompute")]
fn assert_rebuilt_aside(kind: &str, before: burn_swap::transfer::FusionSwapStats, run: &Run) {
    assert!(run.rebuilds_checked > 0, "{kind}: no rebuild was checked");
    assert!(
        cfg!(not(feature = "wgpu"))
            || !burn_swap::warnings()
                .iter()
                .any(|w| matches!(w, burn_swap::SwapWarning::RebuildDiffered { .. })),
        "{kind}: a rebuild differed"
    );
    let after = burn_swap::transfer::fusion_swap_stats();
    assert!(after.freed > before.freed, "{kind}: no buffer was freed");
    assert!(
        after.rebuilt > before.rebuilt,
        "{kind}: nothing was rebuilt aside"
    );
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

/// The negative control: the record sees a drain. Running fusion's queue in
/// the middle of a chain of element-wise ops (what an offload that read the
/// tensor through fusion's client did) splits the block fusion runs.
#[test]
fn the_block_record_sees_a_drain() {
    fn chain(drain: bool) -> Vec<String> {
        let device = Default::default();
        let inspector = FusionInspector::install(StreamId::current());
        let x = Tensor::<Base, 2>::from_floats([[0.5, -1.0], [2.0, 0.25]], &device);
        let a = x.clone().exp();
        if drain {
            <Base as Backend>::sync(&device).unwrap();
        }
        let b = (a * x).add_scalar(1.0);
        b.into_data();
        executed_blocks(&inspector)
    }
    let _guard = serial();
    let fused = chain(false);
    assert_ne!(fused, chain(true), "the block record missed a drain");
    assert_eq!(fused, chain(false), "the record is not repeatable");
}

/// An op that returns its input (a reshape to the same shape) gives two
/// handles one fusion tensor: neither may be moved while the other can
/// still read it. Here `y`'s last forward use comes before its alias's.
#[test]
fn a_fusion_tensor_two_handles_share_stays_on_the_device() {
    fn grads<B: AutodiffBackend>() -> Vec<Vec<u8>> {
        let device = Default::default();
        let x = Tensor::<B, 2>::from_floats([[0.5, -1.0, 2.0], [2.0, 0.25, -3.0]], &device)
            .require_grad();
        let w = Tensor::<B, 2>::from_floats(
            [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]],
            &device,
        )
        .require_grad();
        let y = x.clone().exp();
        let alias = y.clone().reshape([2, 3]);
        let a = y * alias.clone();
        let c = a.matmul(w.clone()).exp();
        let d = (c * alias).matmul(w.clone());
        let loss = d.sum();
        let grads = loss.backward();
        vec![
            loss.into_data().as_bytes().to_vec(),
            x.grad(&grads).unwrap().into_data().as_bytes().to_vec(),
            w.grad(&grads).unwrap().into_data().as_bytes().to_vec(),
        ]
    }
    let _guard = serial();
    let expected = grads::<Plain>();
    burn_swap::configure(swap_all());
    for _ in 0..4 {
        assert_eq!(expected, grads::<Swap>());
    }
}

/// The policies that price by op time plan from the iteration's measured
/// time shared out by work under fusion, never from ops timed one by one
/// (that would change what fuses), and plan again once the step is
/// measured: all of it bit-identical.
#[cfg(feature = "recompute")]
#[test]
fn time_priced_policies_under_fusion_are_bit_identical() {
    let _guard = serial();
    let spec = ModelSpec::new(ModelKind::SmallCnn);
    let expected = train::<Plain>(spec, 4);
    burn_swap::configure(SwapConfig::builder().policy(KeepAll).build());
    train::<Swap>(spec, 4);
    let budget = burn_swap::current_plan().unwrap().expected_peak_bytes / 2;
    for (name, config) in common::time_priced_policies(budget) {
        burn_swap::configure(config);
        let actual = train::<Swap>(spec, 4);
        let profile = burn_swap::last_profile().unwrap();
        assert!(profile.swapped_out_bytes > 0, "{name} moved nothing");
        assert!(
            expected.steps == actual.steps,
            "{name}: losses or gradients differ"
        );
        assert!(
            expected.params == actual.params,
            "{name}: parameters differ"
        );
    }
}

/// Compress-then-swap under fusion: the codecs' kernels run on the training
/// stream outside fusion, so fusion runs the same blocks, and every codec
/// brings the same bytes back.
#[cfg(feature = "compression")]
#[test]
fn compressed_swaps_under_fusion_are_bit_identical() {
    use burn_swap::policy::{Codec, CompressAll};
    let _guard = serial();
    let spec = ModelSpec::new(ModelKind::SmallCnn);
    let expected = train::<Plain>(spec, 4);
    for codec in Codec::ALL {
        burn_swap::configure(
            SwapConfig::builder()
                .policy(CompressAll { codec })
                .min_swap_bytes(0)
                // No budget (on CUDA the default is the device's free
                // memory, which holds every tensor here).
                .budget_from_free_memory(false)
                .build(),
        );
        let before = burn_swap::transfer::compression_stats();
        let actual = train::<Swap>(spec, 4);
        let after = burn_swap::transfer::compression_stats();
        assert!(
            after.tensors > before.tensors,
            "{codec}: nothing compressed"
        );
        if codec == Codec::Zvc {
            // SmallCnn's saved activations are post-ReLU: ZVC must shrink them.
            assert!(
                after.compressed_bytes - before.compressed_bytes < after.bytes - before.bytes,
                "ZVC did not shrink the swapped tensors"
            );
        }
        assert_same(&format!("compress-all {codec}"), &expected, &actual);
    }
    // cswap reads the zeros, counted here on the host from the copies of
    // the tensors that left (no counting kernel on the training stream):
    // the first plan swaps them as they are, the iteration that follows it
    // counts them, and the plan made again compresses.
    burn_swap::configure(
        SwapConfig::builder()
            .policy(burn_swap::policy::Cswap)
            .cost_model(common::zvc_cost_model(50e6))
            .min_swap_bytes(0)
            .budget_from_free_memory(false)
            .build(),
    );
    let actual = train::<Swap>(spec, 4);
    let plan = burn_swap::current_plan().unwrap();
    assert!(plan.compressed_count() > 0, "{plan}");
    assert_same("cswap", &expected, &actual);
}
