//! What the profiler reports, checked against numbers worked out by hand,
//! and what the budget does with it.

mod common;

use burn::backend::Flex;
use burn::tensor::activation::relu;
use burn::tensor::{Tensor, TensorData};
use burn_swap::policy::Cswap;
use burn_swap::{
    Action, KeepAll, OnBudgetError, PlanError, SwapAll, SwapAutodiff, SwapConfig, SwapError,
};
use burn_swap_models::ModelKind;
use common::{gradients_per_iteration, serial, swap_every_tensor, zvc_cost_model};

type Swap = SwapAutodiff<Flex>;
type Plain = burn::backend::Autodiff<Flex>;

/// `loss = sum(relu(x @ w))` with x `[4, 8]` and w `[8, 16]` (f32), one
/// iteration after w exists.
fn tiny_iteration(w: &Tensor<Swap, 2>) {
    let device = Default::default();
    let x = Tensor::<Swap, 2>::from_data(
        TensorData::new((0..32).map(|v| v as f32 - 16.0).collect(), [4, 8]),
        &device,
    );
    let loss = relu(x.matmul(w.clone())).sum();
    let _grads = loss.backward();
}

/// `SwapAll` on every saved tensor, however small, without a budget.
fn configure_swap_all_of_any_size() {
    burn_swap::configure(
        SwapConfig::builder()
            .policy(SwapAll)
            .min_swap_bytes(0)
            .build(),
    );
}

fn tiny_weight() -> Tensor<Swap, 2> {
    let data = TensorData::new((0..128).map(|v| (v % 7) as f32 - 3.0).collect(), [8, 16]);
    Tensor::<Swap, 2>::from_data(data, &Default::default()).require_grad()
}

#[test]
fn profile_of_a_tiny_model_matches_hand_count() {
    let _guard = serial();
    burn_swap::configure(SwapConfig::builder().policy(KeepAll).build());
    let w = tiny_weight();
    tiny_iteration(&w);
    tiny_iteration(&w);
    let p = burn_swap::last_profile().expect("profile");
    println!("{p}");
    for op in &p.ops {
        println!(
            "{:>3} {:?} {} in={:?} out={:?}",
            op.index, op.phase, op.name, op.inputs, op.outputs
        );
    }
    // Forward: upload x, matmul, relu, sum.
    let bwd = p.backward_start.expect("backward ran") as usize;
    let names: Vec<&str> = p.ops[..bwd].iter().map(|o| o.name.as_ref()).collect();
    assert_eq!(
        names,
        ["float_from_data", "float_matmul", "relu", "float_sum"]
    );
    // Saved for backward: x (matmul keeps its lhs because w needs a gradient,
    // 4*8*4 = 128 bytes) and h = x@w (relu keeps its input, 4*16*4 = 256
    // bytes). relu's output is only summed; sum keeps only a shape.
    let saved: Vec<(u32, u64, &str)> = p
        .tensors
        .iter()
        .filter(|t| t.saved)
        .map(|t| (t.key.op, t.bytes, t.producer.as_str()))
        .collect();
    assert_eq!(
        saved,
        [(0, 128, "float_from_data"), (1, 256, "float_matmul")]
    );
    assert_eq!(p.saved_count, 2);
    assert_eq!(p.saved_bytes, 384);
    let x = &p.tensors[0];
    assert_eq!(
        (x.last_forward_use, x.forward_uses.as_slice()),
        (1, &[1u32][..])
    );
    assert!(x.first_backward_use.unwrap() >= bwd as u32);
    let h = p.tensors.iter().find(|t| t.key.op == 1).unwrap();
    assert_eq!(h.last_forward_use, 2);
    // Both saved tensors are resident together from the matmul until backward
    // reads them.
    assert_eq!(p.peak_resident_saved_bytes, 384);
    assert_eq!(p.swapped_out_bytes, 0);
    // Live bytes after the sum: w (512) + x (128) + h (256) + loss (4); the
    // relu output was the sum's only input and is gone.
    assert_eq!(p.ops[3].live_bytes, 512 + 128 + 256 + 4);
}

