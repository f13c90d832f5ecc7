//! The CUDA transfer engine on the lent GPU, every figure against a
//! reference taken in the same run:
//! 1. offload (device to pinned host) and prefetch (back) throughput of
//!    burn-swap's engine, 1 MB to 2 GB, against raw pinned `cuMemcpyAsync`
//!    through cudarc on a stream of its own;
//! 2. overlap: a compute-bound matmul loop alone, then with swap traffic in
//!    both directions issued between its matmuls (compute slowdown);
//! 3. gradients under `SwapAll` bit-identical to plain autodiff, on `Cuda`
//!    (fusion) and on CubeCL's CUDA backend without fusion (`--grad-models
//!    small-cnn:8,plain20:32,...`);
//! 4. device and pinned memory over many `SwapAll` iterations (flat or not).
//!
//! `cargo bench --features cuda --bench transfer -- [--json PATH] [--quick] [--iters N]`

use std::time::Instant;

use burn::backend::{Autodiff, Cuda};
use burn::tensor::backend::Backend;
use burn::tensor::{Distribution, Tensor, TensorPrimitive};
use burn_swap::transfer::{device_usage, pinned_pool_stats, HostTensor};
use burn_swap::{SwapAll, SwapAutodiff, SwapConfig};
use burn_swap_models::bytes::gradients_per_iteration;
use burn_swap_models::{Batch, Model, ModelKind, ModelSpec};
use cudarc::driver::{result, sys};
use serde_json::{json, Value};

type B = Cuda;

const MB: usize = 1 << 20;

struct Args {
    json: Option<String>,
    quick: bool,
    iters: usize,
    /// Sections to run (all when empty): throughput, overlap, gradients, memory.
    only: Vec<String>,
    /// Models (and batch sizes) for the gradient checks: `name:batch,...`.
    grad_models: Vec<(ModelKind, usize)>,
}

impl Args {
    fn runs(&self, section: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|s| s == section)
    }
}

fn args() -> Args {
    let mut a = Args {
        json: None,
        quick: false,
        iters: 300,
        only: Vec::new(),
        grad_models: vec![
            (ModelKind::SmallCnn, 8),
            (ModelKind::Plain20, 32),
            (ModelKind::TransformerNet, 8),
        ],
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => a.json = it.next(),
            "--quick" => a.quick = true,
            "--only" => {
                a.only = it
                    .next()
                    .map(|v| v.split(',').map(str::to_string).collect())
                    .unwrap_or_default()
            }
            "--grad-models" => {
                a.grad_models = it
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|m| {
                        let (name, batch) = m.split_once(':').unwrap_or((m, "8"));
                        (
                            name.parse().expect("a model name"),
                            batch.parse().expect("a batch size"),
                        )
                    })
                    .collect()
            }
            "--iters" => a.iters = it.next().and_then(|v| v.parse().ok()).unwrap_or(a.iters),
            _ => {} // cargo bench passes `--bench`
        }
    }
    a
}

fn device_name() -> String {
    let smi = std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=name", "--format=csv,noheader"])
        .output();
    if let Ok(out) = smi {
        let name = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !name.is_empty() {
            return name;
        }
    }
    result::init().ok();
    result::device::get(0)
        .ok()
        .and_then(|d| result::device::get_name(d).ok())
        .unwrap_or_else(|| "unknown".into())
}

/// The middle value; of an even count, the higher of the two middle ones.
fn upper_median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn sync<E: Backend>(device: &E::Device) {
    E::sync(device).expect("device sync");
}

fn primitive<E: Backend>(t: Tensor<E, 1>) -> E::FloatTensorPrimitive {
    match t.into_primitive() {
        TensorPrimitive::Float(p) => p,
        TensorPrimitive::QFloat(_) => unreachable!("float tensors only"),
    }
}

