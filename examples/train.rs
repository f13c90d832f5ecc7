//! Train a model for a few steps with its saved activations managed by
//! burn-swap, then show what it did.
//!
//! ```text
//! cargo run --release --example train                       # Flex (CPU)
//! cargo run --release --features cuda --example train -- --model vgg16 --batch 512 --budget 2GiB
//! ```
//!
//! Options: `--model NAME` (plain20; any of burn_swap_models::ModelKind),
//! `--image cifar|imagenet`, `--batch N`, `--steps N`,
//! `--policy auto|keep-all|swap-all|compress-all|cswap|oracle|superneurons|capuchin|home|plain` (`plain`:
//! `Autodiff<B>` itself; `cswap` and `oracle` read `BURN_SWAP_COST_MODEL`, `capuchin` and `home`
//! too, or time the host link on CUDA; `auto` is burn-swap's default, `home` on CUDA),
//! `--budget BYTES|auto|none` (e.g. 64MiB; `auto`, the default: the device's free
//! memory as each iteration begins, on CUDA), `--min-swap BYTES`, `--out DIR`, `--compare`
//! (also time plain `Autodiff<B>` on the same steps);
//! `--max-batch` (find the largest batch that trains instead: each batch
//! tried in a child process, from `--search-start N` (64) doubling up to
//! `--search-max N` (65536), then bisected to within 1/`--search-resolution N`
//! (16) of the batch; with `--compare`, for plain
//! `Autodiff<B>` first, the policy's search then starting from plain's
//! largest batch; `--probe-timeout SECS` (900) per batch; on CUDA a
//! swapping policy's batch that runs out of memory is tried again with
//! `burn_swap::fit::WHOLE_FREES`, unless `--no-retry`);
//! CUDA builds: `--unfused` (CubeCL's CUDA backend without burn's fusion) and
//! `--device-memory BYTES` (hold all but BYTES of the device before the
//! model is built: train as on a smaller GPU).
//!
//! burn-swap's own messages go through `tracing`, printed on stderr: its
//! warnings by default (each once: burn-swap writes those a run should not
//! miss to stderr itself, so the example leaves out their `tracing` copy,
//! target `burn_swap::warning`), `RUST_LOG=burn_swap=info` adds what each of
//! the first iterations did (the example prints that on its step lines too).

use std::path::PathBuf;
use std::time::Instant;

