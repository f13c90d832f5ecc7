//! Compress-then-swap on Flex: swapped tensors are compressed with the
//! codecs' CPU encoders before they leave, decompressed (structure and
//! checksum checked) when they come back; gradients stay bit-identical to
//! the undecorated `Autodiff<Flex>`.
#![cfg(feature = "compression")]

mod common;

use burn_swap::policy::{Codec, CompressAll, Cswap};
use burn_swap::SwapConfig;
use burn_swap_models::ModelKind;
use common::{assert_same_gradients_on_flex, planning_error, serial, zvc_cost_model};

fn assert_same_gradients(kind: ModelKind, config: SwapConfig, batch: usize) {
    assert_same_gradients_on_flex(kind, config, batch);
    let profile = burn_swap::last_profile().expect("a profile");
    assert!(profile.swapped_out_bytes > 0, "nothing moved");
}

#[test]
fn compress_all_keeps_gradients_identical_with_every_codec() {
    let _guard = serial();
    for codec in Codec::ALL.into_iter().filter(|&c| c != Codec::Bitmap) {
        for (kind, batch) in [(ModelKind::SmallCnn, 4), (ModelKind::TransformerNet, 2)] {
            let before = burn_swap::transfer::compression_stats();
            let config = SwapConfig::builder()
                .policy(CompressAll { codec })
                .min_swap_bytes(0)
                .build();
            assert_same_gradients(kind, config, batch);
            let plan = burn_swap::current_plan().unwrap();
            assert_eq!(plan.policy, "compress-all");
            assert_eq!(plan.compressed_count(), plan.swapped_count());
            let after = burn_swap::transfer::compression_stats();
            assert!(
                after.tensors > before.tensors,
                "{codec} on {kind}: nothing compressed"
            );
        }
    }
}

#[test]
fn the_bitmap_compresses_the_dropout_mask_and_keeps_gradients_identical() {
    let _guard = serial();
    let before = burn_swap::transfer::compression_stats();
    let config = SwapConfig::builder()
        .policy(CompressAll {
            codec: Codec::Bitmap,
        })
        .min_swap_bytes(0)
        .build();
    assert_same_gradients(ModelKind::SmallCnn, config, 4);
    // The tensors counted as zeros and one value (SmallCnn's dropout mask
    // among them), and only those: the others would cross as they are.
    let plan = burn_swap::current_plan().unwrap();
    assert!(plan.compressed_count() > 0, "{plan}");
    assert!(plan.compressed_count() < plan.swapped_count(), "{plan}");
    let after = burn_swap::transfer::compression_stats();
    let (bytes, compressed) = (
        after.bytes - before.bytes,
        after.compressed_bytes - before.compressed_bytes,
    );
    assert!(compressed * 16 < bytes, "{compressed} of {bytes} bytes");
}

#[test]
fn cswap_compresses_the_sparse_tensors_a_slow_link_cannot_hide() {
    let _guard = serial();
    // A link far slower than the codecs: every byte not moved is time saved.
    let costs = zvc_cost_model(50e6);
    let config = SwapConfig::builder()
        .policy(Cswap)
        .cost_model(costs)
        .min_swap_bytes(0)
        .sparsity_every(1)
        .build();
    let before = burn_swap::transfer::compression_stats();
    assert_same_gradients(ModelKind::SmallCnn, config, 4);
    let plan = burn_swap::current_plan().unwrap();
    let profile = burn_swap::last_profile().unwrap();
    // Zeros are counted in every iteration here (by default: those without
    // a plan, like the one the plan came from, and every 500th).
    assert!(profile
        .saved_tensors()
        .any(|t| t.zero_fraction.is_some_and(|z| z > 0.3)));
    assert!(plan.compressed_count() > 0, "{plan}");
    let predicted = plan.predicted.expect("cswap predicts the iteration");
    assert!(predicted.to_host_bytes < plan.swapped_bytes(), "{plan}");
    let after = burn_swap::transfer::compression_stats();
    assert!(after.compressed_bytes - before.compressed_bytes < after.bytes - before.bytes);
}

#[test]
fn cswap_times_its_codecs_against_the_plan_without_them_and_keeps_the_faster() {
    use burn::backend::{Autodiff, Flex};
    use burn_swap_models::bytes::{grad_bytes, gradients_per_iteration};
    use burn_swap_models::{Batch, Model, ModelSpec};
    let _guard = serial();
    // Enough steps for the plan refined from the measured step, then the
    // pace of each plan over the steps it is measured on: its own, without
    // codecs and `compress-all`'s, in turn and back.
    const STEPS: usize = 44;
    let (kind, batch) = (ModelKind::SmallCnn, 4);
    let expected = gradients_per_iteration::<Autodiff<Flex>>(kind, batch, STEPS, 7);
    burn_swap::configure(
        SwapConfig::builder()
            .policy(Cswap)
            .cost_model(zvc_cost_model(50e6))
            .min_swap_bytes(0)
            .build(),
    );
    type B = burn_swap::SwapAutodiff<Flex>;
    let device = Default::default();
    <B as burn::tensor::backend::Backend>::seed(&device, 7);
    let spec = ModelSpec::new(kind);
    let model: Model<B> = spec.init(&device);
    let input: Batch<B> = spec.synthetic_batch(batch, 7, &device);
    let (mut plans, mut verdicts) = (Vec::new(), Vec::new());
    for (i, expected) in expected.iter().enumerate() {
        let loss = model.loss(&input);
        let mut actual = vec![loss.clone().into_data().as_bytes().to_vec()];
        let grads = loss.backward();
        actual.extend(grad_bytes(&model, &grads));
        assert!(&actual == expected, "iteration {i} differs");
        let report = burn_swap::last_iteration().unwrap();
        plans.extend(report.plan);
        verdicts.extend(report.plans_timed);
    }
    burn_swap::status().expect("planning succeeded");
    assert!(
        plans
            .iter()
            .any(|p| p.contains("timed on the device against the plans before it")),
        "{plans:#?}"
    );
    // Decided once, either way: back to the codecs (its own or static
    // compression's), or the plain plan stays.
    assert_eq!(verdicts.len(), 1, "{verdicts:#?}");
    let stays = verdicts[0].split("; ").find(|w| w.ends_with(" plan stays"));
    let kept_codecs = matches!(
        stays,
        Some("cswap's plan stays" | "compress-all's plan stays")
    );
    let plan = burn_swap::current_plan().unwrap();
    assert_eq!(plan.compressed_count() > 0, kept_codecs, "{plan}");
}

#[test]
fn cswap_without_a_cost_model_says_what_is_missing() {
    let _guard = serial();
    let err = planning_error(Cswap, ModelKind::Mlp, 4);
    assert!(err.contains("policy cswap needs a cost model"), "{err}");
}
