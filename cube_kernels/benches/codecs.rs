//! Codec throughput on the GPU (CUDA): compress and decompress throughput in
//! uncompressed bytes per second per codec, sparsity and size, the ratio,
//! the driver's device-to-device copy measured in the same run as the
//! reference, and the tuner (Bayesian search) against an exhaustive search.
//!
//! Timing: every kernel and both copies are timed the same way: calls issued
//! back to back in batches of K (K from a calibration batch so that a batch
//! takes about 20 ms, at least 5), one sync per batch, the batch time over
//! K; the median of `--reps` batches. Reference: `cuMemcpyDtoDAsync` on a
//! stream (cudarc, on the primary context cubecl-cuda uses, buffers
//! allocated with cudarc), read plus write bytes counted; the ratio columns
//! (`c/d2d`, `d/d2d`) divide the codec's uncompressed bytes/s by it. A
//! CubeCL u32 copy kernel is reported as a second reference.
//!
//! `cargo build --release --features cuda --bench codecs`, then on the GPU:
//! `codecs [options] [--json PATH]`. With no options: every codec at 1 MB,
//! 64 MB and 1 GB (f32; f16 and bf16 ZVC at 64 MB), the single- against
//! three-pass comparison, and the tuner against exhaustive search for ZVC and
//! CSR at 64 MB (more than 10 minutes on an H100). Options:
//!
//! - `--sizes 1MB,64MB,1GB` sizes of the table rows (KB, MB, GB)
//! - `--codecs zvc,rle,csr,lz4,bitmap` codecs of the table rows and pass
//!   comparison (Bitmap's inputs are zeros and 1.0, the tensors it is for)
//! - `--dtypes f32,f16,bf16` every listed dtype at every size (default: f32,
//!   plus f16 and bf16 ZVC at 64 MB)
//! - `--sparsities 0.2,0.5,0.8,0.95`, `--reps N` (timed batches per
//!   measurement, default 5)
//! - `--tuner-sizes 64MB`, `--tuner-codecs zvc,csr` and `--tuner-dtypes
//!   f32` (tuner against exhaustive search; `--tuner-sizes none` skips it)
//! - `--tuner-sparsity 0.5` (share of zeros in its input) and
//!   `--tuner-directions compress,decompress`
//! - `--no-passes` skips the single- against three-pass comparison
//! - `--quick`: `--sizes 1MB,64MB,1GB --codecs zvc --dtypes f32,f16,bf16
//!   --tuner-sizes 64MB --tuner-codecs zvc` (meant to fit in 4 minutes; the
//!   1 MB rows check the GPU bytes against the CPU reference)
//!
//! The JSON is written after every section, so a run cut short keeps what
//! it measured.

#[cfg(not(feature = "cuda"))]
fn main() {
    eprintln!("the codecs bench needs the `cuda` feature");
}

#[cfg(feature = "cuda")]
fn main() {
    bench::main();
}

#[cfg(feature = "cuda")]
mod bench {
    use std::sync::Arc;
    use std::time::Instant;

    use cube_kernels::format::{self, CodecKind, DType};
    use cube_kernels::tuner::{self, bayes_opt, Direction, Round, SearchBudget};
    use cube_kernels::{compress, cpu, decompress, LaunchConfig, Tuner};
    use cubecl::cuda::{CudaDevice, CudaRuntime};
    use cubecl::prelude::*;
    use cubecl::server::Handle;
    use cudarc::driver::{result, CudaContext, CudaStream, DevicePtr, DevicePtrMut};
    use serde_json::{json, Value};

    type Client = ComputeClient<CudaRuntime>;

    #[cube(launch)]
    fn copy_words(src: &Array<u32>, dst: &mut Array<u32>, n: u32) {
        let stride = CUBE_COUNT as u32 * CUBE_DIM;
        let mut i = CUBE_POS as u32 * CUBE_DIM + UNIT_POS;
        while i < n {
            dst[i as usize] = src[i as usize];
            i += stride;
        }
    }

    /// One unit writes one word: the GPU cost of each small helper launch a
    /// compress adds (the single pass zeroes its state before and copies the
    /// checksum into the header after).
    #[cube(launch)]
    fn one_word(dst: &mut Array<u32>) {
        if UNIT_POS == 0 {
            dst[0] = 1u32;
        }
    }