use burn::backend::Autodiff;
use burn::tensor::backend::{AutodiffBackend, Backend};
use burn_swap::config::{parse_budget, parse_bytes, policy_by_name};
use burn_swap::profiler::human_bytes;
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
    /// `--budget` was given: `auto` (true), bytes or `none` (false).
    budget_from_free_memory: Option<bool>,
    min_swap: u64,
    out: PathBuf,
    compare: bool,
    unfused: bool,
    device_memory: Option<u64>,
    max_batch: bool,
    search_start: usize,
    search_max: usize,
    search_resolution: usize,
    probe_timeout: u64,
    /// `--max-batch` does not try a batch that ran out of memory again with
    /// `fit::WHOLE_FREES`.
    no_retry: bool,
    /// This process tries one batch for a parent's search: it reports on
    /// stderr and ends with its verdict.
    probe_child: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        model: ModelKind::Plain20,
        image: ImageShape::Cifar,
        batch: 16,
        steps: 6,
        policy: "swap-all".into(),
        budget: None,
        budget_from_free_memory: None,
        min_swap: 64 << 10,
        out: PathBuf::from("burn-swap-out"),
        compare: false,
        unfused: false,
        device_memory: None,
        max_batch: false,
        search_start: 64,
        search_max: 65536,
        search_resolution: 16,
        probe_timeout: 900,
        no_retry: false,
        probe_child: false,
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
            "--budget" => {
                let (bytes, auto) = parse_budget(&value()?).map_err(|e| e.to_string())?;
                (args.budget, args.budget_from_free_memory) = (bytes, Some(auto));
            }
            "--min-swap" => args.min_swap = parse_bytes(&value()?).map_err(|e| e.to_string())?,
            "--out" => args.out = PathBuf::from(value()?),
            "--compare" => args.compare = true,
            "--unfused" if cfg!(feature = "cuda") => args.unfused = true,
            "--device-memory" if cfg!(feature = "cuda") => {
                args.device_memory = Some(parse_bytes(&value()?).map_err(|e| e.to_string())?)
            }
            "--max-batch" => args.max_batch = true,
            "--search-start" => {
                args.search_start = value()?
                    .parse()
                    .map_err(|_| "--search-start takes a number")?
            }
            "--search-max" => {
                args.search_max = value()?
                    .parse()
                    .map_err(|_| "--search-max takes a number")?
            }
            "--search-resolution" => {
                args.search_resolution = value()?
                    .parse()
                    .map_err(|_| "--search-resolution takes a number")?
            }
            "--probe-timeout" => {
                args.probe_timeout = value()?
                    .parse()
                    .map_err(|_| "--probe-timeout takes seconds")?
            }
            "--no-retry" => args.no_retry = true,
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if args.steps < 3 {
        return Err("--steps must be at least 3 (profile, plan, then planned steps)".into());
    }
    if args.policy != "plain" {
        policy_by_name(&args.policy).map_err(|e| e.to_string())?;
    }
    // In a child of a `--max-batch` search: one batch, one policy.
    if let Some(batch) = burn_swap::fit::probe_batch() {
        args.batch = batch;
        args.max_batch = false;
        args.compare = false;
        args.probe_child = true;
    }
    Ok(args)
}

/// Runs `steps` training steps; returns the seconds each took.
/// A run's step times (s), and the first step after its last (re)plan.
struct Run {
    times: Vec<f64>,
    steady_from: usize,
    /// Plain `Autodiff`: the device runtime failed on its own thread (an
    /// allocation that did not fit); the run stopped at that step.
    failed: Option<String>,
}

fn train<B: AutodiffBackend>(args: &Args, label: &str) -> Run {
    let device = B::Device::default();
    B::seed(&device, 42);
    let spec = ModelSpec::new(args.model).with_image(args.image);
    let mut trainer = Trainer::new(spec.init::<B>(&device), 1e-3);
    let mut times = Vec::new();
    let mut steady_from = 0;
    let swap = label == "swap";
    if !swap && !args.probe_child {
        // burn-swap raises such a failure itself; plain Autodiff would go on
        // computing on a failed runtime. (A largest-batch probe watches
        // already, with its own watchdog.)
        burn_swap::watch_device_runtime();
    }
    for step in 0..args.steps {
        if step == 0 {
            say(
                args,
                format!(
                "  [{label}] step 1/{}: compiling and autotuning kernels{}: on a GPU backend this \
                 can take minutes at every new shape (a cubecl.toml kernel cache keeps them for \
                 the next run)",
                    args.steps,
                    if swap { ", profiling" } else { "" }
                ),
            );
        }
        let batch = spec.synthetic_batch::<B>(args.batch, step as u64, &device);
        let start = Instant::now();
        let loss: f32 = trainer.step(&batch).into_scalar().elem();
        let _ = B::sync(&device);
        let secs = start.elapsed().as_secs_f64();
        if let Some(failure) = burn_swap::device_runtime_failure().filter(|_| !swap) {
            let failure = failure.lines().next().unwrap_or_default().to_string();
            say(
                args,
                format!(
                    "  [{label}] batch {} step {}/{}: the device runtime failed: {failure} \
                     (what it computed since is not valid)",
                    args.batch,
                    step + 1,
                    args.steps
                ),
            );
            return Run {
                times,
                steady_from,
                failed: Some(failure),
            };
        }
        times.push(secs);
        let doing = match burn_swap::last_iteration().filter(|_| swap) {
            Some(report) => {
                // A step that planned, that ran a rival plan being timed
                // against the one in force, or that compared rebuilds with
                // their tensors (both read back), is not the steady state.
                if report.planning.is_some() || report.trying_plans || report.rebuilds_checked > 0 {
                    steady_from = step + 1;
                }
                step_status(&report)
            }
            None => String::new(),
        };
        say(
            args,
            format!(
                "  [{label}] batch {} step {}/{}  loss {loss:.4}  {:.1} samples/s  {:.2} s{doing}",
                args.batch,
                step + 1,
                args.steps,
                args.batch as f64 / secs,
                secs
            ),
        );
    }
    Run {
        times,
        steady_from,
        failed: None,
    }
}