/// Raw pinned copies of `count` x `bytes` each way on one stream: (d2h s, h2d s).
fn raw_copies(bytes: usize, count: usize, reps: usize) -> (f64, f64) {
    result::init().unwrap();
    let dev = result::device::get(0).unwrap();
    unsafe {
        let ctx = result::primary_ctx::retain(dev).unwrap();
        result::ctx::set_current(ctx).unwrap();
    }
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking).unwrap();
    let event = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).unwrap();
    let host = unsafe { result::malloc_host(bytes * count, sys::CU_MEMHOSTALLOC_PORTABLE).unwrap() }
        as *mut u8;
    let dptr = unsafe { result::malloc_sync(bytes * count).unwrap() };
    let run = |d2h: bool| -> f64 {
        let start = Instant::now();
        for i in 0..count {
            unsafe {
                let h = host.add(i * bytes);
                let d = dptr + (i * bytes) as u64;
                if d2h {
                    sys::cuMemcpyDtoHAsync_v2(h as *mut _, d, bytes, stream)
                        .result()
                        .unwrap();
                } else {
                    sys::cuMemcpyHtoDAsync_v2(d, h as *const _, bytes, stream)
                        .result()
                        .unwrap();
                }
            }
        }
        unsafe {
            result::event::record(event, stream).unwrap();
            result::event::synchronize(event).unwrap();
        }
        start.elapsed().as_secs_f64()
    };
    run(true);
    run(false);
    let d2h = upper_median((0..reps).map(|_| run(true)).collect());
    let h2d = upper_median((0..reps).map(|_| run(false)).collect());
    unsafe {
        result::free_sync(dptr).unwrap();
        result::free_host(host as *mut _).unwrap();
        result::event::destroy(event).unwrap();
        result::stream::destroy(stream).unwrap();
    }
    (d2h, h2d)
}

/// burn-swap's engine on `count` tensors of `bytes`: (offload s, prefetch s, bit-exact).
fn engine_copies<E: Backend>(bytes: usize, count: usize, reps: usize) -> (f64, f64, bool) {
    let device = Default::default();
    let n = bytes / 4;
    let mut tensors: Vec<E::FloatTensorPrimitive> = (0..count)
        .map(|_| primitive(Tensor::<E, 1>::random([n], Distribution::Default, &device)))
        .collect();
    sync::<E>(&device);
    let expected: Vec<u8> =
        Tensor::<E, 1>::from_primitive(TensorPrimitive::Float(tensors[0].clone()))
            .into_data()
            .as_bytes()
            .to_vec();
    let mut offload_s = Vec::new();
    let mut prefetch_s = Vec::new();
    let config = burn_swap::config();
    for rep in 0..=reps {
        sync::<E>(&device);
        let start = Instant::now();
        let hosts: Vec<HostTensor<E>> = tensors
            .drain(..)
            .map(|t| {
                HostTensor::<E>::offload(t, &config)
                    .unwrap_or_else(|(err, _)| panic!("offload refused: {err}"))
            })
            .collect();
        for h in &hosts {
            h.wait_offloaded();
        }
        let off = start.elapsed().as_secs_f64();
        sync::<E>(&device);
        let start = Instant::now();
        let mut hosts = hosts;
        for h in hosts.iter_mut() {
            h.prefetch();
        }
        tensors = hosts.into_iter().map(|h| h.load()).collect();
        // The copies are done when collected; the sync keeps the figure
        // honest should collecting ever only order compute after them.
        sync::<E>(&device);
        let pre = start.elapsed().as_secs_f64();
        if rep > 0 {
            offload_s.push(off);
            prefetch_s.push(pre);
        }
    }
    let back =
        Tensor::<E, 1>::from_primitive(TensorPrimitive::Float(tensors[0].clone())).into_data();
    let exact = back.as_bytes() == expected.as_slice();
    (upper_median(offload_s), upper_median(prefetch_s), exact)
}

