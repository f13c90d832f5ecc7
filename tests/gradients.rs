//! The first test of anything: gradients under every policy are
//! bit-identical to the undecorated `Autodiff<Flex>`.

mod common;

use burn::backend::{Autodiff, Flex};
use burn_swap::{KeepAll, SwapAll, SwapAutodiff, SwapConfig};
use burn_swap_models::ModelKind;
use common::{
    assert_same_gradients_on_flex, gradients_per_iteration, params_after_training, serial,
    swap_every_tensor,
};

type Plain = Autodiff<Flex>;
type Swap = SwapAutodiff<Flex>;

fn keep_all() -> SwapConfig {
    SwapConfig::builder().policy(KeepAll).build()
}

/// Swap every saved tensor, however small, so the swap path runs on every one.
fn swap_all() -> SwapConfig {
    SwapConfig::builder()
        .policy(SwapAll)
        .min_swap_bytes(0)
        .build()
}

fn assert_same_gradients(kind: ModelKind, config: SwapConfig, batch: usize) {
    let _guard = serial();
    assert_same_gradients_on_flex(kind, config, batch);
}

/// The last iteration ran under a plan and really moved data.
fn assert_swapped_last_iteration() {
    let profile = burn_swap::last_profile().expect("a profile");
    let plan = burn_swap::current_plan().expect("a plan");
    assert!(plan.swapped_count() > 0, "the plan swaps nothing");
    assert!(
        profile.swapped_out_bytes > 0,
        "nothing was offloaded in iteration {}",
        profile.iteration
    );
    assert_eq!(
        profile.swapped_out_bytes, profile.swapped_in_bytes,
        "every offloaded byte came back"
    );
    // The report splits the iteration's time in its ops, and the moves are
    // burn-swap's own.
    let report = burn_swap::last_iteration().expect("a report");
    let time = report.training_thread;
    assert!(time.backend_ns > 0, "{time:?}");
    // On Flex a prefetch brings the tensor back at once: nothing is left
    // to take back when it is read.
    let moves = time.swap_out_ns + time.prefetch_ns + time.swap_in_ns;
    assert!(
        time.swap_out_ns > 0 && time.prefetch_ns + time.swap_in_ns > 0,
        "{time:?}"
    );
    assert!(time.own_ns >= moves, "{time:?}");
    assert!(
        report.to_string().contains("in burn-swap's own work"),
        "{report}"
    );
}

#[test]
fn keep_all_gradients_match_autodiff_on_mlp() {
    assert_same_gradients(ModelKind::Mlp, keep_all(), 8);
}

#[test]
fn swap_all_gradients_match_autodiff_on_mlp() {
    assert_same_gradients(ModelKind::Mlp, swap_all(), 8);
    assert_swapped_last_iteration();
}

#[test]
fn keep_all_gradients_match_autodiff_on_cnn() {
    assert_same_gradients(ModelKind::SmallCnn, keep_all(), 4);
}

#[test]
fn swap_all_gradients_match_autodiff_on_cnn() {
    assert_same_gradients(ModelKind::SmallCnn, swap_all(), 4);
    assert_swapped_last_iteration();
}

#[test]
fn keep_all_gradients_match_autodiff_on_residual_block() {
    assert_same_gradients(ModelKind::ResidualNet, keep_all(), 4);
}

#[test]
fn swap_all_gradients_match_autodiff_on_residual_block() {
    assert_same_gradients(ModelKind::ResidualNet, swap_all(), 4);
    assert_swapped_last_iteration();
}

#[test]
fn keep_all_gradients_match_autodiff_on_transformer_block() {
    assert_same_gradients(ModelKind::TransformerNet, keep_all(), 2);
}

#[test]
fn swap_all_gradients_match_autodiff_on_transformer_block() {
    assert_same_gradients(ModelKind::TransformerNet, swap_all(), 2);
    assert_swapped_last_iteration();
}

/// Swap-all under a budget that leaves room for half of keep-all's saved
/// activations: the profiled iterations move the least recently used
/// tensors off (also ones read again in forward, as by a residual
/// connection), the plan the rest.
fn assert_same_gradients_under_half_budget(kind: ModelKind, batch: usize) {
    let budget = {
        let _guard = serial();
        burn_swap::configure(keep_all());
        gradients_per_iteration::<Swap>(kind, batch, 3, 7);
        let profile = burn_swap::last_profile().unwrap();
        let keep_peak = burn_swap::current_plan().unwrap().expected_peak_bytes;
        let working_peak = burn_swap::Footprint::of(&profile).peak_other();
        (keep_peak - profile.peak_resident_saved_bytes / 2).max(working_peak)
    };
    let config = swap_every_tensor(budget).build();
    assert_same_gradients(kind, config, batch);
    assert_swapped_last_iteration();
}

#[test]
fn swap_all_under_a_budget_gives_identical_gradients_on_residual_block() {
    assert_same_gradients_under_half_budget(ModelKind::ResidualNet, 4);
}

#[test]
fn swap_all_under_a_budget_gives_identical_gradients_on_transformer_block() {
    assert_same_gradients_under_half_budget(ModelKind::TransformerNet, 2);
}

#[test]
fn adam_training_under_swap_all_gives_identical_parameters() {
    let _guard = serial();
    for kind in [ModelKind::SmallCnn, ModelKind::TransformerNet] {
        let expected = params_after_training::<Plain>(kind, 6, 11);
        burn_swap::configure(swap_all());
        let actual = params_after_training::<Swap>(kind, 6, 11);
        assert!(
            expected == actual,
            "{kind}: parameters differ after 6 Adam steps"
        );
        assert_swapped_last_iteration();
    }
}

/// The default policy, `auto`, on the CPU: with no budget it keeps every
/// tensor; with one it swaps (no link to price, so `swap-all`), and the
/// gradients are the undecorated backend's either way.
#[test]
fn the_default_policy_keeps_without_a_budget_and_swaps_with_one_on_the_cpu() {
    let kind = ModelKind::SmallCnn;
    assert_same_gradients(kind, SwapConfig::default(), 4);
    let plan = burn_swap::current_plan().expect("a plan");
    assert_eq!(plan.policy, "keep-all");
    let profile = burn_swap::last_profile().unwrap();
    let budget = (plan.expected_peak_bytes - profile.peak_resident_saved_bytes / 2)
        .max(burn_swap::Footprint::of(&profile).peak_other());
    let with_budget = SwapConfig {
        budget_bytes: Some(budget),
        min_swap_bytes: 0,
        ..SwapConfig::default()
    };
    assert_same_gradients(kind, with_budget, 4);
    assert_eq!(burn_swap::current_plan().unwrap().policy, "swap-all");
    assert_swapped_last_iteration();
}
