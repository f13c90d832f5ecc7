//! The handle path's tax: one MLP training step (forward, backward, Adam)
//! under `SwapAutodiff<Flex>` with `KeepAll` against `Autodiff<Flex>`, in the
//! same process, alternating the two so drift hits both.
//!
//! `cargo bench --bench overhead [-- --json PATH]`

mod common;

use std::time::Instant;

use burn::backend::{Autodiff, Flex};
use burn::tensor::backend::AutodiffBackend;
use burn_swap::{KeepAll, SwapAutodiff, SwapConfig};
use burn_swap_models::test_nets::MlpConfig;
use burn_swap_models::{Batch, Model, Trainer};
use common::median;

const ROUNDS: usize = 15;
const STEPS_PER_ROUND: usize = 4;

struct Case {
    name: &'static str,
    config: MlpConfig,
    batch: usize,
}

struct Run<B: AutodiffBackend> {
    trainer: Trainer<B>,
    batch: Batch<B>,
}

impl<B: AutodiffBackend> Run<B> {
    fn new(case: &Case) -> Self {
        let device = Default::default();
        let (inputs, targets) = case.config.batch(case.batch, 1, &device);
        Self {
            trainer: Trainer::new(Model::Mlp(case.config.init(&device)), 1e-3),
            batch: Batch::Features { inputs, targets },
        }
    }

    /// Seconds per step over one round.
    fn round(&mut self) -> f64 {
        let start = Instant::now();
        for _ in 0..STEPS_PER_ROUND {
            // Reading the loss waits for the step to finish.
            let _ = self.trainer.step(&self.batch).into_scalar();
        }
        start.elapsed().as_secs_f64() / STEPS_PER_ROUND as f64
    }
}

fn main() {
    let json_path = std::env::args().skip_while(|a| a != "--json").nth(1);
    burn_swap::configure(SwapConfig::builder().policy(KeepAll).build());
    let cases = [
        Case {
            name: "mlp 512-1024-1024-10, batch 128",
            config: MlpConfig {
                input: 512,
                hidden: 1024,
                classes: 10,
            },
            batch: 128,
        },
        Case {
            name: "mlp 32-64-64-10 (test size), batch 8",
            config: MlpConfig::default(),
            batch: 8,
        },
    ];
    println!(
        "{:<40} {:>14} {:>14} {:>9}",
        "case", "Autodiff ms", "KeepAll ms", "overhead"
    );
    let mut rows = Vec::new();
    for case in &cases {
        let mut plain = Run::<Autodiff<Flex>>::new(case);
        let mut swap = Run::<SwapAutodiff<Flex>>::new(case);
        // Warm up (allocators, the first plan).
        for _ in 0..2 {
            plain.round();
            swap.round();
        }
        let (mut p, mut s) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            p.push(plain.round());
            s.push(swap.round());
        }
        let (p, s) = (median(p), median(s));
        let overhead = s / p - 1.0;
        println!(
            "{:<40} {:>14.3} {:>14.3} {:>8.1}%",
            case.name,
            p * 1e3,
            s * 1e3,
            overhead * 100.0
        );
        rows.push(serde_json::json!({
            "case": case.name, "autodiff_ms": p * 1e3, "keep_all_ms": s * 1e3, "overhead": overhead,
        }));
    }
    let plan = burn_swap::current_plan();
    println!(
        "plan in force: {}",
        plan.map_or("none".to_string(), |p| p.policy.clone())
    );
    if let Some(path) = json_path {
        let out = serde_json::json!({
            "bench": "overhead", "backend": "Flex (CPU)", "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "steps_per_round": STEPS_PER_ROUND, "rounds": ROUNDS, "statistic": "median", "rows": rows,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&out).unwrap()).expect("write JSON");
        println!("wrote {path}");
    }
}
