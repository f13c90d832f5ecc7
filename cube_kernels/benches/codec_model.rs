//! The codecs' time model on the GPU (CUDA): every codec and element type
//! timed on synthetic tensors made on the device (1 MB to 2 GB, 0-95%
//! zeros; see `calibrate::Calibration`), a model fitted on every other
//! sample, and its relative absolute error on the samples it did not see,
//! per codec and element type: compression time, decompression time and
//! compressed size, mean and largest.
//!
//! `cargo build --release --features cuda --bench codec_model`, then on the
//! GPU: `codec_model [--quick] [--untuned] [--f32] [--short-timings] [--json PATH] [--model PATH] [--cost-model PATH [--link-only]]`.
//! `--quick` measures 1 MB to 512 MB only; `--untuned` times each codec's
//! default launch configuration, the one the transfer engines launch (no
//! tuning, so a few minutes instead of tens); `--f32` times f32 alone;
//! `--short-timings` times each sample as the tuner's search does (three
//! batches of 2 ms) instead of five of 20 ms. The errors are printed over
//! all held-out samples and over those of 16 MiB and more. `--model` also writes the model
//! fitted on all samples (the file the executor would keep next to the
//! tuner's cache); `--cost-model` writes it with the host link measured
//! too (pinned memory, one stream each way, alone and both at once): the
//! `CostModel` that `BURN_SWAP_COST_MODEL` reads; `--link-only` with it
//! measures the link alone and skips the codecs. The tuner's cache is `TUNE_CACHE` (default `codecs-tune.json`):
//! carry it between runs, the first calibration tunes every size bucket.
//!
//! `codec_model --decisions PROFILE.json --costs COST_MODEL.json [--json PATH]`:
//! the time model's decision accuracy instead. Every codec is timed
//! (untuned, as the engines launch it) on a synthetic tensor of each saved
//! tensor of the profile (the example's `--out` file: its element type,
//! bytes and counted zero fraction); each tensor swapped alone, the
//! cheapest of as-it-is and each codec by those times is compared with the
//! cheapest by the cost model's time model (`cost::decision_accuracy`).

#[cfg(not(feature = "cuda"))]
fn main() {
    eprintln!("the codec_model bench needs the `cuda` feature");
}

