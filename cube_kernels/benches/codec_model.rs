//! The codecs' time model on the GPU (CUDA): every codec and element type
//! timed on synthetic tensors made on the device (1 MB to 2 GB, 0-95%
//! zeros; see `calibrate::Calibration`), a model fitted on every other
//! sample, and its relative absolute error on the samples it did not see,
//! per codec and element type: compression time, decompression time and
//! compressed size, mean and largest.
//!
//! `cargo build --release --features cuda --bench codec_model`, then on the
//! GPU: `codec_model [--quick] [--json PATH] [--model PATH]`. `--quick`
//! measures 1 MB to 512 MB only. `--model` also writes the model fitted on
//! all samples (the file the executor would keep next to the tuner's
//! cache). The tuner's cache is `TUNE_CACHE` (default `codecs-tune.json`):
//! carry it between runs, the first calibration tunes every size bucket.

#[cfg(not(feature = "cuda"))]
fn main() {
    eprintln!("the codec_model bench needs the `cuda` feature");
}

#[cfg(feature = "cuda")]
fn main() {
    use std::time::Instant;

    use burn_swap_plan::cost::CodecTimeModel;
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
    let mut calibration = Calibration::default();
    if args.iter().any(|a| a == "--quick") {
        calibration.sizes.retain(|&s| s <= 512 << 20);
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
    let (_, errors) = held_out_error(&device, &samples).expect("fit");
    println!(
        "{:<6} {:<5} {:>5}  {:>15}  {:>15}  {:>15}",
        "codec", "dtype", "held", "compress mean/max", "decompress", "size"
    );
    for e in &errors {
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
    println!("measured in {:.0} s", started.elapsed().as_secs_f64());
    if let Some(path) = value_of("--json") {
        let json = serde_json::json!({
            "device": device,
            "kernels_version": kernels_version(),
            "seconds": started.elapsed().as_secs_f64(),
            "held_out_error": errors,
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
}