fn throughput<E: Backend>(quick: bool) -> Vec<Value> {
    let sizes: &[usize] = if quick {
        &[MB, 4 * MB, 64 * MB, 256 * MB]
    } else {
        &[MB, 4 * MB, 16 * MB, 64 * MB, 256 * MB, 1024 * MB, 2048 * MB]
    };
    println!(
        "\n{:>9} {:>5} | {:>9} {:>9} {:>6} | {:>9} {:>9} {:>6} | exact",
        "size", "count", "offload", "raw d2h", "ratio", "prefetch", "raw h2d", "ratio"
    );
    let mut rows = Vec::new();
    for &size in sizes {
        let count = (256 * MB / size).clamp(1, 32);
        let reps = if size >= 1024 * MB { 2 } else { 4 };
        let total = (size * count) as f64;
        let (raw_d2h, raw_h2d) = raw_copies(size, count, reps);
        let (off, pre, exact) = engine_copies::<E>(size, count, reps);
        let gbs = |s: f64| total / s / 1e9;
        println!(
            "{:>7}MB {:>5} | {:>7.1}GB/s {:>7.1}GB/s {:>5.0}% | {:>7.1}GB/s {:>7.1}GB/s {:>5.0}% | {}",
            size / MB, count, gbs(off), gbs(raw_d2h), 100.0 * raw_d2h / off, gbs(pre), gbs(raw_h2d), 100.0 * raw_h2d / pre, exact
        );
        rows.push(json!({
            "bytes": size, "count": count,
            "offload_gbs": gbs(off), "raw_d2h_gbs": gbs(raw_d2h), "offload_ratio": raw_d2h / off,
            "prefetch_gbs": gbs(pre), "raw_h2d_gbs": gbs(raw_h2d), "prefetch_ratio": raw_h2d / pre,
            "bit_exact": exact,
        }));
    }
    rows
}

/// Matmul loop alone and with concurrent swap traffic, issued as a plan
/// issues it: each step offloads a fresh tensor, starts bringing back the
/// one offloaded two steps before, and collects the one whose copy was
/// started two steps before (so the compute thread does not wait on a copy
/// it started a moment ago).
fn overlap<E: Backend>(quick: bool) -> Value {
    let device = Default::default();
    let dim = 4096;
    let a = Tensor::<E, 2>::random([dim, dim], Distribution::Default, &device);
    let b = Tensor::<E, 2>::random([dim, dim], Distribution::Default, &device);
    let steps = if quick { 30 } else { 100 };
    let swap_bytes = 64 * MB;
    let parts: Vec<E::FloatTensorPrimitive> = (0..steps)
        .map(|_| {
            primitive(Tensor::<E, 1>::random(
                [swap_bytes / 4],
                Distribution::Default,
                &device,
            ))
        })
        .collect();
    let config = burn_swap::config();
    let run = |traffic: bool| -> (f64, u64) {
        let mut moved = 0u64;
        let mut parked: std::collections::VecDeque<HostTensor<E>> = Default::default();
        let mut coming: std::collections::VecDeque<HostTensor<E>> = Default::default();
        let mut back: Vec<E::FloatTensorPrimitive> = Vec::new();
        let mut acc = a.clone();
        sync::<E>(&device);
        let start = Instant::now();
        for (i, part) in parts.iter().enumerate() {
            acc = acc.matmul(b.clone()).mul_scalar(1e-3);
            if traffic {
                if let Ok(h) = HostTensor::<E>::offload(part.clone(), &config) {
                    parked.push_back(h);
                    moved += swap_bytes as u64;
                }
                if parked.len() > 2 {
                    let mut h = parked.pop_front().expect("parked");
                    h.prefetch();
                    coming.push_back(h);
                    moved += swap_bytes as u64;
                }
                if coming.len() > 2 || i + 1 == steps {
                    back.extend(coming.pop_front().map(HostTensor::load));
                }
                if back.len() > 2 {
                    back.remove(0);
                }
            }
        }
        back.extend(coming.into_iter().map(HostTensor::load));
        sync::<E>(&device);
        let s = start.elapsed().as_secs_f64();
        drop(parked);
        (s, moved)
    };
    run(false);
    run(true);
    let alone = upper_median((0..3).map(|_| run(false).0).collect());
    let mut with = Vec::new();
    let mut moved = 0;
    for _ in 0..3 {
        let (s, m) = run(true);
        with.push(s);
        moved = m;
    }
    let with = upper_median(with);
    let flops = 2.0 * (dim as f64).powi(3) * steps as f64;
    println!(
        "\noverlap: {steps} matmuls {dim}^3: alone {:.1} ms ({:.1} TFLOP/s), with swap traffic {:.1} ms ({:.1} GB/s moved): compute kept {:.1}%",
        alone * 1e3, flops / alone / 1e12, with * 1e3, moved as f64 / with / 1e9, 100.0 * alone / with
    );
    json!({"matmul_dim": dim, "steps": steps, "alone_ms": alone * 1e3, "with_traffic_ms": with * 1e3,
           "traffic_gbs": moved as f64 / with / 1e9, "compute_kept": alone / with})
}

