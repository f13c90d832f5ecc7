//! Recomputation on Flex: tensors a plan rebuilds are freed after their
//! last forward use and made again in backward by running their op on kept,
//! swapped or rebuilt inputs; gradients stay bit-identical to the
//! undecorated `Autodiff<Flex>`.
#![cfg(feature = "recompute")]

mod common;

use std::sync::Arc;

use burn::backend::Flex;
use burn_swap::policy::{Capuchin, Plan, PlanError, PlanParams, Policy, SuperNeurons};
use burn_swap::{KeepAll, Profile, SwapAutodiff, SwapConfig};
use burn_swap_models::{Batch, Model, ModelKind, ModelSpec};
use common::{
    assert_same_gradients_on_flex, assert_stand_ins_left, gradients_per_iteration, planning_error,
    serial, time_priced_policies, RebuildAll, SwapStandIns,
};

type Swap = SwapAutodiff<Flex>;

/// Runs `kind` under `config`, checks its gradients against plain
/// autodiff's, and returns the plan the last iterations followed.
fn assert_same_gradients(kind: ModelKind, config: SwapConfig, batch: usize) -> Arc<Plan> {
    assert_same_gradients_on_flex(kind, config, batch);
    burn_swap::current_plan().expect("a plan")
}

fn rebuilt_last_iteration() -> u64 {
    burn_swap::last_iteration()
        .expect("an iteration")
        .rebuilt_tensors
}

#[test]
fn rebuilding_every_tensor_that_can_be_keeps_gradients_identical() {
    let _guard = serial();
    for (kind, batch) in [
        (ModelKind::SmallCnn, 4),
        (ModelKind::ResidualNet, 2),
        (ModelKind::TransformerNet, 2),
    ] {
        let config = SwapConfig::builder().policy(RebuildAll).build();
        let plan = assert_same_gradients(kind, config, batch);
        assert!(plan.recomputed_count() > 0, "{kind}: {plan}");
        if kind != ModelKind::TransformerNet {
            // Its ReLUs' inputs are read in backward only for their gradient.
            assert!(
                plan.decisions.iter().any(|d| d.stand_in.is_some()),
                "{kind}: a ReLU's output stands in for its input: {plan}"
            );
        }
        if kind == ModelKind::ResidualNet {
            // Its BatchNorms subtract the batch mean twice: the first
            // difference stands in for the second.
            assert!(
                plan.decisions
                    .iter()
                    .any(|d| d.stand_in.is_some_and(|s| s.op < d.key.op)),
                "{kind}: an earlier equal output stands in: {plan}"
            );
        }
        if kind == ModelKind::TransformerNet {
            // Its softmax's `x - max` is made from the attention's masked
            // scores and their row maxima, which forward frees.
            assert!(plan.transient_count() > 0, "{kind}: {plan}");
        }
        assert_eq!(
            rebuilt_last_iteration(),
            plan.recomputed_count() as u64,
            "{kind}: every tensor the plan rebuilds was rebuilt"
        );
        // The profile records each one off the device from its drop to its
        // rebuild, so its recorded peak is not keep-all's.
        let profile = burn_swap::last_profile().unwrap();
        let rebuilt: Vec<_> = profile
            .tensors
            .iter()
            .filter(|t| !t.rebuilt_at.is_empty())
            .collect();
        assert_eq!(rebuilt.len(), plan.recomputed_count(), "{kind}");
        assert!(rebuilt
            .iter()
            .all(|t| t.dropped_at.len() == 1 && t.dropped_at[0] < t.rebuilt_at[0]));
        let keep_all: u64 = profile.saved_tensors().map(|t| t.bytes).sum();
        assert!(profile.peak_resident_saved_bytes < keep_all, "{kind}");
    }
}