#[test]
fn swap_all_moves_exactly_the_saved_bytes_of_the_tiny_model() {
    let _guard = serial();
    burn_swap::configure(
        SwapConfig::builder()
            .policy(SwapAll)
            .min_swap_bytes(0)
            .prefetch_lookahead_ops(0)
            .build(),
    );
    let w = tiny_weight();
    for _ in 0..3 {
        tiny_iteration(&w);
    }
    let p = burn_swap::last_profile().unwrap();
    assert_eq!(p.swapped_out_bytes, 384);
    assert_eq!(p.swapped_in_bytes, 384);
    let x = &p.tensors[0];
    assert_eq!(
        x.offloaded_at,
        [1],
        "x leaves after its last forward use (the matmul)"
    );
    assert_eq!(
        x.loaded_at,
        [x.first_backward_use.unwrap()],
        "and comes back at its first backward use"
    );
}

#[test]
fn swap_all_brings_tensors_back_early_without_raising_the_peak() {
    let _guard = serial();
    let peak_and_loads = |config: SwapConfig| {
        burn_swap::configure(config);
        gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 8, 3, 3);
        let p = burn_swap::last_profile().unwrap();
        let plan = burn_swap::current_plan().unwrap();
        let loads: std::collections::BTreeMap<_, (u32, u32)> = p
            .tensors
            .iter()
            .filter(|t| t.saved && !t.loaded_at.is_empty())
            .map(|t| (t.key, (t.loaded_at[0], t.first_backward_use.unwrap())))
            .collect();
        (plan.expected_peak_bytes, p.backward_start.unwrap(), loads)
    };
    let base = SwapConfig::builder().policy(SwapAll).min_swap_bytes(0);
    let (jit_peak, _, jit) = peak_and_loads(base.clone().prefetch_lookahead_ops(0).build());
    let (early_peak, backward_start, early) = peak_and_loads(base.build());
    assert!(
        early_peak <= jit_peak,
        "early prefetches stay within the just-in-time peak"
    );
    let mut earlier = 0;
    for (key, (early_at, first_use)) in &early {
        assert!(*early_at >= backward_start && early_at <= first_use);
        if let Some((jit_at, _)) = jit.get(key) {
            assert!(early_at <= jit_at);
            earlier += usize::from(early_at < jit_at);
        }
    }
    assert!(
        earlier > 0,
        "some tensor comes back earlier: {early:?} vs {jit:?}"
    );
}

#[test]
fn swap_all_keeps_what_would_come_back_as_backward_starts() {
    let _guard = serial();
    // Without a budget, the tiny model's second saved tensor (relu's
    // input, 256 B) would come back the moment backward starts (its bytes
    // fit under the plan's device peak from there on), so its round trip
    // would free memory only at the end of forward, where the peak is not:
    // it stays. The first (x, read last in backward) still goes.
    configure_swap_all_of_any_size();
    let w = tiny_weight();
    for _ in 0..3 {
        tiny_iteration(&w);
    }
    let p = burn_swap::last_profile().unwrap();
    let plan = burn_swap::current_plan().unwrap();
    let backward_start = p.backward_start.unwrap();
    let first_needed = p
        .tensors
        .iter()
        .filter(|t| t.saved)
        .min_by_key(|t| t.first_backward_use)
        .unwrap();
    for d in &plan.decisions {
        if d.key == first_needed.key {
            assert_eq!(d.action, Action::Keep, "{plan}");
        } else if d.action == Action::Swap {
            assert!(d.prefetch_at > backward_start, "{plan}");
        }
    }
    assert!(plan.swapped_count() < plan.decisions.len());
    // Once the tensors must leave to fit (SmallCnn under a budget, in
    // `an_iteration_over_the_budget_is_profiled_under_it`), they do.
}

fn cnn_peak_saved(config: SwapConfig) -> (u64, u64) {
    burn_swap::configure(config);
    gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 8, 4, 3);
    let p = burn_swap::last_profile().unwrap();
    (p.peak_resident_saved_bytes, p.saved_bytes)
}

#[test]
fn swap_all_cuts_the_cnn_peak_resident_saved_bytes_by_80_percent() {
    let _guard = serial();
    let (keep_peak, saved) = cnn_peak_saved(SwapConfig::builder().policy(KeepAll).build());
    let (swap_peak, _) = cnn_peak_saved(
        SwapConfig::builder()
            .policy(SwapAll)
            .min_swap_bytes(0)
            .build(),
    );
    println!("keep-all peak {keep_peak} B, swap-all peak {swap_peak} B, saved {saved} B");
    assert_eq!(
        keep_peak, saved,
        "with keep-all every saved tensor is resident at the start of backward"
    );
    assert!(
        swap_peak * 5 <= keep_peak,
        "swap-all peak {swap_peak} is not 80% below keep-all {keep_peak}"
    );
}

