//! Shared test helpers: run tests that seed the CPU backends one at a time;
//! a model's gradients and parameters as raw bytes, compared bit for bit.
#![allow(dead_code, unused_imports)]

use std::sync::{Mutex, MutexGuard};

pub mod mlp;

pub use burn_swap_models::bytes::{
    grad_bytes, gradients_per_iteration, param_bytes, params_after_training,
};

/// The CPU backends seed one global RNG: tests that seed run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// `SwapAll` over every saved tensor (no minimum size) under `budget` bytes:
/// the configuration most tests start from.
pub fn swap_every_tensor(budget: u64) -> burn_swap::SwapConfigBuilder {
    burn_swap::SwapConfig::builder()
        .policy(burn_swap::SwapAll)
        .min_swap_bytes(0)
        .budget_bytes(budget)
}

/// Trains `kind` for a few iterations on Flex, plain and under `config`,
/// and asserts that every iteration's loss and gradients are the same bytes
/// and that planning succeeded.
pub fn assert_same_gradients_on_flex(
    kind: burn_swap_models::ModelKind,
    config: burn_swap::SwapConfig,
    batch: usize,
) {
    use burn::backend::{Autodiff, Flex};
    const ITERATIONS: usize = 4;
    let expected = gradients_per_iteration::<Autodiff<Flex>>(kind, batch, ITERATIONS, 7);
    burn_swap::configure(config);
    let actual =
        gradients_per_iteration::<burn_swap::SwapAutodiff<Flex>>(kind, batch, ITERATIONS, 7);
    assert_eq!(expected.len(), actual.len());
    for (i, (e, a)) in expected.iter().zip(&actual).enumerate() {
        assert_eq!(e.len(), a.len(), "{kind}: parameter count differs");
        for (p, (eb, ab)) in e.iter().zip(a).enumerate() {
            assert!(
                eb == ab,
                "{kind}: iteration {i}, entry {p} (0 is the loss) differs"
            );
        }
    }
    burn_swap::status().expect("planning succeeded");
}