#[test]
fn each_rebuild_is_compared_once_with_the_tensor_itself() {
    let _guard = serial();
    let (kind, batch) = (ModelKind::ResidualNet, 2);
    burn_swap::configure(SwapConfig::builder().policy(RebuildAll).build());
    // The first iterations profile and plan, the third follows the plan
    // and keeps its rebuilt tensors aside, and the fourth compares them
    // with their rebuilds as it begins.
    gradients_per_iteration::<Swap>(kind, batch, 4, 7);
    let plan = burn_swap::current_plan().expect("a plan");
    let checked = burn_swap::last_iteration().expect("an iteration");
    // ReLU outputs stand in for their inputs with other bits: not compared.
    let relu_stand_ins = plan
        .decisions
        .iter()
        .filter(|d| d.stand_in.is_some_and(|s| s.op > d.key.op))
        .count();
    assert!(relu_stand_ins > 0, "{plan}");
    // The tensors forward freed that rebuilds are made through are compared
    // through the saved tensors made from them.
    assert!(plan.transient_count() > 0, "{plan}");
    assert_eq!(
        checked.rebuilds_checked,
        (plan.recomputed_count() - relu_stand_ins) as u64,
        "{checked}"
    );
    assert_eq!(checked.rebuilds_differed, 0, "{checked}");
    assert!(checked.to_string().contains("the same bits"), "{checked}");
    // Once checked, the same tensors are rebuilt unchecked.
    gradients_per_iteration::<Swap>(kind, batch, 3, 7);
    let after = burn_swap::last_iteration().expect("an iteration");
    assert_eq!(after.rebuilt_tensors, plan.recomputed_count() as u64);
    assert_eq!(after.rebuilds_checked, 0, "{after}");
    // With no bytes for checks, none is checked.
    burn_swap::configure(
        SwapConfig::builder()
            .policy(RebuildAll)
            .rebuild_check_bytes(0)
            .build(),
    );
    gradients_per_iteration::<Swap>(kind, batch, 3, 7);
    assert_eq!(burn_swap::last_iteration().unwrap().rebuilds_checked, 0);
}

/// [`RebuildAll`], with every earlier equal output it names swapped for an
/// output its op never made: the executor finds no slot to hand over.
#[derive(Debug)]
struct EarlierOutputMissing;

impl Policy for EarlierOutputMissing {
    fn name(&self) -> &str {
        "earlier-output-missing"
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        let mut plan = RebuildAll.plan(profile, params)?;
        for d in &mut plan.decisions {
            if let Some(s) = d.stand_in.as_mut().filter(|s| s.op < d.key.op) {
                s.output = 7;
            }
        }
        Ok(plan)
    }
}

#[test]
fn a_tensor_whose_earlier_equal_output_is_missing_stays_on_the_device() {
    let _guard = serial();
    let config = SwapConfig::builder().policy(EarlierOutputMissing).build();
    let plan = assert_same_gradients(ModelKind::ResidualNet, config, 2);
    // They stayed, were said to, and the plans made after them keep them
    // out of rebuilds: no earlier output stands in for them any more.
    let profile = burn_swap::plan_profile().expect("the plan's profile");
    let refused: Vec<_> = profile
        .tensors
        .iter()
        .filter(|t| t.rebuild_refused)
        .map(|t| t.key)
        .collect();
    assert!(!refused.is_empty(), "{plan}");
    assert!(
        plan.decisions
            .iter()
            .all(|d| d.stand_in.is_none() || !refused.contains(&d.key)),
        "{plan}"
    );
    assert!(rebuilt_last_iteration() > 0);
}

#[test]
fn a_swapped_stand_in_leaves_after_an_op_that_does_not_read_it() {
    let _guard = serial();
    let config = SwapConfig::builder()
        .policy(SwapStandIns)
        .min_swap_bytes(0)
        .build();
    let plan = assert_same_gradients(ModelKind::SmallCnn, config, 4);
    assert_stand_ins_left(&plan);
}

#[test]
fn superneurons_swaps_and_rebuilds_with_identical_gradients() {
    let _guard = serial();
    let config = SwapConfig::builder()
        .policy(SuperNeurons)
        .min_swap_bytes(0)
        .build();
    let plan = assert_same_gradients(ModelKind::SmallCnn, config, 4);
    assert!(plan.swapped_count() > 0, "{plan}");
    assert!(plan.recomputed_count() > 0, "{plan}");
    assert!(
        plan.decisions
            .iter()
            .any(|d| d.stand_in.is_some_and(|s| s.op < d.key.op)),
        "BatchNorm's second difference is handed the first: {plan}"
    );
    assert!(rebuilt_last_iteration() > 0);
    let profile = burn_swap::last_profile().unwrap();
    assert!(profile.swapped_out_bytes > 0);
}