/// The device bytes an iteration added over what it began with, as
/// burn-swap tracked them op by op (on CUDA the runtime's own count is
/// checked against the budget too).
fn device_growth(p: &burn_swap::Profile) -> u64 {
    p.peak_growth_bytes()
}

/// A budget for SmallCnn that leaves room for a third of keep-all's saved
/// activations beside the working tensors, and keep-all's peak resident
/// saved bytes.
fn third_of_keep_all_cnn() -> (u64, u64) {
    let (saved_peak, _) = cnn_peak_saved(SwapConfig::builder().policy(KeepAll).build());
    let plan = burn_swap::current_plan().unwrap();
    let profile = burn_swap::last_profile().unwrap();
    assert!(
        device_growth(&profile) <= plan.expected_peak_bytes,
        "keep-all's plan foresaw {} B, the iteration added {} B",
        plan.expected_peak_bytes,
        device_growth(&profile)
    );
    let working_peak = burn_swap::Footprint::of(&profile).peak_other();
    let budget = (plan.expected_peak_bytes - saved_peak * 2 / 3).max(working_peak);
    assert!(budget < plan.expected_peak_bytes, "keep-all would fit");
    (budget, saved_peak)
}

#[test]
fn swap_all_holds_the_budget_it_was_given() {
    let _guard = serial();
    // Room for a third of keep-all's saved activations next to the working
    // tensors: above the two 64 KiB tensors a batch-norm op needs at once,
    // far below keeping everything.
    let (budget, _) = third_of_keep_all_cnn();
    let base = swap_every_tensor(budget);
    // A fixed lookahead, and the default: as early as the budget allows.
    for config in [
        base.clone().prefetch_lookahead_ops(50).build(),
        base.build(),
    ] {
        cnn_peak_saved(config);
        burn_swap::status().unwrap();
        let plan = burn_swap::current_plan().unwrap();
        let growth = device_growth(&burn_swap::last_profile().unwrap());
        assert!(plan.expected_peak_bytes <= budget, "{plan}");
        assert!(
            growth <= budget,
            "the iteration added {growth} B, over the budget of {budget} B"
        );
    }
    // Early prefetches use the room the budget leaves.
    let plan = burn_swap::current_plan().unwrap();
    let early = plan
        .decisions
        .iter()
        .filter(|d| d.prefetch_at < d.needed_at)
        .count();
    assert!(
        early > 0 && plan.expected_peak_bytes > budget - budget / 10,
        "{plan}"
    );
}

#[test]
#[should_panic(expected = "no plan keeps the iteration's device memory under the budget")]
fn a_budget_too_small_for_any_plan_is_a_clear_error() {
    let _guard = serial();
    burn_swap::configure(swap_every_tensor(16).build());
    gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 4, 2, 3);
}

#[test]
fn a_budget_failure_can_fall_back_to_keeping_everything() {
    let _guard = serial();
    let config = swap_every_tensor(16)
        .on_budget_error(OnBudgetError::KeepAll)
        .build();
    let expected =
        gradients_per_iteration::<burn::backend::Autodiff<Flex>>(ModelKind::SmallCnn, 4, 3, 3);
    burn_swap::configure(config);
    let actual = gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 4, 3, 3);
    assert!(expected == actual);
    // Later steps with the same ops keep the fallback quietly: the error is
    // still the one planning the steady step gave, not made again each step.
    assert!(burn_swap::status().is_err());
    let _ = gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 4, 6, 3);
    let steps = burn_swap::iterations();
    match burn_swap::status() {
        Err(SwapError::Plan(PlanError::BudgetTooSmall {
            budget,
            need,
            policy,
            iteration,
            ..
        })) => {
            assert_eq!(budget, 16);
            assert!(need > 16);
            assert_eq!(policy, "swap-all");
            assert!(
                iteration + 2 < steps,
                "planned again at iteration {iteration} of {steps}"
            );
        }
        other => panic!("expected a budget error, got {other:?}"),
    }
    assert!(burn_swap::current_plan().is_none());
    assert_eq!(burn_swap::last_profile().unwrap().swapped_out_bytes, 0);
}