#[cfg(feature = "cuda")]
fn main() {
    use std::time::Instant;

    use burn_swap_plan::cost::{every_other, CodecTimeModel};
    use cube_kernels::calibrate::{held_out_error, kernels_version, Calibration};
    use cube_kernels::tuner::device_key;
    use cube_kernels::Tuner;
    use cubecl::cuda::{CudaDevice, CudaRuntime};
    use cubecl::prelude::*;

    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    if let (true, Some(path)) = (
        args.iter().any(|a| a == "--link-only"),
        value_of("--cost-model"),
    ) {
        let costs = burn_swap_plan::cost::CostModel {
            link: link::measure(),
            codecs: None,
        };
        print_link(&costs.link);
        costs.save(&path).expect("write cost model");
        return;
    }
    if let Some(profile) = value_of("--decisions") {
        let costs = value_of("--costs").expect("--decisions needs --costs COST_MODEL.json");
        decisions::run(&profile, &costs, value_of("--json"));
        return;
    }
    let mut calibration = Calibration::default();
    if args.iter().any(|a| a == "--quick") {
        calibration.sizes.retain(|&s| s <= 512 << 20);
    }
    if args.iter().any(|a| a == "--untuned") {
        calibration.tuned = false;
    }
    if args.iter().any(|a| a == "--f32") {
        calibration.dtypes = vec![cube_kernels::DType::F32];
    }
    if args.iter().any(|a| a == "--short-timings") {
        calibration.round = cube_kernels::tuner::Round::Search;
    }
    let client = CudaRuntime::client(&CudaDevice::new(0));
    let device = device_key(&client);
    println!("device: {device}, kernels version {}", kernels_version());
    let mut tuner = Tuner::with_cache_file(
        std::env::var("TUNE_CACHE").unwrap_or_else(|_| "codecs-tune.json".into()),
    );
    let started = Instant::now();
    let samples = calibration
        .measure(&client, &mut tuner, |done, total| {
            if done % 20 == 0 || done == total {
                eprintln!(
                    "  {done}/{total} tensors timed ({:.0} s)",
                    started.elapsed().as_secs_f64()
                );
            }
        })
        .expect("calibration");
    let (model, errors) = held_out_error(&device, &samples).expect("fit");
    print_errors("held-out samples", &errors);
    // Below about 16 MB every kernel is launch-bound (tens of microseconds
    // whatever its size) and its timings scatter around a constant; the
    // decisions that matter are over larger tensors.
    let (_, held) = every_other(&samples);
    let large: Vec<_> = held
        .into_iter()
        .filter(|s| s.bytes >= LARGE_BYTES)
        .collect();
    let large_errors = model.error_on(&large);
    print_errors("held-out samples of 16 MiB and more", &large_errors);
    println!("measured in {:.0} s", started.elapsed().as_secs_f64());
    if let Some(path) = value_of("--json") {
        let json = serde_json::json!({
            "device": device,
            "kernels_version": kernels_version(),
            "seconds": started.elapsed().as_secs_f64(),
            "held_out_error": errors,
            "held_out_error_from_16mib": large_errors,
            "samples": samples,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).expect("write json");
    }
    if let Some(path) = value_of("--model") {
        CodecTimeModel::fit(&device, kernels_version(), &samples)
            .expect("fit")
            .save(&path)
            .expect("write model");
    }
    if let Some(path) = value_of("--cost-model") {
        let link = link::measure();
        print_link(&link);
        let costs = burn_swap_plan::cost::CostModel {
            link,
            codecs: Some(CodecTimeModel::fit(&device, kernels_version(), &samples).expect("fit")),
        };
        costs.save(&path).expect("write cost model");
    }
}

/// Held-out samples from this size on are launch-bound no more.
#[cfg(feature = "cuda")]
const LARGE_BYTES: u64 = 16 << 20;

/// The time model's relative errors per codec and element type, mean and
/// largest.
#[cfg(feature = "cuda")]
fn print_errors(title: &str, errors: &[burn_swap_plan::cost::ModelError]) {
    println!("{title}:");
    println!(
        "{:<6} {:<5} {:>5}  {:>15}  {:>15}  {:>15}",
        "codec", "dtype", "held", "compress mean/max", "decompress", "size"
    );
    for e in errors {
        println!(
            "{:<6} {:<5} {:>5}  {:>6.2}% {:>6.2}%  {:>6.2}% {:>6.2}%  {:>6.2}% {:>6.2}%",
            e.codec.name(),
            e.dtype,
            e.samples,
            e.compress_mean * 100.0,
            e.compress_max * 100.0,
            e.decompress_mean * 100.0,
            e.decompress_max * 100.0,
            e.size_mean * 100.0,
            e.size_max * 100.0
        );
    }
}

#[cfg(feature = "cuda")]
fn print_link(link: &burn_swap_plan::cost::LinkModel) {
    println!(
        "link: to host {:.1} GB/s, to device {:.1} GB/s; both at once {:.1} / {:.1} GB/s; latency {:.1} us",
        link.to_host_bytes_per_s / 1e9,
        link.to_device_bytes_per_s / 1e9,
        link.duplex_to_host_bytes_per_s / 1e9,
        link.duplex_to_device_bytes_per_s / 1e9,
        link.latency_ns / 1e3
    );
}

/// The time model's choices against the measured ones, on a profile's tensors.
#[cfg(feature = "cuda")]
mod decisions {
    use burn_swap_plan::cost::{decision_accuracy, CostModel};
    use burn_swap_plan::profile::Profile;
    use cube_kernels::calibrate::{dtype_named, Calibration};
    use cube_kernels::Tuner;
    use cubecl::cuda::{CudaDevice, CudaRuntime};
    use cubecl::prelude::*;

    /// The smallest size the time model is calibrated at: below it the model
    /// extrapolates, and the copies are too short to matter.
    const SMALLEST: u64 = 1 << 20;

    pub fn run(profile_path: &str, costs_path: &str, json_path: Option<String>) {
        let text = std::fs::read_to_string(profile_path).expect("read the profile");
        // A profile, or the example's file that holds one with its plan.
        let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let json = json.get("profile").cloned().unwrap_or(json);
        let profile: Profile = serde_json::from_value(json).expect("a profile");
        let costs = CostModel::load(costs_path).expect("read the cost model");
        let mut tensors = Vec::new();
        let mut uncounted = 0;
        for t in profile.saved_tensors().filter(|t| t.bytes >= SMALLEST) {
            let (Some(dtype), Some(zeros)) = (dtype_named(&t.dtype), t.zero_fraction) else {
                uncounted += 1;
                continue;
            };
            let zeros = (f64::from(zeros) * 100.0).round() / 100.0;
            let tensor = (dtype, t.bytes as usize, zeros);
            if !tensors.contains(&tensor) {
                tensors.push(tensor);
            }
        }
        println!(
            "{} distinct saved tensors of at least 1 MiB with counted zeros ({uncounted} without)",
            tensors.len()
        );
        let calibration = Calibration {
            tuned: false,
            ..Calibration::default()
        };
        let client = CudaRuntime::client(&CudaDevice::new(0));
        let mut tuner = Tuner::with_cache_file(
            std::env::var("TUNE_CACHE").unwrap_or_else(|_| "codecs-tune.json".into()),
        );
        let samples = calibration
            .measure_tensors(&client, &mut tuner, &tensors, |done, total| {
                if done % 20 == 0 || done == total {
                    eprintln!("  {done}/{total} timed");
                }
            })
            .expect("timing the codecs");
        let Some(accuracy) = decision_accuracy(&costs, &samples) else {
            println!("nothing to decide");
            return;
        };
        println!(
            "compress or not: {:.1}% agree; codec: {:.1}%; worst measured slowdown of a predicted choice: {:.3}x",
            accuracy.compress_or_not * 100.0,
            accuracy.codec * 100.0,
            accuracy.worst_regret
        );
        let name = |c: Option<burn_swap_plan::cost::Codec>| c.map_or("none", |c| c.name());
        for d in accuracy
            .decisions
            .iter()
            .filter(|d| d.measured != d.predicted)
        {
            println!(
                "  {} {:>8.1} MiB {:>4.0}% zeros: measured best {}, predicted {} ({:.3}x)",
                d.dtype,
                d.bytes as f64 / (1 << 20) as f64,
                d.zero_fraction * 100.0,
                name(d.measured),
                name(d.predicted),
                d.regret
            );
        }
        if let Some(path) = json_path {
            let json = serde_json::json!({ "accuracy": accuracy, "samples": samples });
            std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap())
                .expect("write json");
        }
    }
}

