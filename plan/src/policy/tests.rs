use super::*;
use crate::testing::chain;

fn params(budget_bytes: Option<u64>) -> PlanParams {
    PlanParams {
        budget_bytes,
        min_swap_bytes: 0,
        prefetch_lookahead_ops: None,
        costs: None,
    }
}

#[test]
fn keep_all_fits_a_budget_that_holds_everything_and_says_why_it_moves_nothing() {
    let profile = chain(&[100, 200, 300]);
    let plan = KeepAll.plan(&profile, &params(Some(600))).unwrap();
    assert_eq!(plan.swapped_count(), 0);
    assert_eq!(plan.expected_peak_bytes, 600);
    assert_eq!(plan.expected_peak_saved_bytes, 600);
    assert_eq!(plan.keep_all_peak_saved_bytes, 600);
    assert_eq!(
        plan.moves_nothing_because.as_deref(),
        Some("policy keep-all keeps every tensor on the device")
    );
}

#[test]
fn swap_all_fits_a_budget_keeping_everything_would_not() {
    // Each tensor is read by the next op only: moved off after that, it
    // leaves three on the device at a time instead of all five.
    let profile = chain(&[100; 5]);
    let plan = SwapAll.plan(&profile, &params(Some(400))).unwrap();
    assert!(plan.swapped_count() > 0);
    assert!(plan.expected_peak_bytes <= 400, "{plan}");
    assert_eq!(plan.budget_bytes, Some(400));
    assert_eq!(plan.keep_all_peak_saved_bytes, 500);
    assert!(plan.moves_nothing_because.is_none());
    // Every swapped tensor leaves after its last forward use and is back
    // by its first backward use.
    for d in plan.decisions.iter().filter(|d| d.action == Action::Swap) {
        let t = profile.tensors.iter().find(|t| t.key == d.key).unwrap();
        assert_eq!(d.offload_after, t.last_forward_use);
        assert!(d.prefetch_at <= d.needed_at);
        assert_eq!(Some(d.needed_at), t.first_backward_use);
    }
}

#[test]
fn a_budget_no_plan_fits_is_budget_too_small_with_the_numbers() {
    let profile = chain(&[100; 5]);
    let err = SwapAll.plan(&profile, &params(Some(100))).unwrap_err();
    let PlanError::BudgetTooSmall {
        budget,
        need,
        policy,
        iteration,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((*budget, policy.as_str(), *iteration), (100, "swap-all", 0));
    // An op's input and output are on the device together.
    assert!(*need >= 200, "{err}");
    assert!(
        err.to_string().contains("under the budget of 100 B"),
        "{err}"
    );
}

#[test]
fn tensors_under_the_minimum_size_stay_and_the_plan_says_so() {
    let profile = chain(&[100, 200, 300]);
    let params = PlanParams {
        min_swap_bytes: 1000,
        ..params(None)
    };
    let plan = SwapAll.plan(&profile, &params).unwrap();
    assert_eq!(plan.swapped_count(), 0);
    assert!(plan
        .moves_nothing_because
        .unwrap()
        .starts_with("every saved tensor is under the minimum swap size of 1000 B"));
}

#[test]
fn built_in_policies_are_found_by_name_and_alias() {
    assert_eq!(by_name("keep").unwrap().name(), "keep-all");
    assert_eq!(by_name(" vdnn ").unwrap().name(), "swap-all");
    assert_eq!(by_name("cdma").unwrap().name(), "compress-all");
    assert_eq!(by_name("cswap").unwrap().name(), "cswap");
    assert_eq!(by_name("oracle").unwrap().name(), "oracle");
    assert!(by_name("swap-most").is_none());
}