    /// Scattered zeros with probability `sp_per_10k / 10000`, non-zero
    /// values in [1, 2) (16-bit: two halves per word), or all 1.0 with
    /// `ones` (Bitmap's tensors: dropout masks).
    #[cube(launch)]
    fn gen_data(
        out: &mut Array<u32>,
        n: u32,
        seed: u32,
        sp_per_10k: u32,
        #[comptime] half: bool,
        #[comptime] ones: bool,
    ) {
        let stride = CUBE_COUNT as u32 * CUBE_DIM;
        let mut i = CUBE_POS as u32 * CUBE_DIM + UNIT_POS;
        while i < n {
            let mut h = (i ^ seed) * 0x9E37_79B1u32;
            h ^= h >> 15;
            h *= 0x85EB_CA77u32;
            h ^= h >> 13;
            h *= 0xC2B2_AE3Du32;
            h ^= h >> 16;
            let mut g = (h ^ 0x2545_F491u32) * 0x9E37_79B1u32;
            g ^= g >> 16;
            if half {
                let mut lo = 0x3C00u32 | (h & 0x3FFu32);
                let mut hi = 0x3C00u32 | ((h >> 10) & 0x3FFu32);
                if ones {
                    lo = 0x3C00u32;
                    hi = 0x3C00u32;
                }
                // scaled, not `% 10000`: 2^16 is no multiple of 10000, so a
                // remainder would draw zeros too often (0.534 for sp 0.5)
                if ((g & 0xFFFFu32) * 10000u32) >> 16 < sp_per_10k {
                    lo = 0u32;
                }
                if ((g >> 16) * 10000u32) >> 16 < sp_per_10k {
                    hi = 0u32;
                }
                out[i as usize] = lo | (hi << 16);
            } else {
                let mut v = 0x3F80_0000u32 | (h & 0x007F_FFFFu32);
                if ones {
                    v = 0x3F80_0000u32;
                }
                if g % 10000u32 < sp_per_10k {
                    v = 0u32;
                }
                out[i as usize] = v;
            }
            i += stride;
        }
    }

    #[cube(launch)]
    fn count_diff(a: &Array<u32>, b: &Array<u32>, diff: &mut Array<Atomic<u32>>, n: u32) {
        let stride = CUBE_COUNT as u32 * CUBE_DIM;
        let mut i = CUBE_POS as u32 * CUBE_DIM + UNIT_POS;
        let mut local = 0u32;
        while i < n {
            if a[i as usize] != b[i as usize] {
                local += 1;
            }
            i += stride;
        }
        if local > 0 {
            diff[0].fetch_add(local);
        }
    }

    fn arr(h: &Handle, n: usize) -> ArrayArg<CudaRuntime> {
        unsafe { ArrayArg::from_raw_parts(h.clone(), n.max(1)) }
    }