#[test]
fn a_changed_graph_suspends_the_plan_and_replans() {
    let _guard = serial();
    configure_swap_all_of_any_size();
    let plain =
        gradients_per_iteration::<burn::backend::Autodiff<Flex>>(ModelKind::SmallCnn, 6, 1, 5);
    gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 4, 3, 5);
    let plan_before = burn_swap::current_plan().unwrap();
    // A new batch size: new shapes from the first op on.
    let changed = gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 6, 1, 5);
    assert!(
        plain == changed,
        "gradients stay exact when the plan no longer fits the graph"
    );
    let p = burn_swap::last_profile().unwrap();
    assert_eq!(p.swapped_out_bytes, 0, "a stale plan must not be applied");
    let plan_after = burn_swap::current_plan().unwrap();
    assert!(
        plan_after.iteration > plan_before.iteration,
        "re-planned from the new graph"
    );
    // The same graph again follows the new plan.
    gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 6, 1, 5);
    assert!(burn_swap::last_profile().unwrap().swapped_out_bytes > 0);
}

#[test]
fn profile_json_is_written_and_reads_back() {
    let _guard = serial();
    let path = std::env::temp_dir().join(format!("burn-swap-profile-{}.json", std::process::id()));
    burn_swap::configure(
        SwapConfig::builder()
            .policy(SwapAll)
            .min_swap_bytes(0)
            .profile_json(&path)
            .build(),
    );
    gradients_per_iteration::<Swap>(ModelKind::Mlp, 4, 2, 1);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(json["profile"]["ops"].as_array().unwrap().len() > 10);
    assert_eq!(json["plan"]["policy"], "swap-all");
    std::fs::remove_file(path).ok();
}

#[test]
fn an_iteration_over_the_budget_is_profiled_under_it() {
    let _guard = serial();
    let (budget, _) = third_of_keep_all_cnn();
    burn_swap::configure(SwapConfig::builder().policy(KeepAll).build());
    gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 8, 1, 3);
    let kept = burn_swap::last_profile().unwrap();
    assert_eq!(kept.swapped_out_bytes, 0, "keep-all never moves a tensor");
    let config = swap_every_tensor(budget).build();

    // The first iteration has no plan yet: it is profiled with the least
    // recently used tensors moved off whenever it goes over the budget.
    burn_swap::configure(config.clone());
    let first = gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 8, 1, 3);
    let profiled = burn_swap::last_profile().unwrap();
    println!(
        "budget {budget} B; first iteration: kept peak live {} B, under budget {} B, {} B moved off",
        kept.peak_live_bytes, profiled.peak_live_bytes, profiled.swapped_out_bytes
    );
    assert!(profiled.swapped_out_bytes > 0);
    assert!(
        device_growth(&profiled) <= budget + budget / 10,
        "grew by {} B over a budget of {budget} B",
        device_growth(&profiled)
    );
    // Without a plan nothing was prefetched: every tensor moved off came
    // back at its use, and the profile says so.
    let stalls = profiled.swap_in_stalls;
    assert!(stalls.on_demand_loads > 0 && stalls.late_prefetches == 0);
    assert_eq!(kept.swap_in_stalls, Default::default());
    assert!(
        profiled.peak_live_bytes * 2 < kept.peak_live_bytes,
        "peak live {} B not well below keep-all's {} B",
        profiled.peak_live_bytes,
        kept.peak_live_bytes
    );
    // What the profile learned is the same as without the moves.
    assert_eq!(profiled.saved_bytes, kept.saved_bytes);
    assert_eq!(profiled.op_signatures, kept.op_signatures);

    // Bit-identical gradients, in the profiled iteration and under the plan.
    let expected = gradients_per_iteration::<Plain>(ModelKind::SmallCnn, 8, 4, 3);
    assert!(
        expected[0] == first[0],
        "the profiled iteration's gradients differ"
    );
    burn_swap::configure(config);
    let actual = gradients_per_iteration::<Swap>(ModelKind::SmallCnn, 8, 4, 3);
    assert!(expected == actual, "gradients differ");
    burn_swap::status().unwrap();
    assert!(burn_swap::current_plan().unwrap().expected_peak_bytes <= budget);
    // Under the plan every use was prefetched (on the CPU, synchronously).
    // (The first iteration of a fresh model ran its init ops, so the second
    // did not match its plan and was profiled under the budget again; what
    // that moved off and outlived the iteration, like batch-norm's running
    // statistics, came back on demand in the third. The fourth is steady.)
    let planned = burn_swap::last_profile().unwrap();
    assert!(planned.swapped_in_bytes > 0);
    assert_eq!(planned.swap_in_stalls.on_demand_loads, 0, "{planned}");
}