/// Plain `Autodiff` stopped at a failure of the device runtime.
fn not_trained(args: &Args, failure: &str) -> String {
    format!(
        "plain Autodiff did not train batch {}: the device runtime failed ({failure})",
        args.batch
    )
}

/// The model, with its input shape where it takes images.
fn model_label(args: &Args) -> String {
    match args.model.takes_image_shape() {
        true => format!("{} ({})", args.model, args.image),
        false => args.model.to_string(),
    }
}

/// A progress line: on stdout, or on stderr in a probe child (whose stderr
/// its parent shows).
fn say(args: &Args, line: String) {
    if args.probe_child {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
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
    if let Some(verdict) = &report.plans_timed {
        line += &format!("; {verdict}");
    } else if report.trying_plans {
        line += " (plans timed against each other on the device: the plan in force may change)";
    }
    if report.rebuilds_checked > 0 {
        line += &format!(
            "; {} rebuilds compared with their tensors ({} differed)",
            report.rebuilds_checked, report.rebuilds_differed
        );
    }
    if report.first && report.wall > burn_swap::report::SLOW_FIRST_ITERATION {
        line += "\n    (a slow first step is kernel compilation and autotune: see cubecl.toml, \
                 CUBECL_AUTOTUNE_LEVEL=minimal tunes fewer shapes)";
    }
    line
}

/// Samples per second at the median step of the steady state: the steps
/// after the first two (profiling and planning; on CUDA also kernel
/// compilation and autotune, which can make a later step slow too: the
/// median is not moved by one such step), or after the last re-plan if it
/// came later.
fn throughput(run: &Run, batch: usize) -> f64 {
    batch as f64 / median_step(run)
}

/// The median step time (s) of the steady state.
fn median_step(run: &Run) -> f64 {
    let times = &run.times;
    let first = run.steady_from.max(2).min(times.len() - 1);
    let mut tail = times[first..].to_vec();
    tail.sort_by(f64::total_cmp);
    tail[tail.len() / 2]
}

fn main() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("burn_swap=warn,burn_swap::warning=off")
    });
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
            eprintln!("usage: train [--model NAME] [--image cifar|imagenet] [--batch N] [--steps N] [--policy auto|keep-all|swap-all|compress-all|cswap|oracle|superneurons|capuchin|home|plain] [--budget BYTES|auto|none] [--min-swap BYTES] [--out DIR] [--compare] [--unfused] [--device-memory BYTES] [--max-batch [--search-start N] [--search-max N] [--search-resolution N] [--probe-timeout SECS] [--no-retry]]");
            std::process::exit(2);
        }
    };
    // The parent of a search only starts children: it must not take the
    // device (or hold its memory) itself.
    if args.max_batch {
        return max_batch(&args);
    }
    #[cfg(feature = "cuda")]
    let _hold = args.device_memory.map(|leave| {
        let device = Default::default();
        let hold =
            burn_swap::transfer::cuda::DeviceHold::all_but(&device, leave).unwrap_or_else(|err| {
                let why = format!("--device-memory: {err}");
                if args.probe_child {
                    // No batch would train: the search stops here.
                    burn_swap::fit::report_error(&why);
                }
                eprintln!("{why}");
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
    if args.policy == "plain" {
        let times = train::<Autodiff<D>>(args, "plain autodiff");
        if let Some(failure) = &times.failed {
            eprintln!("{}", not_trained(args, failure));
            std::process::exit(1);
        }
        let tput = throughput(&times, args.batch);
        match args.probe_child {
            true => burn_swap::fit::report_fits(tput),
            false => println!("plain Autodiff: {tput:.1} samples/s"),
        }
        return;
    }
    let policy = policy_by_name(&args.policy).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    // `BURN_SWAP_*` variables apply (e.g. `BURN_SWAP_COST_MODEL` for
    // `cswap`); the options set the rest.
    let mut config = SwapConfig::try_from_env().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    config.min_swap_bytes = args.min_swap;
    config.policy = policy;
    if let Some(auto) = args.budget_from_free_memory {
        config.budget_bytes = args.budget;
        config.budget_from_free_memory = auto;
    }
    let budget = match (config.budget_bytes, config.budget_from_free_memory) {
        (Some(bytes), _) => human_bytes(bytes),
        (None, true) => {
            "auto (the device's free memory as each iteration begins, where the driver says it)"
                .into()
        }
        (None, false) => "none".into(),
    };
    burn_swap::configure(config);

    let backend = <D as Backend>::name(&Default::default());
    println!(
        "burn-swap: {} batch {} on {backend}, policy {}, budget {budget}",
        model_label(args),
        args.batch,
        args.policy,
    );
    let times = train::<SwapAutodiff<D>>(args, "swap");
    let swap_tput = throughput(&times, args.batch);
    // A largest-batch probe gives its verdict first, then what it did (its
    // parent passes that through); the files are the parent's to write.
    if args.probe_child {
        burn_swap::fit::report_fits(swap_tput);
    }

    let profile = burn_swap::last_profile().expect("at least one backward ran");
    let plan = burn_swap::current_plan();
    println!();
    print!("{profile}");
    match &plan {
        Some(plan) => println!("{plan}"),
        None => println!("no plan in force: {:?}", burn_swap::status()),
    }
    println!("throughput: {swap_tput:.1} samples/s");
    let compressed = burn_swap::transfer::compression_stats();
    if compressed.tensors > 0 {
        println!(
            "compressed before crossing the link: {} tensors, {} to {} ({:.1}%)",
            compressed.tensors,
            human_bytes(compressed.bytes),
            human_bytes(compressed.compressed_bytes),
            100.0 * compressed.compressed_bytes as f64 / compressed.bytes.max(1) as f64
        );
        println!(
            "  queuing them took the training thread {:.1} ms ({} compressions) and {:.1} ms ({} decompressions) in all",
            compressed.compress_queue_ns as f64 / 1e6,
            compressed.compressions,
            compressed.decompress_queue_ns as f64 / 1e6,
            compressed.decompressions
        );
    }
    // A plan made at the last step was followed by no step, a step that
    // timed a rival plan did not run the plan in force, and one that
    // compared rebuilds read tensors back.
    let plan_followed = times.steady_from < times.times.len();
    if plan.is_some() && !plan_followed {
        println!(
            "evaluator: the last step made the plan in force, timed a rival plan on the device or compared rebuilds with their tensors: run more steps to measure the plan in force"
        );
    }
    if let Some(predicted) = plan
        .as_ref()
        .filter(|_| plan_followed)
        .and_then(|p| p.predicted)
    {
        let measured = median_step(&times) * 1e3;
        let predicted = predicted.iteration_ns / 1e6;
        println!(
            "evaluator: predicted {predicted:.1} ms a step, measured {measured:.1} ms ({:+.1}%)",
            100.0 * (predicted - measured) / measured
        );
    }
    // The measured peak: where the driver's allocator keeps a high-water
    // mark (CUDA), that mark, which no sampling can miss; else the runtime's
    // memory in use sampled in the last iteration (after every op only with
    // BURN_SWAP_DEVICE_SAMPLE_PLANNED=1 while a plan is followed, else at its
    // start, the op of the predicted peak and phase boundaries).
    if let (Some(plan), Some(device), true) = (&plan, &profile.device, plan_followed) {
        let predicted = plan.expected_peak_bytes;
        let (measured, how) = match device.allocator_growth() {
            Some(growth) => (
                growth,
                format!(
                    "the driver's allocator's high-water mark over the iteration's start; sampled bytes in use: {}",
                    human_bytes(device.peak_growth())
                ),
            ),
            None => (
                device.peak_growth(),
                format!(
                    "the runtime's bytes in use over the iteration's start, {} samples",
                    device.samples.len()
                ),
            ),
        };
        println!(
            "evaluator: the iteration's peak device bytes predicted {}, measured {} ({:+.1}%; {how})",
            human_bytes(predicted),
            human_bytes(measured),
            100.0 * (predicted as f64 - measured as f64) / measured.max(1) as f64,
        );
    }
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
        match &plain.failed {
            Some(failure) => println!("{}", not_trained(args, failure)),
            None => {
                let plain_tput = throughput(&plain, args.batch);
                println!(
                    "plain Autodiff: {plain_tput:.1} samples/s; burn-swap runs at {:.1}% of it",
                    100.0 * swap_tput / plain_tput
                );
            }
        }
    }

    if args.probe_child {
        return;
    }
    let files = burn_swap::profiler::write_run(&args.out, args.budget, args.device_memory)
        .expect("write the run's files")
        .expect("at least one backward ran");
    println!(
        "wrote {}, {} and {}",
        files.plan.display(),
        files.last_iteration.display(),
        files.timeline.display()
    );
}

/// `--max-batch`: the largest batch that trains, for the policy (and with
/// `--compare` for plain `Autodiff`), each batch tried in a child process.
fn max_batch(args: &Args) {
    use burn_swap::fit::{self, BatchSearch, ChildProbe, SearchResult, Verdict};

    // Plain first: the policy's search then starts from plain's largest
    // batch, which swapping only makes room beside, skipping the small
    // batches (each new size autotunes again on a GPU).
    let mut policies = vec![args.policy.clone()];
    if args.compare && args.policy != "plain" {
        policies.insert(0, "plain".into());
    }
    let program = std::env::current_exe().expect("the path of this program");
    let base: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--compare")
        .collect();
    let search =
        BatchSearch::new(args.search_start, args.search_max).resolution(args.search_resolution);
    let backend = if cfg!(feature = "cuda") {
        if args.unfused {
            "cubecl<cuda>"
        } else {
            "fusion<cubecl<cuda>>"
        }
    } else if cfg!(feature = "wgpu") {
        "fusion<cubecl<wgpu>>"
    } else {
        "flex"
    };
    println!(
        "largest batch of {} that trains on {backend}{}: from batch {} doubling up to {}, then \
         bisected; each batch is {} steps in a child process (`--probe-timeout` {} s)",
        model_label(args),
        args.device_memory.map_or(String::new(), |m| format!(
            " with {} of device memory",
            human_bytes(m)
        )),
        search.start,
        search.max,
        args.steps,
        args.probe_timeout,
    );
    let mut results: Vec<(String, SearchResult)> = Vec::new();
    for policy in &policies {
        let plain_largest = results
            .iter()
            .find(|(p, _)| p == "plain")
            .and_then(|(_, r)| r.largest_fitting);
        let search = match plain_largest {
            Some(largest) if largest > search.start => {
                println!("[{policy}] starting from plain's largest batch, {largest}");
                BatchSearch::new(largest, search.max).resolution(args.search_resolution)
            }
            _ => search,
        };
        let mut child_args = base.clone();
        child_args.extend(["--policy".into(), policy.clone()]);
        let mut child = ChildProbe::new(&program, child_args)
            .timeout(std::time::Duration::from_secs(args.probe_timeout));
        // On CUDA a swapping policy's batch that ran out of memory is tried
        // again with free memory given back whole after every op (plain
        // `Autodiff` does not go through burn-swap).
        if cfg!(feature = "cuda") && policy != "plain" && !args.no_retry {
            child = child.retry_out_of_memory_with(fit::WHOLE_FREES);
        }
        let result = search.run(|batch| {
            println!("[{policy}] batch {batch}: training...");
            let verdict = child.run(batch);
            match &verdict {
                Verdict::Fits {
                    samples_per_s,
                    settings,
                } => println!(
                    "[{policy}] batch {batch}: fits ({}){}",
                    samples_per_s.map_or("no throughput".into(), |t| format!("{t:.1} samples/s")),
                    if settings.is_empty() {
                        String::new()
                    } else {
                        format!(" with {}", settings.join(" "))
                    }
                ),
                Verdict::DoesNotFit { why } => {
                    println!("[{policy}] batch {batch}: does not fit: {why}")
                }
                Verdict::Undecided { why } => {
                    println!("[{policy}] batch {batch}: undecided, searching below it: {why}")
                }
                Verdict::Error { why } => {
                    println!("[{policy}] batch {batch}: cannot train at any batch, the search stops: {why}")
                }
            }
            verdict
        });
        results.push((policy.clone(), result));
    }
    println!();
    println!("| policy | budget | largest batch that trains | samples/s there | smallest that does not | why |");
    println!("|---|---|---|---|---|---|");
    for (policy, result) in &results {
        let (tput, settings) = match result.at_largest().map(|p| &p.verdict) {
            Some(Verdict::Fits {
                samples_per_s,
                settings,
            }) => (*samples_per_s, settings.clone()),
            _ => (None, Vec::new()),
        };
        let why_at = |batch: Option<usize>| {
            result
                .probes
                .iter()
                .find(|p| Some(p.batch) == batch)
                .and_then(|p| p.verdict.why().map(str::to_owned))
        };
        let mut why = match &result.error {
            Some(error) => format!("the search stopped: {error}"),
            None => why_at(result.smallest_failing).unwrap_or_default(),
        };
        // A batch below the smallest failure that ran out of time: the
        // largest that trains may be higher than the table says.
        if let Some(undecided) = result.undecided {
            let note = format!(
                "{undecided} undecided ({})",
                why_at(Some(undecided)).unwrap_or_default()
            );
            why = if why.is_empty() {
                note
            } else {
                format!("{why}; {note}")
            };
        }
        println!(
            "| {policy} | {} | {} | {} | {} | {why} |",
            match (policy.as_str(), args.budget) {
                ("plain", _) | (_, None) => "-".to_string(),
                (_, Some(b)) => human_bytes(b),
            },
            result.largest_fitting.map_or("none".into(), |b| {
                if settings.is_empty() {
                    b.to_string()
                } else {
                    format!("{b} (with {})", settings.join(" "))
                }
            }),
            tput.map_or("-".into(), |t| format!("{t:.1}")),
            result
                .smallest_failing
                .map_or("-".into(), |b| b.to_string()),
        );
    }
    std::fs::create_dir_all(&args.out).expect("create the output directory");
    let path = args.out.join("max-batch.json");
    let json = serde_json::json!({
        "model": args.model.to_string(),
        "image": args.model.takes_image_shape().then(|| args.image.to_string()),
        "backend": backend,
        "device_memory": args.device_memory,
        "budget": args.budget,
        "steps": args.steps,
        "searches": results.iter().map(|(policy, r)| serde_json::json!({
            "policy": policy,
            "result": r,
        })).collect::<Vec<_>>(),
    });
    std::fs::write(&path, serde_json::to_string_pretty(&json).expect("JSON"))
        .expect("write max-batch.json");
    println!("wrote {}", path.display());
}