    fn sync(c: &Client) {
        cubecl::future::block_on(c.sync()).expect("sync");
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    /// Target wall time of one timed batch.
    const BATCH_SECONDS: f64 = 0.020;

    /// Seconds per call of `f` (see the file's documentation): a warm-up
    /// call, calibration batches (5 calls, then 4 times more until a batch
    /// takes 5 ms, so the sync's latency hardly counts) that set K (a batch
    /// of about [`BATCH_SECONDS`], at least 5 calls), then `batches` batches
    /// of K calls back to back with one `sync` each; the median batch time
    /// over K. Returns (seconds per call, K).
    fn batch_time(sync: &dyn Fn(), f: &mut dyn FnMut(), batches: usize) -> (f64, usize) {
        f();
        sync();
        let mut n = 5usize;
        let per = loop {
            let s = Instant::now();
            for _ in 0..n {
                f();
            }
            sync();
            let e = s.elapsed().as_secs_f64();
            if e >= 0.005 || n >= 5000 {
                break e / n as f64;
            }
            n *= 4;
        };
        let k = ((BATCH_SECONDS / per).ceil() as usize).clamp(5, 20_000);
        let mut t = Vec::with_capacity(batches);
        for _ in 0..batches.max(1) {
            let s = Instant::now();
            for _ in 0..k {
                f();
            }
            sync();
            t.push(s.elapsed().as_secs_f64() / k as f64);
        }
        (median(t), k)
    }

    /// [`batch_time`] of CubeCL launches, synced with `client.sync()`.
    fn time(c: &Client, batches: usize, mut f: impl FnMut()) -> (f64, usize) {
        batch_time(&|| sync(c), &mut f, batches)
    }

    /// The driver's device-to-device copy of `bytes` (`cuMemcpyDtoDAsync` on
    /// a stream of the primary context), timed as every kernel is.
    fn driver_copy_time(ctx: &Arc<CudaContext>, bytes: usize, batches: usize) -> (f64, usize) {
        let stream: Arc<CudaStream> = ctx.new_stream().expect("stream");
        let src = stream.alloc_zeros::<u8>(bytes).expect("alloc");
        let mut dst = stream.alloc_zeros::<u8>(bytes).expect("alloc");
        stream.synchronize().expect("sync");
        let r = {
            let (sp, _src_guard) = src.device_ptr(&stream);
            let (dp, _dst_guard) = dst.device_ptr_mut(&stream);
            let cu = stream.cu_stream();
            batch_time(
                &|| stream.synchronize().expect("sync"),
                &mut || unsafe { result::memcpy_dtod_async(dp, sp, bytes, cu) }.expect("copy"),
                batches,
            )
        };
        stream.synchronize().expect("sync");
        r
    }

    fn grid(c: &Client) -> u32 {
        c.properties()
            .hardware
            .num_streaming_multiprocessors
            .unwrap_or(132)
            * 16
    }

    fn copy_time(
        c: &Client,
        src: &Handle,
        dst: &Handle,
        words: usize,
        batches: usize,
    ) -> (f64, usize) {
        time(c, batches, || {
            copy_words::launch(
                c,
                CubeCount::Static(grid(c), 1, 1),
                CubeDim::new_1d(256),
                arr(src, words),
                arr(dst, words),
                words as u32,
            );
        })
    }

    fn gen(c: &Client, words: usize, sp: f64, seed: u32, half: bool) -> Handle {
        gen_values(c, words, sp, seed, half, false)
    }

    /// The input a codec is timed on: [`gen`]'s, or zeros and 1.0 for Bitmap.
    fn gen_for(
        c: &Client,
        codec: CodecKind,
        words: usize,
        sp: f64,
        seed: u32,
        half: bool,
    ) -> Handle {
        gen_values(c, words, sp, seed, half, codec == CodecKind::Bitmap)
    }

    fn gen_values(c: &Client, words: usize, sp: f64, seed: u32, half: bool, ones: bool) -> Handle {
        let h = c.empty(words * 4);
        gen_data::launch(
            c,
            CubeCount::Static(grid(c), 1, 1),
            CubeDim::new_1d(256),
            arr(&h, words),
            words as u32,
            seed,
            (sp * 10000.0).round() as u32,
            half,
            ones,
        );
        h
    }

    fn diff(c: &Client, a: &Handle, b: &Handle, words: usize) -> u32 {
        let d = c.create_from_slice(&[0u8; 4]);
        count_diff::launch(
            c,
            CubeCount::Static(grid(c), 1, 1),
            CubeDim::new_1d(256),
            arr(a, words),
            arr(b, words),
            arr(&d, 1),
            words as u32,
        );
        let b = c.read_one(d).unwrap();
        u32::from_le_bytes(b[..4].try_into().unwrap())
    }

    fn device_name() -> String {
        std::process::Command::new("nvidia-smi")
            .args(["--query-gpu=name", "--format=csv,noheader"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.lines().next().unwrap_or("").trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown".into())
    }

    /// Command-line options (see the file's documentation).
    struct Opts {
        sizes: Vec<usize>,
        codecs: Vec<CodecKind>,
        dtypes: Option<Vec<DType>>,
        sparsities: Vec<f64>,
        reps: Option<usize>,
        tuner_sizes: Vec<usize>,
        tuner_codecs: Vec<CodecKind>,
        tuner_dtypes: Vec<DType>,
        tuner_sparsity: f64,
        tuner_directions: Vec<Direction>,
        passes: bool,
        json: Option<String>,
    }

    fn parse_size(s: &str) -> usize {
        let t = s.trim().to_ascii_uppercase();
        let (num, mul) = if let Some(n) = t.strip_suffix("GB") {
            (n, 1usize << 30)
        } else if let Some(n) = t.strip_suffix("MB") {
            (n, 1 << 20)
        } else if let Some(n) = t.strip_suffix("KB") {
            (n, 1 << 10)
        } else {
            (t.as_str(), 1)
        };
        num.trim()
            .parse::<usize>()
            .unwrap_or_else(|_| panic!("bad size {s:?} (e.g. 64MB)"))
            * mul
    }

    fn parse_codec(s: &str) -> CodecKind {
        *CodecKind::ALL
            .iter()
            .find(|c| c.name() == s.trim().to_ascii_lowercase())
            .unwrap_or_else(|| panic!("unknown codec {s:?}"))
    }

    fn parse_dtype(s: &str) -> DType {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" => DType::F32,
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            _ => panic!("unknown dtype {s:?}"),
        }
    }

    fn list<T>(v: &str, f: impl Fn(&str) -> T) -> Vec<T> {
        if v.trim().eq_ignore_ascii_case("none") {
            return Vec::new();
        }
        v.split(',')
            .filter(|x| !x.trim().is_empty())
            .map(f)
            .collect()
    }

    impl Opts {
        fn parse() -> Self {
            let args: Vec<String> = std::env::args().skip(1).collect();
            let mut o = Opts {
                sizes: vec![1 << 20, 64 << 20, 1 << 30],
                codecs: CodecKind::ALL.to_vec(),
                dtypes: None,
                sparsities: vec![0.2, 0.5, 0.8, 0.95],
                reps: None,
                tuner_sizes: vec![64 << 20],
                tuner_codecs: vec![CodecKind::Zvc, CodecKind::Csr],
                tuner_dtypes: vec![DType::F32],
                tuner_sparsity: 0.5,
                tuner_directions: vec![Direction::Compress, Direction::Decompress],
                passes: true,
                json: None,
            };
            let mut i = 0;
            while i < args.len() {
                let a = args[i].as_str();
                let mut val = || {
                    i += 1;
                    args.get(i)
                        .cloned()
                        .unwrap_or_else(|| panic!("{a} needs a value"))
                };
                match a {
                    "--quick" => {
                        o.sizes = vec![1 << 20, 64 << 20, 1 << 30];
                        o.codecs = vec![CodecKind::Zvc];
                        o.dtypes = Some(DType::ALL.to_vec());
                        o.tuner_sizes = vec![64 << 20];
                        o.tuner_codecs = vec![CodecKind::Zvc];
                    }
                    "--sizes" => o.sizes = list(&val(), parse_size),
                    "--codecs" => o.codecs = list(&val(), parse_codec),
                    "--dtypes" => o.dtypes = Some(list(&val(), parse_dtype)),
                    "--sparsities" => {
                        o.sparsities =
                            list(&val(), |x| x.trim().parse::<f64>().expect("bad sparsity"))
                    }
                    "--reps" => o.reps = Some(val().parse().expect("bad --reps")),
                    "--tuner-sizes" => o.tuner_sizes = list(&val(), parse_size),
                    "--tuner-codecs" => o.tuner_codecs = list(&val(), parse_codec),
                    "--tuner-dtypes" => o.tuner_dtypes = list(&val(), parse_dtype),
                    "--tuner-sparsity" => {
                        o.tuner_sparsity = val().trim().parse().expect("bad --tuner-sparsity")
                    }
                    "--tuner-directions" => {
                        o.tuner_directions = list(&val(), |d| match d.trim() {
                            "compress" => Direction::Compress,
                            "decompress" => Direction::Decompress,
                            _ => panic!("bad direction {d:?}"),
                        })
                    }
                    "--no-passes" => o.passes = false,
                    "--json" => o.json = Some(val()),
                    "--bench" => {} // passed by `cargo bench`
                    _ => panic!("unknown option {a:?} (see the top of benches/codecs.rs)"),
                }
                i += 1;
            }
            o
        }
        /// Dtypes of the table rows at `bytes`.
        fn dtypes_at(&self, bytes: usize) -> Vec<DType> {
            match &self.dtypes {
                Some(d) => d.clone(),
                None if bytes == 64 << 20 => DType::ALL.to_vec(),
                None => vec![DType::F32],
            }
        }
    }

    pub fn main() {
        let opts = Opts::parse();
        let started = Instant::now();
        let client = CudaRuntime::client(&CudaDevice::new(0));
        // retains the primary context, the one cubecl-cuda runs on
        let cuda = CudaContext::new(0).expect("CUDA context");
        let device = device_name();
        println!("device: {device}");
        println!("cubecl device key: {}", tuner::device_key(&client));
        let mut tuner = Tuner::with_cache_file(
            std::env::var("TUNE_CACHE").unwrap_or_else(|_| "codecs-tune.json".into()),
        );
        let mut results: Vec<Value> = Vec::new();
        let mut copies: Vec<Value> = Vec::new();
        let mut tuning: Vec<Value> = Vec::new();
        let mut passes: Vec<Value> = Vec::new();
        let save = |copies: &Vec<Value>,
                    results: &Vec<Value>,
                    passes: &Vec<Value>,
                    tuning: &Vec<Value>| {
            let out = json!({
                "device": device,
                "cubecl_device_key": tuner::device_key(&client),
                "args": std::env::args().skip(1).collect::<Vec<_>>(),
                "copy_reference": copies,
                "results": results,
                "single_vs_three_pass": passes,
                "tuner_vs_exhaustive": tuning,
                "wall_seconds": started.elapsed().as_secs_f64(),
                "note": "throughput in uncompressed bytes/s. Timing: every kernel and both copies are timed the same way: K calls issued back to back (K from a calibration batch so a batch takes about 20 ms, at least 5), one sync, batch time / K; the median of --reps batches (K per row in the *_batch fields). Reference: the CUDA driver's device-to-device copy (cuMemcpyDtoDAsync on a stream of the primary context via cudarc, buffers allocated with cudarc), read+write bytes counted; *_vs_d2d_rw = codec uncompressed bytes/s over it. Second reference: a CubeCL u32 copy kernel (cubecl_copy_*), *_vs_cubecl_copy_rw. ratio = uncompressed/compressed bytes (the header, with its data checksum, and the index included); ideal ZVC ratio = 1/((1-sp)+1/bits) (a 32-bit mask per 32 elements: 1/32 for f32, 1/16 for f16 and bf16)",
            });
            if let Some(p) = &opts.json {
                std::fs::write(p, serde_json::to_string_pretty(&out).unwrap()).unwrap();
            }
        };

        println!(
            "{:>6} {:>5} {:>8} {:>5} {:>7} {:>10} {:>10} {:>7} {:>7} {:>7} {:>7} {:>7} {:>5}  compress cfg / decompress cfg",
            "codec", "dtype", "size", "sp", "ratio", "comp GB/s", "dec GB/s", "c/d2d", "d/d2d", "c/cube", "d/cube", "ideal", "exact"
        );
        let reps = opts.reps.unwrap_or(5);
        for &bytes in &opts.sizes {
            for dtype in opts.dtypes_at(bytes) {
                let codecs: Vec<CodecKind> = opts
                    .codecs
                    .iter()
                    .copied()
                    .filter(|&c| {
                        dtype == DType::F32 || c == CodecKind::Zvc || opts.dtypes.is_some()
                    })
                    .collect();
                if codecs.is_empty() {
                    continue;
                }
                let words = bytes / 4;
                let len = bytes / dtype.size();
                let half = dtype.size() == 2;
                // the driver's device-to-device copy of the same size, this
                // run (the reference), and a CubeCL copy kernel
                let (t_d2d, k_d2d) = driver_copy_time(&cuda, bytes, reps);
                let d2d_rw = 2.0 * bytes as f64 / t_d2d;
                let a = gen(&client, words, 0.5, 1, half);
                let b = client.empty(bytes);
                let (t_copy, k_copy) = copy_time(&client, &a, &b, words, reps);
                let copy_rw = 2.0 * bytes as f64 / t_copy;
                copies.push(json!({"bytes": bytes, "dtype": format!("{dtype:?}"),
                    "d2d_seconds": t_d2d, "d2d_read_plus_write_bytes_per_s": d2d_rw, "d2d_batch": k_d2d,
                    "cubecl_copy_seconds": t_copy, "cubecl_copy_read_plus_write_bytes_per_s": copy_rw, "cubecl_copy_batch": k_copy}));
                println!(
                    "copy {dtype:?} {} MB: driver D2D {:.1} GB/s read+write ({:.4} ms, batch {k_d2d}); CubeCL kernel {:.1} GB/s ({:.4} ms, batch {k_copy})",
                    bytes >> 20,
                    d2d_rw / 1e9,
                    t_d2d * 1e3,
                    copy_rw / 1e9,
                    t_copy * 1e3
                );
                drop((a, b));
                for &sp in &opts.sparsities {
                    let seed = 1234 + (sp * 100.0) as u32;
                    let input = gen(&client, words, sp, seed, half);
                    // Bitmap's rows: zeros and 1.0 (made only when asked for)
                    let ones = codecs
                        .contains(&CodecKind::Bitmap)
                        .then(|| gen_for(&client, CodecKind::Bitmap, words, sp, seed, half));
                    for &codec in &codecs {
                        let input = match (codec, &ones) {
                            (CodecKind::Bitmap, Some(ones)) => ones,
                            _ => &input,
                        };
                        let row = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            run_one(
                                &client,
                                &mut tuner,
                                codec,
                                dtype,
                                len,
                                input,
                                sp,
                                reps,
                                [d2d_rw, copy_rw],
                            )
                        }));
                        results.push(row.unwrap_or_else(|e| {
                            let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                            println!("{} {dtype:?} {} MB sp {sp}: FAILED {msg}", codec.name(), bytes >> 20);
                            json!({"codec": codec.name(), "dtype": format!("{dtype:?}"), "bytes": bytes, "sparsity": sp, "error": msg})
                        }));
                    }
                }
                save(&copies, &results, &passes, &tuning);
            }
        }
        println!(
            "[table rows done at {:.1} s]",
            started.elapsed().as_secs_f64()
        );