#[test]
fn a_plan_that_moves_nothing_says_why() {
    let _guard = serial();
    // A budget above keep-all's need: swap-all has no reason to move anything.
    cnn_peak_saved(SwapConfig::builder().policy(KeepAll).build());
    let keep_all = burn_swap::current_plan().unwrap();
    assert!(keep_all
        .moves_nothing_because
        .clone()
        .unwrap()
        .contains("keeps every tensor"));
    let roomy = keep_all.expected_peak_bytes * 2;
    let base = SwapConfig::builder().policy(SwapAll).min_swap_bytes(0);
    cnn_peak_saved(base.clone().budget_bytes(roomy).build());
    let plan = burn_swap::current_plan().unwrap();
    assert_eq!(plan.swapped_count(), 0, "{plan}");
    let why = plan.moves_nothing_because.clone().unwrap();
    assert!(why.contains("holds every saved tensor"), "{why}");
    assert!(plan.to_string().contains("moves nothing"), "{plan}");
    // Every saved tensor under the minimum swap size.
    cnn_peak_saved(
        SwapConfig::builder()
            .policy(SwapAll)
            .min_swap_bytes(1 << 40)
            .build(),
    );
    let why = burn_swap::current_plan()
        .unwrap()
        .moves_nothing_because
        .clone()
        .unwrap();
    assert!(why.contains("minimum swap size"), "{why}");
    // A plan that moves tensors has nothing to explain.
    cnn_peak_saved(base.build());
    assert!(burn_swap::current_plan()
        .unwrap()
        .moves_nothing_because
        .is_none());
}

/// The zero fractions of x and h = x @ w, computed on the host.
fn tiny_zero_fractions(w: &Tensor<Swap, 2>) -> (f32, f32) {
    let x: Vec<f32> = (0..32).map(|v| v as f32 - 16.0).collect();
    let w: Vec<f32> = w.to_data().to_vec().unwrap();
    let mut h_zeros = 0;
    for row in 0..4 {
        for col in 0..16 {
            let dot: f32 = (0..8).map(|k| x[row * 8 + k] * w[k * 16 + col]).sum();
            h_zeros += usize::from(dot == 0.0);
        }
    }
    let x_zeros = x.iter().filter(|v| **v == 0.0).count();
    (x_zeros as f32 / 32.0, h_zeros as f32 / 64.0)
}

#[test]
fn saved_tensors_zero_fractions_are_counted_on_the_device_for_cswap() {
    let _guard = serial();
    let w = tiny_weight();
    let (x_zeros, h_zeros) = tiny_zero_fractions(&w);
    assert!(x_zeros > 0.0 && h_zeros > 0.0, "{x_zeros} {h_zeros}");
    let fractions = |p: &burn_swap::Profile| -> Vec<Option<f32>> {
        p.tensors
            .iter()
            .filter(|t| t.saved)
            .map(|t| t.zero_fraction)
            .collect()
    };
    // A fast link: nothing is worth compressing, every tensor is swapped.
    burn_swap::configure(
        SwapConfig::builder()
            .policy(Cswap)
            .cost_model(zvc_cost_model(1e12))
            .sparsity_every(1)
            .min_swap_bytes(0)
            .prefetch_lookahead_ops(0)
            .build(),
    );
    // Without a plan both stay on the device: counted as backward starts.
    tiny_iteration(&w);
    let p = burn_swap::last_profile().unwrap();
    assert_eq!(p.swapped_out_bytes, 0, "{p}");
    assert_eq!(fractions(&p), [Some(x_zeros), Some(h_zeros)], "{p}");
    // Under the plan: those moved off are counted as they leave, the
    // others as backward starts.
    for _ in 0..2 {
        tiny_iteration(&w);
    }
    let p = burn_swap::last_profile().unwrap();
    assert!(p.swapped_out_bytes > 0, "{p}");
    assert_eq!(fractions(&p), [Some(x_zeros), Some(h_zeros)], "{p}");
    // Policies that do not read them add no work for them.
    burn_swap::configure(
        SwapConfig::builder()
            .policy(KeepAll)
            .sparsity_every(1)
            .build(),
    );
    tiny_iteration(&w);
    let p = burn_swap::last_profile().unwrap();
    assert_eq!(fractions(&p), [None, None]);
}
