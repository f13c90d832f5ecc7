//! Train a model for a few steps with its saved activations managed by
//! burn-swap, then show what it did.
//!
//! ```text
//! cargo run --release --example train                       # Flex (CPU)
//! cargo run --release --features cuda --example train -- --model vgg16 --batch 512 --budget 2GiB
//! ```
//!
//! Options: `--model NAME` (plain20; any of burn_swap_models::ModelKind),
//! `--image cifar|imagenet`, `--batch N`, `--steps N`, `--policy keep-all|swap-all`,
//! `--budget BYTES` (e.g. 64MiB), `--min-swap BYTES`, `--out DIR`, `--compare`
//! (also time plain `Autodiff<B>` on the same steps);
//! CUDA builds: `--unfused` (CubeCL's CUDA backend without burn's fusion) and
//! `--device-memory BYTES` (hold all but BYTES of the device before the
//! model is built: train as on a smaller GPU).
//!
//! burn-swap's own messages go through `tracing`, printed on stderr: its
//! warnings by default, `RUST_LOG=burn_swap=info` adds what each of the
//! first iterations did (the example prints that on its step lines too).

use std::path::PathBuf;
use std::time::Instant;

use burn::backend::Autodiff;
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn_swap::config::{parse_bytes, policy_by_name};
use burn_swap::profiler::{human_bytes, timeline_svg_with, write_json, SvgOptions};
use burn_swap::{SwapAutodiff, SwapConfig};
use burn_swap_models::{ImageShape, ModelKind, ModelSpec, Trainer};

#[cfg(feature = "cuda")]
type Device = burn::backend::Cuda;
#[cfg(all(feature = "wgpu", not(feature = "cuda")))]
type Device = burn::backend::Wgpu;
#[cfg(not(any(feature = "cuda", feature = "wgpu")))]
type Device = burn::backend::Flex;

/// CubeCL's CUDA backend without burn's fusion.
#[cfg(feature = "cuda")]
type Unfused = burn_cubecl::CubeBackend<cubecl::cuda::CudaRuntime, f32, i32, u8>;

struct Args {
    model: ModelKind,
    image: ImageShape,
    batch: usize,
    steps: usize,
    policy: String,
    budget: Option<u64>,
    min_swap: u64,
    out: PathBuf,
    compare: bool,
    unfused: bool,
    device_memory: Option<u64>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        model: ModelKind::Plain20,
        image: ImageShape::Cifar,
        batch: 16,
        steps: 6,
        policy: "swap-all".into(),
        budget: None,
        min_swap: 64 << 10,
        out: PathBuf::from("burn-swap-out"),
        compare: false,
        unfused: false,
        device_memory: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => args.model = value()?.parse().map_err(|e| format!("{e}"))?,
            "--image" => args.image = value()?.parse().map_err(|e| format!("{e}"))?,
            "--batch" => args.batch = value()?.parse().map_err(|_| "--batch takes a number")?,
            "--steps" => args.steps = value()?.parse().map_err(|_| "--steps takes a number")?,
            "--policy" => args.policy = value()?,
            "--budget" => args.budget = Some(parse_bytes(&value()?).map_err(|e| e.to_string())?),
            "--min-swap" => args.min_swap = parse_bytes(&value()?).map_err(|e| e.to_string())?,
            "--out" => args.out = PathBuf::from(value()?),
            "--compare" => args.compare = true,
            "--unfused" if cfg!(feature = "cuda") => args.unfused = true,
            "--device-memory" if cfg!(feature = "cuda") => {
                args.device_memory = Some(parse_bytes(&value()?).map_err(|e| e.to_string())?)
            }
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if args.steps < 3 {
        return Err("--steps must be at least 3 (profile, plan, then planned steps)".into());
    }
    Ok(args)
}

/// Runs `steps` training steps; returns the seconds each took.
fn train<B: AutodiffBackend>(args: &Args, label: &str) -> Vec<f64> {
    let device = B::Device::default();
    B::seed(&device, 42);
    let spec = ModelSpec::new(args.model).with_image(args.image);
    let mut trainer = Trainer::new(spec.init::<B>(&device), 1e-3);
    let mut times = Vec::new();
    for step in 0..args.steps {
        let swap = label == "swap";
        if step == 0 {
            println!(
                "  [{label}] step 1/{}: compiling and autotuning kernels{}: on a GPU backend this \
                 can take minutes at every new shape (a cubecl.toml kernel cache keeps them for \
                 the next run)",
                args.steps,
                if swap { ", profiling" } else { "" }
            );
        }
        let batch = spec.synthetic_batch::<B>(args.batch, step as u64, &device);
        let start = Instant::now();
        let loss: f32 = trainer.step(&batch).into_scalar().elem();
        let _ = B::sync(&device);
        let secs = start.elapsed().as_secs_f64();
        times.push(secs);
        let doing = match burn_swap::last_iteration().filter(|_| swap) {
            Some(report) => step_status(&report),
            None => String::new(),
        };
        println!(
            "  [{label}] step {}/{}  loss {loss:.4}  {:.1} samples/s  {:.2} s{doing}",
            step + 1,
            args.steps,
            args.batch as f64 / secs,
            secs
        );
    }
    times
}

