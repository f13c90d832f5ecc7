//! End-to-end training benchmark: model x policy x batch size, each case in
//! its own child process.
//!
//! ```text
//! cargo bench --bench train -- --models plain20 --batches 8,32            # Flex (CPU)
//! cargo bench --features cuda --bench train -- --models vgg16,resnet50@imagenet \
//!     --batches 512,2048 --policies plain,balanced,keep-all,swap-all --json train.json
//! cargo bench --features cuda --bench train -- --models vgg16 --search-budget 8GiB
//! ```
//!
//! A policy is either a baseline backend (`plain` = `Autodiff<B>`, `balanced`
//! = `Autodiff<B, BalancedCheckpointing>`) or any name
//! `burn_swap::config::policy_by_name` knows, run under `SwapAutodiff<B>`: a
//! new burn-swap policy is benchmarked by naming it, nothing here changes.
//!
//! Every case runs in a child process (this binary re-executed with a hidden
//! `--case JSON` argument) so that one policy's memory (pools, pinned host
//! buffers) cannot help or hurt the next, and so that an out-of-memory error,
//! a panic or a hang becomes a row with a reason instead of ending the run.
//! The child prints one result line; the parent kills it after
//! `--case-timeout` seconds. CubeCL's autotune cache on disk is shared by the
//! children, so each shape is tuned once per machine.
//!
//! Options (run with `--help` for the list): `--models`, `--image`,
//! `--batches`, `--policies`, `--steps`, `--warmup`, `--max-warmup`,
//! `--budget`, `--min-swap`, `--case-timeout`, `--search-budget`,
//! `--search-start`, `--search-max`, `--gpt`, `--gpt-layers`, `--gpt-seq`,
//! `--json`, `--profiles DIR` (each burn-swap case's plan, last iteration
//! and memory timeline, as the example writes them); on CUDA `--unfused` (every policy on CubeCL's backend without
//! burn's fusion). `BURN_SWAP_UNDER_FUSION=0` leaves fusion tensors on the
//! device. `RUST_LOG` picks burn-swap's `tracing` events each case prints to
//! stderr (warnings by default).

mod args;
mod case;
mod child;
#[path = "../common/mod.rs"]
mod common;
mod measure;
mod report;

use crate::args::{parse_options, USAGE};
use crate::case::{Row, Search};
use crate::child::{run_row, search};
use crate::measure::run_child;
use crate::report::{
    print_host_and_device, print_losses, print_memory_series, print_plans, print_searches,
    print_table, print_waits, write_json,
};

#[cfg(feature = "cuda")]
pub(crate) type Device = burn::backend::Cuda;
#[cfg(all(feature = "wgpu", not(feature = "cuda")))]
pub(crate) type Device = burn::backend::Wgpu;
#[cfg(not(any(feature = "cuda", feature = "wgpu")))]
pub(crate) type Device = burn::backend::Flex;

/// The device type of `Device` (what every benchmarked backend runs on).
pub(crate) type DeviceOf = <Device as burn::tensor::backend::BackendTypes>::Device;

fn main() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("burn_swap=warn,burn_swap::warning=off")
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--case") {
        let case_json = args.get(i + 1).expect("--case takes the case as JSON");
        run_child(case_json);
        return;
    }
    let options = match parse_options(&args) {
        Ok(o) => o,
        Err(msg) => {
            if msg.is_empty() {
                println!("{USAGE}");
                return;
            }
            eprintln!("error: {msg}\n\n{USAGE}");
            std::process::exit(2);
        }
    };

    let mut rows = Vec::new();
    let mut searches = Vec::new();
    // The JSON is written again after every case, so a run cut short (a
    // time limit on a lent machine) keeps the cases it finished.
    let save_so_far = |rows: &[Row], searches: &[Search]| {
        if let Some(path) = &options.json {
            let _ = write_json(path, &args, &options, rows, searches);
        }
    };
    match options.search || options.search_budget.is_some() {
        // A search replaces the batch matrix: it picks its own batches.
        true => {
            for &(model, image) in &options.models {
                for policy in &options.policies {
                    searches.push(search(&options, model, image, policy, &mut rows));
                    save_so_far(&rows, &searches);
                }
            }
        }
        false => {
            for &(model, image) in &options.models {
                for &batch in &options.batches {
                    for policy in &options.policies {
                        let case = options.case(model, image, policy, batch, options.budget);
                        rows.push(run_row(case, &options, false));
                        save_so_far(&rows, &searches);
                    }
                }
            }
        }
    }

    println!();
    if let Some(device) = rows
        .iter()
        .find_map(|r| r.result.as_ref().map(|m| m.device_name.clone()))
    {
        println!("device: {device}");
    }
    print_table(&rows);
    print_host_and_device(&rows);
    print_plans(&rows);
    print_waits(&rows);
    print_losses(&rows);
    print_memory_series(&rows);
    if !searches.is_empty() {
        print_searches(&searches);
    }
    if let Some(path) = &options.json {
        match write_json(path, &args, &options, &rows, &searches) {
            Ok(()) => println!("wrote {}", path.display()),
            Err(err) => {
                eprintln!("could not write {}: {err}", path.display());
                std::process::exit(1);
            }
        }
    }
}