/// The policies that price by op time, `capuchin` and `home` (a small swarm,
/// quick on the CPU), under `budget` with a measured-looking cost model and
/// every saved tensor movable.
pub fn time_priced_policies(budget: u64) -> [(&'static str, burn_swap::SwapConfig); 2] {
    use burn_swap::policy::{Capuchin, Home};
    let home = Home {
        particles: 24,
        rounds: 12,
        ..Home::default()
    };
    let config = |builder: burn_swap::SwapConfigBuilder| {
        builder
            .cost_model(zvc_cost_model(1e9))
            .min_swap_bytes(0)
            .budget_bytes(budget)
            .build()
    };
    [
        (
            "capuchin",
            config(burn_swap::SwapConfig::builder().policy(Capuchin)),
        ),
        (
            "home",
            config(burn_swap::SwapConfig::builder().policy(home)),
        ),
    ]
}

/// What planning with `policy` (every saved tensor movable, the keep-all
/// fallback on) said about `kind` at `batch` after a few Flex iterations.
pub fn planning_error(
    policy: impl burn_swap::Policy + 'static,
    kind: burn_swap_models::ModelKind,
    batch: usize,
) -> String {
    burn_swap::configure(
        burn_swap::SwapConfig::builder()
            .policy(policy)
            .min_swap_bytes(0)
            .on_budget_error(burn_swap::OnBudgetError::KeepAll)
            .build(),
    );
    gradients_per_iteration::<burn_swap::SwapAutodiff<burn::backend::Flex>>(kind, batch, 2, 7);
    burn_swap::status()
        .expect_err("planning failed")
        .to_string()
}

/// A cost model as a device would measure it for ZVC on f32 (a pass over
/// the bytes, less work for zeros, a bit per value and the non-zero values
/// out) over a link of `link_bytes_per_s` each way: what `cswap` needs.
pub fn zvc_cost_model(link_bytes_per_s: f64) -> burn_swap::policy::CostModel {
    use burn_swap::policy::{Codec, CodecTimeModel, CostModel, LinkModel};
    use burn_swap_plan::cost::CodecSample;
    let mut samples = Vec::new();
    for kib in [4u64, 16, 64, 256, 1024, 4096] {
        for zeros in [0.0, 0.1, 0.3, 0.5, 0.6, 0.8, 0.9, 0.95] {
            let bytes = kib << 10;
            let b = bytes as f64;
            samples.push(CodecSample {
                codec: Codec::Zvc,
                dtype: "F32".into(),
                bytes,
                zero_fraction: zeros,
                compress_ns: 2_000.0 + 0.01 * b - 0.004 * b * zeros,
                decompress_ns: 1_500.0 + 0.008 * b - 0.003 * b * zeros,
                compressed_bytes: (b * (1.0 - zeros) + b / 32.0 + 32.0) as u64,
            });
        }
    }
    CostModel {
        link: LinkModel::symmetric(link_bytes_per_s, 0.8 * link_bytes_per_s, 10_000.0),
        codecs: Some(CodecTimeModel::fit("test-device", "1", &samples).expect("a fit")),
    }
}

/// Rebuilds every saved tensor that can be rebuilt, however small: chains
/// of rebuilt tensors, each made from one rebuilt before it.
#[derive(Debug)]
pub struct RebuildAll;

impl burn_swap::policy::Policy for RebuildAll {
    fn name(&self) -> &str {
        "rebuild-all"
    }

    fn plan(
        &self,
        profile: &burn_swap::Profile,
        params: &burn_swap::policy::PlanParams,
    ) -> Result<burn_swap::policy::Plan, burn_swap::policy::PlanError> {
        use burn_swap::policy::{resolve_needs, Action, Decision, RecomputeGraph};
        let graph = RecomputeGraph::for_params(profile, params);
        let mut plan = burn_swap::KeepAll.plan(profile, params)?;
        plan.policy = self.name().into();
        for d in &mut plan.decisions {
            let t = profile.tensors.iter().find(|t| t.key == d.key).unwrap();
            if graph.can_recompute(d.key) {
                *d = Decision {
                    action: Action::Recompute,
                    offload_after: t.last_forward_use,
                    prefetch_at: t.first_backward_use.unwrap(),
                    needed_at: t.first_backward_use.unwrap(),
                    ..*d
                };
            }
        }
        resolve_needs(&graph, &mut plan.decisions);
        Ok(plan)
    }
}

/// Rebuilds what can be rebuilt, and swaps each earlier output that stands
/// in for a later equal one: the plan keeps it until that one is freed and
/// moves it after an op that does not read it.
#[derive(Debug)]
pub struct SwapStandIns;

impl burn_swap::policy::Policy for SwapStandIns {
    fn name(&self) -> &str {
        "swap-stand-ins"
    }

    fn plan(
        &self,
        profile: &burn_swap::Profile,
        params: &burn_swap::policy::PlanParams,
    ) -> Result<burn_swap::policy::Plan, burn_swap::policy::PlanError> {
        use burn_swap::policy::{resolve_needs, Action, Decision, Policy, RecomputeGraph};
        let mut plan = RebuildAll.plan(profile, params)?;
        let sources: Vec<_> = plan
            .decisions
            .iter()
            .filter_map(|d| d.stand_in.filter(|s| s.op < d.key.op))
            .collect();
        for d in plan
            .decisions
            .iter_mut()
            .filter(|d| sources.contains(&d.key))
        {
            let t = profile.tensors.iter().find(|t| t.key == d.key).unwrap();
            let needed = t.first_backward_use.unwrap();
            *d = Decision {
                action: Action::Swap,
                offload_after: t.last_forward_use,
                prefetch_at: needed,
                needed_at: needed,
                ..*d
            };
        }
        resolve_needs(
            &RecomputeGraph::for_params(profile, params),
            &mut plan.decisions,
        );
        Ok(plan)
    }
}

/// Each tensor `plan` swaps after an op that does not read it left the
/// device within its planned window in the last iteration.
pub fn assert_stand_ins_left(plan: &burn_swap::policy::Plan) {
    use burn_swap::policy::Action;
    let profile = burn_swap::last_profile().expect("the last iteration's profile");
    let tensor = |key| profile.tensors.iter().find(|t| t.key == key).unwrap();
    let late: Vec<_> = plan
        .decisions
        .iter()
        .filter(|d| d.action == Action::Swap)
        .filter(|d| !tensor(d.key).forward_uses.contains(&d.offload_after))
        .collect();
    assert!(
        !late.is_empty(),
        "no stand-in moved after another op: {plan}"
    );
    for d in late {
        let left = tensor(d.key).offloaded_at.first().copied();
        assert!(
            left.is_some_and(|at| at >= d.offload_after && at < d.needed_at),
            "{:?} was to leave after op {}, left at {left:?}",
            d.key,
            d.offload_after
        );
    }
}