use burn::tensor::ElementConversion;

/// What burn-swap did in the step just run, as its status line says it.
fn step_status(report: &burn_swap::IterationReport) -> String {
    let mut line = if report.first {
        "  compiled and autotuned kernels, profiled".to_string()
    } else {
        format!("  {}", report.doing)
    };
    if let (Some(took), Some(plan)) = (report.planning, &report.plan) {
        line += &format!("; planning: {:.1} ms, {plan}", took.as_secs_f64() * 1e3);
    }
    if report.first && report.wall > burn_swap::report::SLOW_FIRST_ITERATION {
        line += "\n    (a slow first step is kernel compilation and autotune: see cubecl.toml, \
                 CUBECL_AUTOTUNE_LEVEL=minimal tunes less)";
    }
    line
}

/// Median samples per second over the steps after the first two (profiling
/// and planning; on CUDA also kernel compilation and autotune, which can make
/// a later step slow too: the median is not moved by one such step).
fn throughput(times: &[f64], batch: usize) -> f64 {
    let mut tail = times[2.min(times.len() - 1)..].to_vec();
    tail.sort_by(f64::total_cmp);
    batch as f64 / tail[tail.len() / 2]
}

fn main() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("burn_swap=warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .init();
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}\n");
            }
            eprintln!("usage: train [--model NAME] [--image cifar|imagenet] [--batch N] [--steps N] [--policy keep-all|swap-all] [--budget BYTES] [--min-swap BYTES] [--out DIR] [--compare] [--unfused] [--device-memory BYTES]");
            std::process::exit(2);
        }
    };
    #[cfg(feature = "cuda")]
    let _hold = args.device_memory.map(|leave| {
        let device = Default::default();
        let hold =
            burn_swap::transfer::cuda::DeviceHold::all_but(&device, leave).unwrap_or_else(|err| {
                eprintln!("--device-memory: {err}");
                std::process::exit(2)
            });
        println!(
            "holding {} of device memory: {} left, as on a smaller GPU",
            human_bytes(hold.held_bytes()),
            human_bytes(leave)
        );
        hold
    });
    #[cfg(feature = "cuda")]
    if args.unfused {
        return run::<Unfused>(&args);
    }
    run::<Device>(&args)
}

fn run<D: Backend>(args: &Args) {
    let policy = policy_by_name(&args.policy).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut config = SwapConfig::builder().min_swap_bytes(args.min_swap).build();
    config.policy = policy;
    config.budget_bytes = args.budget;
    burn_swap::configure(config);

    let backend = <D as Backend>::name(&Default::default());
    println!(
        "burn-swap: {} ({}) batch {} on {backend}, policy {}, budget {}",
        args.model,
        args.image,
        args.batch,
        args.policy,
        args.budget.map_or("none".into(), human_bytes)
    );
    let times = train::<SwapAutodiff<D>>(args, "swap");
    let swap_tput = throughput(&times, args.batch);

    let profile = burn_swap::last_profile().expect("at least one backward ran");
    let plan = burn_swap::current_plan();
    println!();
    print!("{profile}");
    match &plan {
        Some(plan) => println!("{plan}"),
        None => println!("no plan in force: {:?}", burn_swap::status()),
    }
    println!("throughput: {swap_tput:.1} samples/s");
    // Each cause burn-swap saw once, in its words; a run that moved nothing
    // for none of them still says so.
    let warnings = burn_swap::warnings();
    for warning in &warnings {
        println!("warning: burn-swap: {warning}");
    }
    if profile.swapped_out_bytes == 0 && warnings.is_empty() {
        let why = match plan.as_ref().and_then(|p| p.moves_nothing_because.clone()) {
            Some(why) => why,
            None if plan.is_some() => "the backend kept every tensor on the device".into(),
            None => "no plan is in force".into(),
        };
        println!("warning: burn-swap moved nothing: {why}");
    }
    if args.compare {
        let plain = train::<Autodiff<D>>(args, "plain autodiff");
        let plain_tput = throughput(&plain, args.batch);
        println!(
            "plain Autodiff: {plain_tput:.1} samples/s; burn-swap runs at {:.1}% of it",
            100.0 * swap_tput / plain_tput
        );
    }

    std::fs::create_dir_all(&args.out).expect("create the output directory");
    let json = args.out.join("profile.json");
    let svg = args.out.join("memory-timeline.svg");
    write_json(&json, &profile, plan.as_deref()).expect("write profile.json");
    let options = SvgOptions {
        budget: args.budget,
        device_memory: args.device_memory,
    };
    std::fs::write(&svg, timeline_svg_with(&profile, &options)).expect("write the SVG");
    println!("wrote {} and {}", json.display(), svg.display());
}
