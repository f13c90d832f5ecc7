use super::*;
use crate::testing::chain;

fn params(budget_bytes: Option<u64>) -> PlanParams {
    PlanParams {
        budget_bytes,
        ..PlanParams::default()
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
fn plans_leave_the_budgets_room_for_what_the_device_adds_unseen() {
    let profile = chain(&[100; 5]);
    let with_unseen = |unseen_bytes| PlanParams {
        unseen_bytes,
        ..params(Some(600))
    };
    // 600 holds all five; with 200 of it taken unseen, tensors move.
    let keeps = SwapAll.plan(&profile, &with_unseen(0)).unwrap();
    let room = SwapAll.plan(&profile, &with_unseen(200)).unwrap();
    assert_eq!(room.unseen_bytes, 200);
    assert_eq!(room.budget_bytes, Some(600));
    assert!(room.expected_peak_bytes <= 600, "{room}");
    assert!(room.expected_peak_saved_bytes < keeps.expected_peak_saved_bytes);
    for policy in [&SwapAll as &dyn Policy, &SuperNeurons, &KeepAll] {
        match policy.plan(&profile, &with_unseen(590)) {
            Err(PlanError::BudgetTooSmall { need, .. }) => assert!(need > 600),
            other => panic!("{}: {other:?}", policy.name()),
        }
    }
    let err = SwapAll.plan(&profile, &with_unseen(590)).unwrap_err();
    assert!(
        err.to_string()
            .contains("the device adds 590 B beyond what the plan sees"),
        "{err}"
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
fn swap_all_keeps_the_tensors_offloaded_last_when_the_pinned_pool_is_full() {
    let profile = chain(&[100; 6]);
    let swapped = |plan: &Plan| -> Vec<u32> {
        plan.decisions
            .iter()
            .filter(|d| d.action == Action::Swap)
            .map(|d| d.key.op)
            .collect()
    };
    let all = SwapAll.plan(&profile, &params(Some(300))).unwrap();
    assert_eq!(swapped(&all), [0, 1, 2], "{all}");
    assert_eq!(all.expected_host_peak_bytes, 300);
    // Room in host memory for two: the one offloaded last stays.
    let host = |budget| PlanParams {
        host_budget_bytes: Some(200),
        ..params(Some(budget))
    };
    let plan = SwapAll.plan(&profile, &host(400)).unwrap();
    assert_eq!(swapped(&plan), [0, 1], "{plan}");
    assert_eq!(plan.expected_host_peak_bytes, 200, "{plan}");
    // The device budget that three swaps met is too small for two, and the
    // error says why.
    let err = SwapAll.plan(&profile, &host(300)).unwrap_err();
    assert!(
        matches!(err, PlanError::BudgetTooSmall { .. })
            && err.to_string().contains(
                "2 saved tensors of at least 0 B after their last forward use, each brought back just before its first backward use; 4 more kept on the device, the pinned pool having room for 200 B of host memory"
            ),
        "{err}"
    );
}

#[test]
fn a_plan_over_the_pinned_pool_says_what_to_change() {
    let err = PlanError::HostTooSmall {
        host_budget: 1 << 30,
        need: 3 << 30,
        iteration: 2,
        policy: "swap-all".into(),
        tried: "offloading all".into(),
    };
    let text = err.to_string();
    assert!(
        text.contains("within the 1.0 GiB of host memory the pinned pool can take"),
        "{text}"
    );
    assert!(text.contains("needs 3.0 GiB"), "{text}");
    assert!(text.contains("BURN_SWAP_PINNED_POOL"), "{text}");
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
    // One codec for every swapped tensor it takes.
    let bitmap = by_name("compress-all:bitmap").unwrap();
    assert_eq!(bitmap.name(), "compress-all");
    assert!(bitmap.uses_sparsity());
    assert!(!by_name("compress-all").unwrap().uses_sparsity());
    assert!(by_name("compress-all:gzip").is_none());
}

#[test]
fn auto_chooses_home_with_a_budget_and_the_links_cost_and_keeps_all_without_a_budget() {
    let auto = Auto::default();
    assert_eq!(by_name("auto").unwrap().name(), "auto");
    assert!(!auto.moves_tensors());
    let chosen = |budget, link| auto.chosen_for_device(budget, link).unwrap();
    assert_eq!(chosen(true, true).name(), "home");
    assert_eq!(chosen(true, false).name(), "swap-all");
    assert_eq!(chosen(false, true).name(), "keep-all");
    assert_eq!(chosen(false, false).name(), "keep-all");
    assert!(Home::default().chosen_for_device(true, true).is_none());
    // Asked for a plan itself, it keeps every tensor.
    let err = auto
        .plan(&chain(&[100, 200]), &params(Some(10)))
        .unwrap_err();
    assert!(
        err.to_string().contains("keeping every saved tensor"),
        "{err}"
    );
}

mod rebuilding {
    use std::sync::Arc;

    use super::*;
    use crate::cost::LinkModel;
    use crate::cost::{replay, CodecTime};
    use crate::evaluate::Evaluator;
    use crate::profile::{Phase, Profile, TensorKey};
    use crate::recompute::resolve_needs;
    use crate::testing::{chain, cnn};

    /// 1 GB/s each way: a 1 MiB tensor's copy takes about 1 ms.
    fn priced(budget_bytes: Option<u64>) -> PlanParams {
        priced_at(budget_bytes, 1e9)
    }

    fn priced_at(budget_bytes: Option<u64>, bytes_per_s: f64) -> PlanParams {
        PlanParams {
            costs: Some(Arc::new(CostModel {
                link: LinkModel::symmetric(bytes_per_s, bytes_per_s, 0.0),
                codecs: None,
            })),
            ..params(budget_bytes)
        }
    }

    fn action_of(plan: &Plan, op: u32) -> Action {
        plan.decisions
            .iter()
            .find(|d| d.key.op == op)
            .unwrap()
            .action
    }

    fn predicted_ns(profile: &Profile, params: &PlanParams, plan: &Plan) -> f64 {
        let costs = params.costs.as_deref().unwrap();
        Evaluator::new(profile, costs)
            .evaluate(&plan.decisions)
            .time
            .iteration_ns
    }

    #[test]
    fn superneurons_swaps_the_inputs_of_convolutions_and_rebuilds_cheap_outputs() {
        let profile = cnn(3);
        let plan = SuperNeurons.plan(&profile, &priced(None)).unwrap();
        // op 0 conv2d -> op 1 relu -> op 2 float_mul -> op 3 conv2d ...
        assert_eq!(action_of(&plan, 2), Action::Swap, "{plan}"); // feeds a conv
        assert_eq!(action_of(&plan, 1), Action::Recompute, "{plan}"); // relu, from a kept conv output
        assert_eq!(action_of(&plan, 0), Action::Keep, "{plan}"); // a conv's output
        assert!(plan.predicted.unwrap().recompute_ns > 0.0);
    }

    /// `cnn(blocks)` where backward reads each ReLU's input (a conv2d's
    /// output) only for the ReLU's gradient, as burn-autodiff does.
    fn cnn_with_relu_backward(blocks: usize) -> Profile {
        let mut profile = cnn(blocks);
        let relu_inputs: Vec<u64> = profile
            .tensors
            .iter()
            .filter(|t| t.producer == "conv2d")
            .map(|t| t.id)
            .collect();
        for op in &mut profile.ops {
            if op.phase == Phase::Backward
                && op.inputs.first().is_some_and(|i| relu_inputs.contains(i))
            {
                op.name = "relu_backward".into();
            }
        }
        profile
    }

    #[test]
    fn a_relus_output_stands_in_for_its_input_read_only_for_its_gradient() {
        let profile = cnn_with_relu_backward(2);
        let graph = crate::recompute::RecomputeGraph::of(&profile);
        let (conv, relu) = (profile.tensors[0].key, profile.tensors[1].key);
        assert_eq!(graph.stand_in(conv), Some(relu));
        assert_eq!(graph.sources(conv), &[relu]);
        assert_eq!(graph.rebuild_ns(conv), 0);
        // The output that stands in is not rebuilt from that input: each
        // would wait for the other.
        assert!(!graph.can_recompute(relu));

        // Rebuilding the conv outputs costs no time, and their ReLU's
        // outputs are needed where they are.
        let plan = SuperNeurons.plan(&profile, &priced(None)).unwrap();
        let rebuilt: Vec<&Decision> = plan
            .decisions
            .iter()
            .filter(|d| {
                profile
                    .tensors
                    .iter()
                    .any(|t| t.key == d.key && t.producer == "conv2d")
            })
            .collect();
        assert_eq!(rebuilt.len(), 2);
        for d in rebuilt {
            assert_eq!(d.action, Action::Recompute, "{plan}");
            assert_eq!(
                d.stand_in,
                Some(TensorKey {
                    op: d.key.op + 1,
                    output: 0
                })
            );
        }
        let costs = CostModel {
            link: LinkModel::symmetric(1e9, 1e9, 0.0),
            codecs: None,
        };
        let mut only_conv = Decision::keep_all(&profile);
        only_conv[0] = decision(&profile.tensors[0], Action::Recompute);
        resolve_needs(&graph, &mut only_conv);
        assert_eq!(only_conv[0].stand_in, Some(relu));
        let time = replay(&profile, &only_conv, &costs, CodecTime::Measured);
        assert_eq!(time.recompute_ns, 0.0);
    }

    #[test]
    fn home_hands_every_relu_input_to_its_output_before_searching() {
        let profile = cnn_with_relu_backward(4);
        let keep = KeepAll.plan(&profile, &priced(None)).unwrap();
        let params = priced(Some(keep.expected_peak_bytes * 3 / 4));
        let home = small_swarm(3).plan(&profile, &params).unwrap();
        let graph = crate::recompute::RecomputeGraph::of(&profile);
        let stood_in = profile
            .tensors
            .iter()
            .filter(|t| graph.stand_in(t.key).is_some())
            .count();
        assert_eq!(stood_in, 4);
        assert_eq!(
            home.decisions
                .iter()
                .filter(|d| d.stand_in.is_some())
                .count(),
            stood_in,
            "{home}"
        );
        assert!(
            home.expected_peak_bytes <= params.budget_bytes.unwrap(),
            "{home}"
        );
        assert_eq!(home.predicted.unwrap().recompute_ns, 0.0, "{home}");

        // Capuchin's greedy takes a free stand-in before a swap that hides.
        let capuchin = Capuchin.plan(&profile, &params).unwrap();
        assert!(
            capuchin.decisions.iter().any(|d| d.stand_in.is_some()),
            "{capuchin}"
        );
    }

    #[test]
    fn without_rebuilds_every_policy_fits_the_budget_by_swapping_alone() {
        let profile = cnn_with_relu_backward(4);
        let keep = KeepAll.plan(&profile, &priced(None)).unwrap();
        let params = PlanParams {
            rebuild: false,
            ..priced(Some(keep.expected_peak_bytes * 3 / 4))
        };
        let policies: [&dyn Policy; 3] = [&SuperNeurons, &Capuchin, &small_swarm(3)];
        for policy in policies {
            let plan = policy.plan(&profile, &params).unwrap();
            assert_eq!(plan.recomputed_count(), 0, "{plan}");
            assert!(
                plan.decisions.iter().all(|d| d.stand_in.is_none()),
                "{plan}"
            );
            assert!(plan.swapped_count() > 0, "{plan}");
            assert!(
                plan.expected_peak_bytes <= params.budget_bytes.unwrap(),
                "{plan}"
            );
        }
    }

    /// burn-nn 0.21's BatchNorm in training, reduced: `x - mean` made twice
    /// (ops 2 and 4, with `first` and `second` as their inputs), once
    /// squared for the variance, once divided by it; backward reads the
    /// second difference first (the division's gradient), the first last.
    fn batch_norm(first: [u64; 2], second: [u64; 2]) -> Profile {
        use crate::profile::Recorder;
        use crate::testing::record;
        const MIB: u64 = 1 << 20;
        let forward = vec![
            ("conv2d", vec![], 1, MIB),
            ("mean_dim", vec![1], 2, 256),
            ("float_sub", first.to_vec(), 3, MIB),
            ("float_mul", vec![3, 3], 4, MIB),
            ("float_sub", second.to_vec(), 5, MIB),
        ];
        let mut recorder = Recorder::new(64, 0);
        let live = crate::testing::record_forward(&mut recorder, forward);
        let mut div = record(5, &[5, 4], &[(6, MIB)]);
        div.name = "float_div";
        recorder.op(div, Phase::Forward, Some(1_000_000), live + MIB, 0);
        recorder.backward_starts(6);
        for (at, reads) in [(6, vec![5, 4]), (7, vec![3])] {
            recorder.op(
                record(at, &reads, &[]),
                Phase::Backward,
                Some(1_000_000),
                live,
                0,
            );
            for id in reads {
                recorder.released(id, at);
            }
        }
        for id in [1, 2, 6] {
            recorder.released(id, 5);
        }
        recorder.finish(0, 8, None)
    }

    #[test]
    fn an_earlier_equal_output_stands_in_for_a_repeated_element_wise_op() {
        let profile = batch_norm([1, 2], [1, 2]);
        let key = |id: u64| profile.tensors.iter().find(|t| t.id == id).unwrap().key;
        let (first, second) = (key(3), key(5));
        let graph = crate::recompute::RecomputeGraph::of(&profile);
        assert_eq!(graph.stand_in(second), Some(first));
        assert_eq!(graph.sources(second), &[first]);
        assert_eq!(graph.rebuild_ns(second), 0);
        // The first is read where the second is needed: it is not rebuilt.
        assert!(!graph.can_recompute(first));

        let mut decisions = Decision::keep_all(&profile);
        let i = decisions.iter().position(|d| d.key == second).unwrap();
        let t = profile.tensors.iter().find(|t| t.key == second).unwrap();
        decisions[i] = decision(t, Action::Recompute);
        resolve_needs(&graph, &mut decisions);
        assert_eq!(decisions[i].stand_in, Some(first));
        let costs = CostModel {
            link: LinkModel::symmetric(1e9, 1e9, 0.0),
            codecs: None,
        };
        let time = replay(&profile, &decisions, &costs, CodecTime::Measured);
        assert_eq!(time.recompute_ns, 0.0);

        // Swapped, the first leaves after the second is freed: under fusion
        // the second takes its buffer then.
        let j = decisions.iter().position(|d| d.key == first).unwrap();
        let t = profile.tensors.iter().find(|t| t.key == first).unwrap();
        decisions[j] = decision(t, Action::Swap);
        let swapped = decisions[j];
        assert!(swapped.offload_after < decisions[i].offload_after);
        resolve_needs(&graph, &mut decisions);
        // Here it cannot leave before backward needs it again: kept.
        assert_eq!(decisions[j].action, Action::Keep);
        // Were the second needed one op later, there would be an op between.
        decisions[j] = swapped;
        decisions[i].needed_at += 1;
        resolve_needs(&graph, &mut decisions);
        assert_eq!(decisions[j].action, Action::Swap);
        assert_eq!(decisions[j].offload_after, decisions[i].offload_after + 1);
    }

    #[test]
    fn only_the_same_op_of_the_same_inputs_in_the_same_order_stands_in() {
        // x - mean against mean - x: not equal.
        let profile = batch_norm([1, 2], [2, 1]);
        let graph = crate::recompute::RecomputeGraph::of(&profile);
        assert!(profile
            .tensors
            .iter()
            .all(|t| graph.stand_in(t.key).is_none()));
        // Another op of the same inputs: not equal either.
        let mut profile = batch_norm([1, 2], [1, 2]);
        profile.ops[4].name = "float_add".into();
        let graph = crate::recompute::RecomputeGraph::of(&profile);
        assert!(profile
            .tensors
            .iter()
            .all(|t| graph.stand_in(t.key).is_none()));
    }

    #[test]
    fn no_output_stands_in_where_backward_reads_the_input_for_more_than_a_relus_gradient() {
        let mut profile = cnn_with_relu_backward(2);
        // Not a ReLU: its output does not tell where its input was positive.
        profile.ops[1].name = "gelu".into();
        let graph = crate::recompute::RecomputeGraph::of(&profile);
        assert_eq!(graph.stand_in(profile.tensors[0].key), None);
        // A ReLU, but backward reads its input elsewhere too.
        let mut profile = cnn_with_relu_backward(2);
        let reader = profile.tensors[0].backward_uses[0] as usize;
        profile.ops[reader].name = "float_mul".into();
        let graph = crate::recompute::RecomputeGraph::of(&profile);
        assert_eq!(graph.stand_in(profile.tensors[0].key), None);
    }

    #[test]
    fn a_tensor_made_from_one_forward_freed_and_backward_reads_cannot_be_rebuilt() {
        let mut profile = chain(&[100, 100, 100]);
        // Tensor 1 is not saved any more: released in forward, right after
        // op 1, yet read in backward (no transient of a rebuild is).
        profile.tensors[0].saved = false;
        profile.tensors[0].released_at = Some(1);
        let graph = crate::recompute::RecomputeGraph::of(&profile);
        assert!(!graph.can_recompute(profile.tensors[1].key));
        assert!(graph.can_recompute(profile.tensors[2].key));
    }

    #[test]
    fn policies_that_price_by_op_time_need_it() {
        let profile = chain(&[100, 100, 100]);
        let err = Capuchin.plan(&profile, &priced(Some(200))).unwrap_err();
        assert!(matches!(err, PlanError::NoOpTimes { .. }), "{err}");
        let err = Home::default()
            .plan(&cnn(1), &params(Some(200)))
            .unwrap_err();
        assert!(matches!(err, PlanError::NoCostModel { .. }), "{err}");
    }

    #[test]
    fn capuchin_fits_the_budget_rebuilding_what_costs_less_than_a_copy_that_does_not_hide() {
        let profile = cnn(3);
        let keep = KeepAll.plan(&profile, &priced(None)).unwrap();
        let budget = keep.expected_peak_bytes / 2;
        // A fast link: every copy hides behind the 4 ms convolutions, so
        // swapping costs nothing.
        let plan = Capuchin.plan(&profile, &priced(Some(budget))).unwrap();
        assert!(plan.expected_peak_bytes <= budget, "{plan}");
        assert_eq!(plan.recomputed_count(), 0, "{plan}");
        // A slow one (10 ms a copy): the cheap ops' outputs are rebuilt.
        let plan = Capuchin
            .plan(&profile, &priced_at(Some(budget), 1e8))
            .unwrap();
        assert!(plan.expected_peak_bytes <= budget, "{plan}");
        assert!(plan.recomputed_count() > 0, "{plan}");
        // Too small for anything: the error names the policy.
        let err = Capuchin.plan(&profile, &priced(Some(1 << 20))).unwrap_err();
        assert!(
            matches!(&err, PlanError::BudgetTooSmall { policy, .. } if policy == "capuchin"),
            "{err}"
        );
    }

    #[test]
    fn capuchin_and_home_rebuild_what_the_pinned_pool_has_no_room_for() {
        let profile = cnn(3);
        let keep = KeepAll.plan(&profile, &priced(None)).unwrap();
        let budget = keep.expected_peak_bytes / 2;
        // A fast link: without a host bound, capuchin only swaps.
        let free = Capuchin.plan(&profile, &priced(Some(budget))).unwrap();
        assert_eq!(free.recomputed_count(), 0, "{free}");
        let one_tensor = PlanParams {
            host_budget_bytes: Some(1 << 20),
            ..priced(Some(budget))
        };
        let policies: [&dyn Policy; 2] = [&Capuchin, &small_swarm(3)];
        for policy in policies {
            let plan = policy.plan(&profile, &one_tensor).unwrap();
            assert!(plan.expected_peak_bytes <= budget, "{plan}");
            assert!(plan.expected_host_peak_bytes <= 1 << 20, "{plan}");
            assert!(plan.swapped_count() <= 1, "{plan}");
            assert!(plan.recomputed_count() > 0, "{plan}");
        }
    }

    fn small_swarm(seed: u64) -> Home {
        Home {
            particles: 48,
            rounds: 40,
            seed,
            ..Home::default()
        }
    }

    #[test]
    fn home_fits_the_budget_no_slower_than_every_baseline_and_the_same_for_a_seed() {
        let profile = cnn(4);
        let keep = KeepAll.plan(&profile, &priced(None)).unwrap();
        let params = priced(Some(keep.expected_peak_bytes / 2));
        let home = small_swarm(7).plan(&profile, &params).unwrap();
        assert!(
            home.expected_peak_bytes <= params.budget_bytes.unwrap(),
            "{home}"
        );
        let home_ns = predicted_ns(&profile, &params, &home);
        assert_eq!(home.predicted.unwrap().iteration_ns, home_ns);
        let baselines: [&dyn Policy; 3] = [&SwapAll, &SuperNeurons, &Capuchin];
        for baseline in baselines {
            if let Ok(plan) = baseline.plan(&profile, &params) {
                let ns = predicted_ns(&profile, &params, &plan);
                assert!(
                    home_ns <= ns + 1.0,
                    "home {home_ns} ns, {} {ns} ns",
                    baseline.name()
                );
            }
        }
        let again = small_swarm(7).plan(&profile, &params).unwrap();
        let actions = |p: &Plan| {
            p.decisions
                .iter()
                .map(|d| (d.action, d.prefetch_at))
                .collect::<Vec<_>>()
        };
        assert_eq!(actions(&home), actions(&again));
        // What the executor times its codecs against: every other choice
        // (rebuilds included) as it was.
        let mut compressed = home.clone();
        if let Some(d) = compressed
            .decisions
            .iter_mut()
            .find(|d| d.action == Action::Swap)
        {
            d.codec = Some(crate::cost::Codec::Zvc);
        }
        let plain = without_codecs(&small_swarm(7), &profile, &params, &compressed).unwrap();
        assert_eq!(plain.compressed_count(), 0);
        let kinds = |p: &Plan| p.decisions.iter().map(|d| d.action).collect::<Vec<_>>();
        assert_eq!(kinds(&plain), kinds(&home));
        assert!(small_swarm(7).checks_codecs_on_device());
    }

    #[test]
    fn home_says_when_no_plan_fits_and_shows_progress() {
        let profile = cnn(2);
        let rounds = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = rounds.clone();
        let home = Home {
            progress: Some(Arc::new(move |p: HomeProgress| {
                seen.store(p.round, std::sync::atomic::Ordering::Relaxed);
            })),
            ..small_swarm(1)
        };
        let err = home.plan(&profile, &priced(Some(1 << 20))).unwrap_err();
        assert!(
            matches!(&err, PlanError::BudgetTooSmall { policy, .. } if policy == "home"),
            "{err}"
        );
        assert_eq!(rounds.load(std::sync::atomic::Ordering::Relaxed), 40);
    }

    #[test]
    fn home_stops_once_its_best_plan_stops_improving_and_says_so() {
        let profile = cnn(4);
        let keep = KeepAll.plan(&profile, &priced(None)).unwrap();
        let params = priced(Some(keep.expected_peak_bytes / 2));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = seen.clone();
        let home = Home {
            rounds: 400,
            stall_rounds: 5,
            progress: Some(Arc::new(move |p: HomeProgress| {
                record.lock().unwrap().push(p);
            })),
            ..small_swarm(3)
        };
        let plan = home.plan(&profile, &params).unwrap();
        let seen = seen.lock().unwrap();
        let last = seen.last().unwrap();
        assert!(last.last && last.round < 400, "{last:?}");
        assert_eq!(seen.iter().filter(|p| p.last).count(), 1);
        // Stopping early depends on the seed only, as the rest does.
        let again = Home {
            progress: None,
            ..home.clone()
        };
        let actions = |p: &Plan| {
            p.decisions
                .iter()
                .map(|d| (d.action, d.codec, d.prefetch_at))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            actions(&again.plan(&profile, &params).unwrap()),
            actions(&plan)
        );
        assert!(
            small_swarm(3)
                .plan(&profile, &params)
                .unwrap()
                .expected_peak_bytes
                <= params.budget_bytes.unwrap()
        );
    }
}