/// Where two gradient runs first differ: (iteration, tensor index, differing
/// f32 words, largest difference in units in the last place).
fn first_difference(a: &[Vec<Vec<u8>>], b: &[Vec<Vec<u8>>]) -> Option<(usize, usize, usize, u32)> {
    for (it, (ia, ib)) in a.iter().zip(b).enumerate() {
        for (t, (ta, tb)) in ia.iter().zip(ib).enumerate() {
            if ta != tb {
                let words = |v: &[u8]| {
                    v.chunks_exact(4)
                        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect::<Vec<_>>()
                };
                let (wa, wb) = (words(ta), words(tb));
                let diffs = wa.iter().zip(&wb).filter(|(x, y)| x != y).count();
                let ulps = wa
                    .iter()
                    .zip(&wb)
                    .map(|(x, y)| x.abs_diff(*y))
                    .max()
                    .unwrap_or(0);
                return Some((it, t, diffs, ulps));
            }
        }
    }
    None
}

fn swap_all() -> SwapConfig {
    SwapConfig::builder()
        .policy(SwapAll)
        .min_swap_bytes(0)
        .pinned_pool_bytes(6 << 30)
        .build()
}

/// CubeCL's CUDA backend without fusion: the engine copies its tensors too,
/// and with no fusion stream the op sequence cannot change around a swap.
type Unfused = burn_cubecl::CubeBackend<cubecl::cuda::CudaRuntime, f32, i32, u8>;

/// Plain autodiff twice (is the reference repeatable?), then SwapAll with
/// every saved tensor swapped, all in this process (autotune's choices are
/// shared), on one inner backend.
fn gradient_check<I: Backend>(
    backend: &str,
    kind: ModelKind,
    batch: usize,
    iterations: usize,
) -> Value {
    let start = Instant::now();
    let plain = gradients_per_iteration::<Autodiff<I>>(kind, batch, iterations, 7);
    let plain_again = gradients_per_iteration::<Autodiff<I>>(kind, batch, iterations, 7);
    burn_swap::configure(swap_all());
    let swapped = gradients_per_iteration::<SwapAutodiff<I>>(kind, batch, iterations, 7);
    let swapped_bytes = burn_swap::last_profile()
        .map(|p| p.swapped_out_bytes)
        .unwrap_or(0);
    let repeatable = first_difference(&plain, &plain_again);
    let difference = first_difference(&plain, &swapped);
    let describe = |d: Option<(usize, usize, usize, u32)>| match d {
        None => "identical".to_string(),
        Some((it, t, n, ulps)) => format!(
            "differ from iteration {it}, tensor {t} (0 = loss): {n} words, up to {ulps} ulp"
        ),
    };
    println!(
        "gradients {kind} b{batch} on {backend}: SwapAll vs plain: {}; plain vs plain: {}; swapped {} MB per iteration; {:.1} s",
        describe(difference),
        describe(repeatable),
        swapped_bytes / MB as u64,
        start.elapsed().as_secs_f64()
    );
    json!({"model": kind.to_string(), "batch": batch, "backend": backend, "iterations": iterations,
           "bit_identical": difference.is_none(), "plain_repeatable": repeatable.is_none(),
           "first_difference": difference.map(|(it, t, n, u)| json!({"iteration": it, "tensor": t, "words": n, "max_ulp": u})),
           "swapped_out_bytes_last_iteration": swapped_bytes, "seconds": start.elapsed().as_secs_f64()})
}

fn gradient_checks(models: &[(ModelKind, usize)]) -> Vec<Value> {
    let mut rows = Vec::new();
    for &(kind, batch) in models {
        rows.push(gradient_check::<Unfused>(
            "cube (no fusion)",
            kind,
            batch,
            4,
        ));
        rows.push(gradient_check::<B>("cuda (fusion)", kind, batch, 4));
    }
    rows
}