        // single pass (look-back) against count/scan/write: same bytes? how fast?
        let pass_codecs: Vec<CodecKind> = opts
            .codecs
            .iter()
            .copied()
            .filter(|&c| LaunchConfig::has_single_pass(c))
            .collect();
        for &bytes in opts.sizes.iter().filter(|&&b| opts.passes && b >= 64 << 20) {
            let len = bytes / 4;
            let input = gen(&client, len, 0.5, 7, false);
            for &codec in &pass_codecs {
                let base = LaunchConfig::default_for(codec);
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let three = compress(&client, codec, &input, DType::F32, len, base).unwrap();
                    let tw = three.read_size(&client).unwrap();
                    let (t3, _) = time(&client, reps, || {
                        compress(&client, codec, &input, DType::F32, len, base).unwrap();
                    });
                    let word = client.empty(4);
                    let (tiny, _) = time(&client, reps, || {
                        one_word::launch(
                            &client,
                            CubeCount::Static(1, 1, 1),
                            CubeDim::new_1d(1),
                            arr(&word, 1),
                        );
                    });
                    println!("one-unit kernel: {:.2} us per launch", tiny * 1e6);
                    let mut row = json!({"codec": codec.name(), "bytes": bytes, "three_pass_seconds": t3, "three_pass_bytes_per_s": bytes as f64 / t3, "one_unit_kernel_seconds": tiny});
                    for grid in [4096u32, 1056, 264] {
                        let cfg = LaunchConfig {
                            single_pass: true,
                            grid,
                            ..base
                        };
                        let one = compress(&client, codec, &input, DType::F32, len, cfg).unwrap();
                        let ow = one.read_size(&client).unwrap();
                        let same = ow == tw && diff(&client, &three.handle, &one.handle, tw) == 0;
                        let (t1, _) = time(&client, reps, || {
                            compress(&client, codec, &input, DType::F32, len, cfg).unwrap();
                        });
                        println!(
                            "{} {} MB: three-pass {:.1} GB/s, single-pass grid {grid} {:.1} GB/s, same bytes: {same}",
                            codec.name(), bytes >> 20, bytes as f64 / t3 / 1e9, bytes as f64 / t1 / 1e9
                        );
                        row[format!("single_pass_grid{grid}_seconds")] = json!(t1);
                        row[format!("single_pass_grid{grid}_same_bytes")] = json!(same);
                    }
                    row
                }));
                passes.push(r.unwrap_or_else(
                    |_| json!({"codec": codec.name(), "bytes": bytes, "error": "panicked"}),
                ));
            }
            save(&copies, &results, &passes, &tuning);
        }
        println!(
            "[pass comparison done at {:.1} s]",
            started.elapsed().as_secs_f64()
        );

        // tuner against exhaustive search (50% zeros unless --tuner-sparsity)
        let tsp = opts.tuner_sparsity;
        for &bytes in &opts.tuner_sizes {
            for &dtype in &opts.tuner_dtypes {
                for &codec in &opts.tuner_codecs {
                    for &direction in &opts.tuner_directions {
                        let len = bytes / dtype.size();
                        let input = gen_for(&client, codec, bytes / 4, tsp, 99, dtype.size() == 2);
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            tuner_vs_exhaustive(&client, codec, dtype, len, &input, direction, tsp)
                        }));
                        tuning.push(r.unwrap_or_else(|_| json!({"codec": codec.name(), "dtype": format!("{dtype:?}"), "bytes": bytes, "direction": format!("{direction:?}"), "error": "panicked"})));
                        save(&copies, &results, &passes, &tuning);
                    }
                }
            }
        }
        println!(
            "[tuner comparison done at {:.1} s]",
            started.elapsed().as_secs_f64()
        );

        save(&copies, &results, &passes, &tuning);
        match &opts.json {
            Some(p) => println!("wrote {p}"),
            None => {
                let out = json!({"copy_reference": copies, "results": results, "single_vs_three_pass": passes, "tuner_vs_exhaustive": tuning});
                println!("{}", serde_json::to_string_pretty(&out).unwrap());
            }
        }
        println!("wall time {:.1} s", started.elapsed().as_secs_f64());
    }

    #[allow(clippy::too_many_arguments)]
    fn run_one(
        client: &Client,
        tuner: &mut Tuner,
        codec: CodecKind,
        dtype: DType,
        len: usize,
        input: &Handle,
        sp: f64,
        reps: usize,
        // read+write bytes/s of the driver D2D copy and of the CubeCL copy
        [d2d_rw, copy_rw]: [f64; 2],
    ) -> Value {
        let bytes = len * dtype.size();
        let words = dtype.words(len);
        let t0 = Instant::now();
        // tune on this (device-generated) input when the bucket is not cached yet
        let mut pick = |direction: Direction| -> LaunchConfig {
            let key = tuner::TuneKey {
                device: tuner::device_key(client),
                codec,
                dtype,
                direction,
                bucket: tuner::bucket(dtype, len),
            };
            if let Some(t) = tuner.cached(&key) {
                return t.config;
            }
            match tuner.tune(client, codec, dtype, len, input, direction) {
                Ok(t) => {
                    let _ = tuner.insert(&key, t);
                    t.config
                }
                Err(e) => {
                    println!("tuning {} {direction:?} failed: {e}", codec.name());
                    LaunchConfig::default_for(codec)
                }
            }
        };
        let ccfg = pick(Direction::Compress);
        let dcfg = pick(Direction::Decompress);
        let tune_s = t0.elapsed().as_secs_f64();
        let (t_c, k_c) = time(client, reps, || {
            compress(client, codec, input, dtype, len, ccfg).unwrap();
        });
        let c = compress(client, codec, input, dtype, len, ccfg).unwrap();
        let cw = c.read_size(client).unwrap();
        let header = c.read_header(client).unwrap();
        let (t_d, k_d) = time(client, reps, || {
            decompress(client, &c.handle, &header, dcfg).unwrap();
        });
        let d = decompress(client, &c.handle, &header, dcfg).unwrap();
        // status bits and the checksum (header against decoded words)
        let status_ok = d.check(client).is_ok();
        let mismatches = diff(client, input, &d.handle, words);
        // the compressed bytes must equal the CPU reference's (1 MB only: the host copy is slow)
        let mut cpu_identical = Value::Null;
        if bytes <= 1 << 20 {
            let host_in = format::bytes_to_words(&client.read_one(input.clone()).unwrap()).unwrap();
            let reference = cpu::compress(codec, dtype, &host_in[..words], len).unwrap();
            cpu_identical = json!(c.to_host(client).unwrap() == reference);
        }
        let ratio = bytes as f64 / (cw * 4) as f64;
        // a 32-bit mask per 32 elements: 1 bit per element, over `bits` bits
        // per element (1/32 of the input for f32, 1/16 for f16 / bf16)
        let ideal = 1.0 / ((1.0 - sp) + 1.0 / dtype.bits() as f64);
        let ct = bytes as f64 / t_c;
        let dt = bytes as f64 / t_d;
        let exact = status_ok && mismatches == 0;
        println!(
            "{:>6} {:>5} {:>7}M {:>5.2} {:>7.3} {:>10.1} {:>10.1} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>5}  {:?} / {:?}",
            codec.name(), format!("{dtype:?}"), bytes >> 20, sp, ratio, ct / 1e9, dt / 1e9, ct / d2d_rw, dt / d2d_rw, ct / copy_rw, dt / copy_rw, ideal, exact, ccfg, dcfg
        );
        json!({
            "codec": codec.name(), "dtype": format!("{dtype:?}"), "bytes": bytes, "sparsity": sp,
            "compress_seconds": t_c, "decompress_seconds": t_d,
            "compress_batch": k_c, "decompress_batch": k_d,
            "compress_bytes_per_s": ct, "decompress_bytes_per_s": dt,
            "compress_vs_d2d_rw": ct / d2d_rw, "decompress_vs_d2d_rw": dt / d2d_rw,
            "compress_vs_cubecl_copy_rw": ct / copy_rw, "decompress_vs_cubecl_copy_rw": dt / copy_rw,
            "compressed_bytes": cw * 4, "ratio": ratio, "ideal_zvc_ratio": ideal,
            "bit_exact": exact, "mismatched_words": mismatches, "device_status_and_checksum_ok": status_ok,
            "gpu_bytes_equal_cpu_reference": cpu_identical,
            "compress_config": ccfg, "decompress_config": dcfg, "tune_seconds_if_not_cached": tune_s,
        })
    }

    fn tuner_vs_exhaustive(
        client: &Client,
        codec: CodecKind,
        dtype: DType,
        len: usize,
        input: &Handle,
        direction: Direction,
        sparsity: f64,
    ) -> Value {
        let max_grid = tuner::max_useful_grid(codec, len);
        // what `Tuner::tune` searches: every grid up to `max_grid`, the
        // device's block sizes, single pass where it agrees
        let full =
            tuner::search_space(client, codec, dtype, len, input, direction).expect("tuner space");
        let measure = |cfg: LaunchConfig, round: Round| {
            tuner::time_config(client, codec, dtype, len, input, direction, cfg, 3, round)
                .unwrap_or(f64::INFINITY)
        };
        let t0 = Instant::now();
        let mut bo_calls = 0usize;
        let bo = bayes_opt(&full, SearchBudget::for_device(client), |cfg, round| {
            bo_calls += 1;
            measure(cfg, round)
        });
        let bo_s = t0.elapsed().as_secs_f64();
        // exhaustive over a subsample of the grids (every 16th, plus powers
        // of two and whole waves of the device) to fit the device time
        let whole_wave = |grid: u32| {
            tuner::device_waves(client)
                .is_some_and(|w| grid.is_multiple_of(w) && grid / w <= tuner::WAVE_CANDIDATES)
        };
        let sub: Vec<LaunchConfig> = full
            .iter()
            .copied()
            .filter(|c| {
                c.grid % 16 == 1
                    || c.grid.is_power_of_two()
                    || c.grid == max_grid
                    || whole_wave(c.grid)
            })
            .collect();
        let t1 = Instant::now();
        let mut best = (f64::INFINITY, sub[0]);
        // every measurement, for a look at the landscape
        let mut all = Vec::with_capacity(sub.len());
        for &cfg in &sub {
            let t = measure(cfg, Round::Search);
            all.push(json!([cfg.block, cfg.grid, cfg.single_pass, t]));
            if t < best.0 {
                best = (t, cfg);
            }
        }
        let ex_s = t1.elapsed().as_secs_f64();
        // re-measure both winners on equal terms
        let bo_t = measure(bo.config, Round::Final);
        let ex_t = measure(best.1, Round::Final);
        let ratio = bo_t / ex_t;
        let within = ratio <= 1.10;
        let frac = bo.evaluations as f64 / sub.len() as f64;
        println!(
            "tuner vs exhaustive: {} {:?} {dtype:?} {} MB ({:.0}% zeros), space {} configs",
            codec.name(),
            direction,
            (len * dtype.size()) >> 20,
            sparsity * 100.0,
            full.len()
        );
        println!(
            "  exhaustive: best {:?} {:.1} us, {} evaluations, {:.1} s wall",
            best.1,
            ex_t * 1e6,
            sub.len(),
            ex_s
        );
        println!(
            "  tuner:      chose {:?} {:.1} us, {} evaluations ({} measured), {:.1} s wall",
            bo.config,
            bo_t * 1e6,
            bo.evaluations,
            bo_calls,
            bo_s
        );
        println!(
            "  tuner/exhaustive time {:.3}, within 10%: {}; evaluations {:.4} of exhaustive (at most 1/20: {})",
            ratio, if within { "yes" } else { "no" }, frac, if frac <= 0.05 { "yes" } else { "no" }
        );
        json!({
            "codec": codec.name(), "dtype": format!("{dtype:?}"), "direction": format!("{direction:?}"), "bytes": len * dtype.size(),
            "space_size": full.len(), "bayes_config": bo.config, "bayes_seconds_per_call": bo_t, "bayes_evaluations": bo.evaluations, "bayes_search_seconds": bo_s,
            "exhaustive_config": best.1, "exhaustive_seconds_per_call": ex_t, "exhaustive_evaluations": sub.len(), "exhaustive_search_seconds": ex_s,
            "bayes_over_exhaustive_time": ratio, "within_10_percent": within, "evaluation_fraction": frac, "at_most_one_twentieth": frac <= 0.05,
            "sparsity": sparsity, "exhaustive_measurements [block, grid, single_pass, seconds]": all,
        })
    }
}