/// The host link, measured the way the CUDA swap engine uses it.
#[cfg(feature = "cuda")]
mod link {
    use std::time::Instant;

    use burn_swap_plan::cost::LinkModel;
    use cudarc::driver::CudaContext;

    const BYTES: usize = 256 << 20;
    const REPS: usize = 7;

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    /// Bandwidth each way alone and both at once (256 MiB copies between
    /// pinned host memory and the device, one stream per direction, the
    /// median of 7), and the time of a 4 KiB copy as the fixed cost.
    pub fn measure() -> LinkModel {
        let ctx = CudaContext::new(0).expect("a CUDA context");
        let down = ctx.new_stream().expect("a stream");
        let up = ctx.new_stream().expect("a stream");
        // Flags 0: cached pinned memory, as the swap engine's pool (write
        // combining would slow the device-to-host direction).
        let mut host_out = unsafe { ctx.alloc_pinned_with_flags::<u8>(BYTES, 0) }.expect("pinned");
        let host_in = unsafe { ctx.alloc_pinned_with_flags::<u8>(BYTES, 0) }.expect("pinned");
        let from = down.alloc_zeros::<u8>(BYTES).expect("device memory");
        let mut to = up.alloc_zeros::<u8>(BYTES).expect("device memory");
        let mut timed = |to_host: bool, to_device: bool| {
            let started = Instant::now();
            if to_host {
                down.memcpy_dtoh(&from, &mut host_out).expect("copy");
            }
            if to_device {
                up.memcpy_htod(&host_in, &mut to).expect("copy");
            }
            down.synchronize().expect("sync");
            up.synchronize().expect("sync");
            started.elapsed().as_secs_f64()
        };
        timed(true, true); // warm-up
        let rate = |secs: f64| BYTES as f64 / secs;
        let to_host = rate(median((0..REPS).map(|_| timed(true, false)).collect()));
        let to_device = rate(median((0..REPS).map(|_| timed(false, true)).collect()));
        let both = rate(median((0..REPS).map(|_| timed(true, true)).collect()));
        let small = down.alloc_zeros::<u8>(4096).expect("device memory");
        let mut small_host = vec![0u8; 4096];
        let latency = median(
            (0..REPS)
                .map(|_| {
                    let started = Instant::now();
                    down.memcpy_dtoh(&small, &mut small_host).expect("copy");
                    down.synchronize().expect("sync");
                    started.elapsed().as_secs_f64()
                })
                .collect(),
        );
        LinkModel {
            to_host_bytes_per_s: to_host,
            to_device_bytes_per_s: to_device,
            duplex_to_host_bytes_per_s: both,
            duplex_to_device_bytes_per_s: both,
            latency_ns: latency * 1e9,
        }
    }
}
