//! How long `home`'s particle swarm takes on a real profile: 500 particles x
//! 500 rounds (the defaults), on every core.
//!
//! `cargo bench -p burn-swap-plan --bench home -- PROFILE.json [--budget-share F] [--link-gbps G]`
//!
//! The profile is one a run wrote (`BURN_SWAP_PROFILE`, the example's
//! `profile.json`). Planning time does not depend on the values the plan
//! is priced with, so a profile without op times gets 100 us per op, and
//! the link is `--link-gbps` (50) each way, 40 both at once: the plan this
//! prints is a timing run's, not a plan for that device. The budget is
//! `--budget-share` (1/3) of the growth keep-all would need.

use std::sync::Arc;
use std::time::Instant;

use burn_swap_plan::cost::{CostModel, LinkModel};
use burn_swap_plan::memory::Footprint;
use burn_swap_plan::policy::{Home, PlanParams, Policy};
use burn_swap_plan::{Decision, Profile};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .map(|v| v.parse::<f64>().expect("a number"))
    };
    let Some(path) = args.iter().find(|a| a.ends_with(".json")) else {
        eprintln!("usage: home PROFILE.json [--budget-share F] [--link-gbps G]");
        return;
    };
    let text = std::fs::read_to_string(path).expect("read the profile");
    // A profile, or the example's file that holds one with its plan.
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let json = json.get("profile").cloned().unwrap_or(json);
    let mut profile: Profile = serde_json::from_value(json).expect("a profile");
    let untimed = !profile.is_timed();
    if untimed {
        for op in &mut profile.ops {
            op.duration_ns = Some(100_000);
        }
    }
    let gbps = value_of("--link-gbps").unwrap_or(50.0);
    let costs = CostModel {
        link: LinkModel::symmetric(gbps * 1e9, 0.8 * gbps * 1e9, 10_000.0),
        codecs: None,
    };
    let keep_all = Footprint::of(&profile)
        .peak(&profile, &Decision::keep_all(&profile))
        .0;
    let share = value_of("--budget-share").unwrap_or(1.0 / 3.0);
    let params = PlanParams {
        budget_bytes: Some((keep_all as f64 * share) as u64),
        min_swap_bytes: 1 << 20,
        prefetch_lookahead_ops: None,
        costs: Some(Arc::new(costs)),
        unseen_bytes: 0,
        host_budget_bytes: None,
        rebuild: true,
        // As the default fused backend plans.
        rebuild_through_freed: true,
        under_fusion: true,
    };
    println!(
        "{} ops, {} saved tensors{}; {} threads",
        profile.ops.len(),
        profile.saved_count,
        if untimed {
            " (no op times: 100 us each)"
        } else {
            ""
        },
        rayon::current_num_threads()
    );
    // Every round, as the search's time is measured (the default stops once
    // its best plan stalls).
    let home = Home {
        stall_rounds: 0,
        ..Home::default()
    };
    let started = Instant::now();
    let result = home.plan(&profile, &params);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "home, {} particles x {} rounds: {secs:.2} s",
        home.particles, home.rounds
    );
    match result {
        Ok(plan) => println!("{plan}"),
        Err(err) => println!("{err}"),
    }
}
