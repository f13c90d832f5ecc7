//! Why a run moves nothing is said once per cause, through `tracing` and
//! `burn_swap::warnings()`, and what the first iterations did through
//! `burn_swap::last_iteration()`.

mod common;

use burn::backend::Flex;
use burn::tensor::activation::relu;
use burn::tensor::{Tensor, TensorData};
use burn_swap::{SwapAll, SwapAutodiff, SwapConfig, SwapWarning};
use common::{serial, swap_every_tensor};

type Swap = SwapAutodiff<Flex>;

/// `loss = sum(relu(x @ w))` with x `[4, 8]` and w `[8, 16]`: 384 saved bytes.
fn steps(config: SwapConfig, n: usize) -> Vec<burn_swap::IterationReport> {
    burn_swap::configure(config);
    let device = Default::default();
    let data = TensorData::new((0..128).map(|v| (v % 7) as f32 - 3.0).collect(), [8, 16]);
    let w = Tensor::<Swap, 2>::from_data(data, &device).require_grad();
    let mut reports = Vec::new();
    for _ in 0..n {
        let x = Tensor::<Swap, 2>::from_data(
            TensorData::new((0..32).map(|v| v as f32 - 16.0).collect(), [4, 8]),
            &device,
        );
        let loss = relu(x.matmul(w.clone())).sum();
        let _grads = loss.backward();
        reports.push(burn_swap::last_iteration().expect("an iteration ended"));
    }
    reports
}

fn only_warning() -> SwapWarning {
    let warnings = burn_swap::warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    warnings[0].clone()
}

#[test]
fn a_budget_that_holds_every_saved_tensor_is_the_reason() {
    let _guard = serial();
    let config = swap_every_tensor(1 << 30).build();
    steps(config, 4);
    let warning = only_warning();
    assert!(
        matches!(&warning, SwapWarning::PlanMovesNothing { why, .. } if why.contains("budget of 1.0 GiB holds every saved tensor")),
        "{warning}"
    );
    assert!(warning.to_string().contains("moves nothing"), "{warning}");
}

#[test]
fn tensors_under_the_minimum_swap_size_are_the_reason() {
    let _guard = serial();
    let config = SwapConfig::builder()
        .policy(SwapAll)
        .min_swap_bytes(1 << 20)
        .build();
    steps(config, 3);
    let warning = only_warning();
    assert!(
        warning
            .to_string()
            .contains("every saved tensor is under the minimum swap size of 1.0 MiB"),
        "{warning}"
    );
}

#[test]
fn a_plan_that_moves_tensors_warns_of_nothing_and_reports_its_steps() {
    let _guard = serial();
    let config = SwapConfig::builder()
        .policy(SwapAll)
        .min_swap_bytes(0)
        .build();
    let reports = steps(config, 3);
    assert!(
        burn_swap::warnings().is_empty(),
        "{:?}",
        burn_swap::warnings()
    );
    let first = &reports[0];
    assert!(!first.followed_plan && first.planning.is_some(), "{first}");
    let line = first.to_string();
    assert!(line.contains("profiled (the first iteration"), "{line}");
    assert!(line.contains("planned in"), "{line}");
    assert!(
        line.contains("swap-all swaps 1 of 2 saved tensors (128 B each way)"),
        "{line}"
    );
    let last = reports.last().unwrap();
    assert!(last.followed_plan && last.planning.is_none(), "{last}");
    assert!(
        last.to_string()
            .contains("followed the plan, moved 128 B to the host"),
        "{last}"
    );
}

#[test]
fn warnings_are_cleared_by_a_new_configuration() {
    let _guard = serial();
    let roomy = SwapConfig::builder()
        .policy(SwapAll)
        .min_swap_bytes(1 << 20)
        .build();
    steps(roomy, 3);
    assert_eq!(burn_swap::warnings().len(), 1);
    burn_swap::configure(SwapConfig::builder().policy(SwapAll).build());
    assert!(burn_swap::warnings().is_empty());
}

/// Under burn's fusion with swapping turned off, the plan swaps tensors but
/// the transfer layer refuses every offload: said once, with its reason.
#[cfg(feature = "wgpu")]
#[test]
fn swapping_turned_off_under_fusion_is_the_reason() {
    use burn::backend::Wgpu;
    use burn::tensor::backend::Backend;
    type Fused = SwapAutodiff<Wgpu>;
    let _guard = serial();
    burn_swap::configure(
        SwapConfig::builder()
            .policy(SwapAll)
            .min_swap_bytes(0)
            .swap_under_fusion(false)
            .build(),
    );
    let device = Default::default();
    let data = TensorData::new((0..128).map(|v| (v % 7) as f32 - 3.0).collect(), [8, 16]);
    let w = Tensor::<Fused, 2>::from_data(data, &device).require_grad();
    for _ in 0..4 {
        let x = Tensor::<Fused, 2>::from_data(
            TensorData::new((0..32).map(|v| v as f32 - 16.0).collect(), [4, 8]),
            &device,
        );
        let loss = relu(x.matmul(w.clone())).sum();
        let _grads = loss.backward();
        let _ = loss.into_scalar();
    }
    Fused::sync(&device).unwrap();
    let warning = only_warning();
    assert!(
        matches!(&warning, SwapWarning::SwappingOff { asked: 1, why, .. } if why.contains("BURN_SWAP_UNDER_FUSION=0")),
        "{warning}"
    );
    assert!(
        warning
            .to_string()
            .contains("swapping is off on this backend"),
        "{warning}"
    );
}