fn memory_flat(iters: usize) -> Value {
    burn_swap::configure(swap_all());
    let device = Default::default();
    type AB = SwapAutodiff<B>;
    AB::seed(&device, 3);
    let spec = ModelSpec::new(ModelKind::SmallCnn);
    let model: Model<AB> = spec.init(&device);
    let batch: Batch<AB> = spec.synthetic_batch(16, 3, &device);
    let mut samples = Vec::new();
    let every = (iters / 10).max(1);
    let start = Instant::now();
    for i in 0..iters {
        let loss = model.loss(&batch);
        let _grads = loss.backward();
        if i % every == 0 || i + 1 == iters {
            sync::<B>(&device);
            let usage = device_usage::<B>(&device).unwrap_or_default();
            let pinned = pinned_pool_stats(&device).unwrap_or_default();
            let peak = burn_swap::last_profile()
                .and_then(|p| p.device.clone())
                .map(|d| d.peak_in_use)
                .unwrap_or(0);
            samples.push(json!({"iteration": i, "device_in_use": usage.in_use, "device_reserved": usage.reserved,
                                "driver_used": usage.driver_used, "iteration_peak_in_use": peak,
                                "pinned_reserved": pinned.reserved, "pinned_in_use": pinned.in_use}));
        }
    }
    let elapsed = start.elapsed();
    let first = &samples[1.min(samples.len() - 1)];
    let last = samples.last().unwrap();
    let flat =
        |k: &str| last[k].as_u64() <= first[k].as_u64().map(|v| v + v / 20 + (16 * MB) as u64);
    let flat_all = flat("device_in_use") && flat("device_reserved") && flat("pinned_reserved");
    println!(
        "memory over {iters} SwapAll iterations ({:.1} s): device in use {} -> {} MB, reserved {} -> {} MB, pinned reserved {} -> {} MB: flat {}",
        elapsed.as_secs_f64(),
        first["device_in_use"].as_u64().unwrap_or(0) / MB as u64, last["device_in_use"].as_u64().unwrap_or(0) / MB as u64,
        first["device_reserved"].as_u64().unwrap_or(0) / MB as u64, last["device_reserved"].as_u64().unwrap_or(0) / MB as u64,
        first["pinned_reserved"].as_u64().unwrap_or(0) / MB as u64, last["pinned_reserved"].as_u64().unwrap_or(0) / MB as u64,
        flat_all
    );
    json!({"iterations": iters, "flat": flat_all, "samples": samples})
}

fn main() {
    let args = args();
    let name = device_name();
    println!("burn-swap transfer bench on {name}");
    // Room for the 2 GB case (count 1) plus the smaller ones.
    burn_swap::configure(
        SwapConfig::builder()
            .policy(burn_swap::KeepAll)
            .pinned_pool_bytes(6 << 30)
            .build(),
    );
    let t0 = Instant::now();
    // The engine on CubeCL's CUDA backend. Under fusion it copies the same
    // buffers, once fusion has run the ops that read them (only inside
    // training, see the gradient checks).
    let throughput = args.runs("throughput").then(|| {
        println!("\nCubeCL CUDA:");
        json!({"unfused": throughput::<Unfused>(args.quick)})
    });
    let overlap = args.runs("overlap").then(|| {
        print!("\nCubeCL CUDA:");
        json!({"unfused": overlap::<Unfused>(args.quick)})
    });
    let gradients = args
        .runs("gradients")
        .then(|| gradient_checks(&args.grad_models));
    let memory = args.runs("memory").then(|| {
        memory_flat(if args.quick {
            args.iters.min(100)
        } else {
            args.iters
        })
    });
    let pinned = pinned_pool_stats(&Default::default()).unwrap_or_default();
    println!(
        "pinned pool: reserved {} MB, peak in use {} MB, refusals {}",
        pinned.reserved / MB as u64,
        pinned.peak_in_use / MB as u64,
        pinned.refusals
    );
    println!("total {:.1} s", t0.elapsed().as_secs_f64());
    let out = json!({
        "device": name,
        "throughput": throughput,
        "overlap": overlap,
        "gradients": gradients,
        "memory": memory,
        "pinned_pool": {"reserved": pinned.reserved, "peak_in_use": pinned.peak_in_use, "refusals": pinned.refusals, "limit": pinned.limit},
        "elapsed_s": t0.elapsed().as_secs_f64(),
    });
    if let Some(path) = args.json {
        std::fs::write(&path, serde_json::to_string_pretty(&out).unwrap())
            .expect("writing the JSON");
        println!("wrote {path}");
    }
}