#[test]
fn home_and_capuchin_plan_from_timed_iterations_under_a_budget() {
    let _guard = serial();
    // The iteration's growth with everything kept, then half of it.
    burn_swap::configure(SwapConfig::builder().policy(KeepAll).build());
    gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 4, 3, 7);
    let keep_all = burn_swap::current_plan().unwrap().expected_peak_bytes;
    let budget = keep_all * 3 / 4;
    for (name, config) in time_priced_policies(budget) {
        let plan = assert_same_gradients(ModelKind::SmallCnn, config, 4);
        assert_eq!(plan.policy, name);
        assert!(plan.expected_peak_bytes <= budget, "{plan}");
        assert!(
            plan.predicted.is_some_and(|p| p.ops_ns > 0.0),
            "{name} priced its plan with the profiled op times: {plan}"
        );
        assert!(
            plan.decisions.iter().any(|d| d.stand_in.is_some()),
            "{name} hands a ReLU's input to its output, which costs nothing: {plan}"
        );
    }
}

#[test]
fn home_times_its_plan_against_its_rivals_and_the_winner_keeps_gradients_identical() {
    use burn::backend::{Autodiff, Flex};
    let _guard = serial();
    // The profiled and planned steps, the plan refined from the measured
    // step, then each plan timed over the steps the pace is measured on,
    // in turn and back.
    const STEPS: usize = 50;
    let (kind, batch) = (ModelKind::SmallCnn, 4);
    burn_swap::configure(SwapConfig::builder().policy(KeepAll).build());
    gradients_per_iteration::<Swap>(kind, batch, 3, 7);
    let budget = burn_swap::current_plan().unwrap().expected_peak_bytes * 3 / 4;
    let [_, (_, home)] = time_priced_policies(budget);
    let expected = gradients_per_iteration::<Autodiff<Flex>>(kind, batch, STEPS, 7);
    burn_swap::configure(home);
    <Swap as burn::tensor::backend::Backend>::seed(&Default::default(), 7);
    let spec = ModelSpec::new(kind);
    let model: Model<Swap> = spec.init(&Default::default());
    let input: Batch<Swap> = spec.synthetic_batch(batch, 7, &Default::default());
    let mut verdicts = Vec::new();
    for (i, expected) in expected.iter().enumerate() {
        let loss = model.loss(&input);
        let mut actual = vec![loss.clone().into_data().as_bytes().to_vec()];
        let grads = loss.backward();
        actual.extend(common::grad_bytes(&model, &grads));
        assert!(&actual == expected, "iteration {i} differs");
        verdicts.extend(burn_swap::last_iteration().unwrap().plans_timed);
    }
    burn_swap::status().expect("planning succeeded");
    assert_eq!(verdicts.len(), 1, "decided once: {verdicts:#?}");
    let verdict = &verdicts[0];
    assert!(verdict.contains("home's plan "), "{verdict}");
    let winner = verdict
        .split("; ")
        .find_map(|w| w.strip_suffix(" plan stays"))
        .map(|w| w.trim_end_matches("'s").trim_end_matches('\''))
        .unwrap_or_else(|| panic!("a winner: {verdict}"));
    let rivals = ["capuchin", "superneurons", "swap-all"];
    assert!(
        rivals
            .iter()
            .any(|r| verdict.contains(&format!("{r}'s plan "))
                || verdict.contains(&format!("{r}' plan "))),
        "timed against a rival: {verdict}"
    );
    assert_eq!(
        burn_swap::current_plan().unwrap().policy,
        winner,
        "{verdict}"
    );
}

#[test]
fn policies_that_need_a_cost_model_say_so() {
    let _guard = serial();
    let err = planning_error(Capuchin, ModelKind::SmallCnn, 2);
    assert!(err.contains("policy capuchin needs a cost model"), "{err}");
}
