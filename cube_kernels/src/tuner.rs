//! Launch-configuration tuner: Bayesian optimisation as in CSWAP (a
//! Gaussian process over (log grid, log block), expected improvement; 10
//! random points then 25 guided ones) over every grid from 1 to 4096 and
//! every block size a kernel accepts, then a final round (see
//! [`SearchBudget::waves`]). Results are cached per device, codec, dtype,
//! direction and size bucket, in memory and on disk (JSON).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use cubecl::prelude::*;

use crate::format::{chunks, CodecKind, DType};
use crate::gpu::LaunchConfig;
use crate::{compress, decompress, CodecError};

/// Version of the kernels in the cache keys: a cache tuned for older
/// kernels is not reused (2: ZVC tiles of 32 elements per unit; 3: picks
/// of the tuner that timed batches of 3 calls, sync included, are retimed;
/// 4: 16-bit ZVC compress units of two groups, so its tiles doubled; 5: the
/// ZVC compress look-back adds once per tile, 16-bit by ballot; 6:
/// single-pass compress is one launch, no zeroing or copying launch; 7:
/// the tuner's final round tries whole waves, see [`SearchBudget::waves`];
/// 8: the Bitmap codec, which a codec time model calibrated before it
/// cannot price, so such a model is measured again).
pub const KERNELS_VERSION: u32 = 8;

/// Which kernel of a codec.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Direction {
    /// The compress kernel(s).
    Compress,
    /// The decompress kernel.
    Decompress,
}

/// What a tuned configuration is valid for.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct TuneKey {
    /// Device identity (runtime name and hardware properties).
    pub device: String,
    /// Codec.
    pub codec: CodecKind,
    /// Element type.
    pub dtype: DType,
    /// Kernel.
    pub direction: Direction,
    /// Size bucket: `ceil(log2(bytes))`.
    pub bucket: u32,
}

impl TuneKey {
    fn string(&self) -> String {
        format!(
            "k{KERNELS_VERSION}|{}|{}|{:?}|{:?}|{}",
            self.device,
            self.codec.name(),
            self.dtype,
            self.direction,
            self.bucket
        )
    }
}

/// A tuned result.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tuned {
    /// The configuration chosen.
    pub config: LaunchConfig,
    /// Its measured time per call, seconds.
    pub seconds: f64,
    /// Configurations measured to find it.
    pub evaluations: usize,
}

/// Size bucket of `len` elements of `dtype`.
pub fn bucket(dtype: DType, len: usize) -> u32 {
    ((len * dtype.size()).max(1) as u64)
        .next_power_of_two()
        .trailing_zeros()
}

/// A device identity string for tune keys.
pub fn device_key<R: Runtime>(client: &ComputeClient<R>) -> String {
    let h = &client.properties().hardware;
    format!(
        "{}:sm{}:plane{}-{}:smem{}",
        R::name(client),
        h.num_streaming_multiprocessors.unwrap_or(0),
        h.plane_size_min,
        h.plane_size_max,
        h.max_shared_memory_size
    )
}

/// The search space of a codec: every grid in `1..=max_grid` times every
/// accepted block size.
pub fn space(codec: CodecKind, max_grid: u32) -> Vec<LaunchConfig> {
    let mut v = Vec::new();
    for &block in LaunchConfig::blocks(codec) {
        for grid in 1..=max_grid {
            v.push(LaunchConfig {
                block,
                grid,
                single_pass: false,
            });
        }
    }
    v
}

/// What [`Tuner::tune`] searches for one kernel on `client`: [`space`] up
/// to [`max_useful_grid`] at the block sizes the device runs, and on CUDA
/// for compress the single-pass variant of each, when
/// [`single_pass_agrees`] on `input`.
pub fn search_space<R: Runtime>(
    client: &ComputeClient<R>,
    codec: CodecKind,
    dtype: DType,
    len: usize,
    input: &cubecl::server::Handle,
    direction: Direction,
) -> Result<Vec<LaunchConfig>, CodecError> {
    let hw = &client.properties().hardware;
    let mut sp: Vec<LaunchConfig> = space(codec, max_useful_grid(codec, len))
        .into_iter()
        .filter(|c| {
            c.block <= hw.max_units_per_cube
                && crate::shared_bytes(codec, c.block) <= hw.max_shared_memory_size
        })
        .collect();
    if direction == Direction::Compress
        && LaunchConfig::has_single_pass(codec)
        && crate::supports_single_pass(client)
        && single_pass_agrees(client, codec, dtype, len, input)?
    {
        let single: Vec<LaunchConfig> = sp
            .iter()
            .map(|c| LaunchConfig {
                single_pass: true,
                ..*c
            })
            .collect();
        sp.extend(single);
    }
    Ok(sp)
}

/// Largest useful grid for `len` elements (more cubes than work units only idle).
pub fn max_useful_grid(codec: CodecKind, len: usize) -> u32 {
    let n = chunks(len).max(1) as u32;
    let n = match codec {
        CodecKind::Lz4 => n.div_ceil(8),
        _ => n,
    };
    n.clamp(1, LaunchConfig::MAX_GRID)
}

/// Bayesian optimisation settings.
#[derive(Clone, Copy, Debug)]
pub struct SearchBudget {
    /// Random points first.
    pub random: usize,
    /// Then guided (expected-improvement) points.
    pub guided: usize,
    /// Then the best this many configurations seen are measured once more
    /// and the fastest of those second measurements wins (one lucky
    /// measurement of a noisy kernel must not pick the configuration).
    pub confirm: usize,
    /// Seed of the random points.
    pub seed: u64,
    /// The device's multiprocessors, where known ([`device_waves`]). Then
    /// the final round also tries the block and pass scheme of each of the
    /// `confirm` best configurations seen at whole waves, grids `k * waves`
    /// for `k` in `1..=WAVE_CANDIDATES`. Why: the kernels loop over their
    /// tiles, so the grid sets how many cubes each multiprocessor holds,
    /// and one cube more on some of them costs a few percent, too little
    /// for the search's short timings to see. A grid with every cube
    /// resident at once is often the fastest.
    pub waves: Option<u32>,
}

/// Whole-wave grids the final round tries (see [`SearchBudget::waves`]).
pub const WAVE_CANDIDATES: u32 = 16;

/// Which round of [`bayes_opt`] asks for a cost: the search, or the final
/// round, whose costs pick the winner and are worth timing longer (see
/// [`time_config`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// The Bayesian search: many short timings.
    Search,
    /// The final round: few, longer timings.
    Final,
}

/// The multiprocessors of `client`'s device, where it reports them: one
/// wave of cubes for [`SearchBudget::waves`].
pub fn device_waves<R: Runtime>(client: &ComputeClient<R>) -> Option<u32> {
    client
        .properties()
        .hardware
        .num_streaming_multiprocessors
        .filter(|&n| n > 0)
}

impl SearchBudget {
    /// The default budget with [`SearchBudget::waves`] from `client`'s
    /// device.
    pub fn for_device<R: Runtime>(client: &ComputeClient<R>) -> Self {
        SearchBudget {
            waves: device_waves(client),
            ..SearchBudget::default()
        }
    }
}

impl Default for SearchBudget {
    fn default() -> Self {
        SearchBudget {
            random: 10,
            guided: 25,
            confirm: 3,
            seed: 0x5eed,
            waves: None,
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn features(c: &LaunchConfig) -> [f64; 3] {
    // log2 grid in [0, 12] and log2 block in [3, 10], scaled to about [0, 1];
    // the pass scheme as a far-apart third coordinate
    [
        (c.grid as f64).log2() / 12.0,
        (c.block as f64).log2() / 10.0,
        if c.single_pass { 1.0 } else { 0.0 },
    ]
}

/// Minimise `cost` over `space` by Bayesian optimisation (GP with a squared
/// exponential kernel on [`features`], expected improvement), then a final
/// round: the best `budget.confirm` configurations seen, and with
/// `budget.waves` their blocks at whole-wave grids (see
/// [`SearchBudget::waves`]), measured again. Returns the fastest of the
/// final round, its cost, and the number of evaluations (both rounds).
pub fn bayes_opt(
    space: &[LaunchConfig],
    budget: SearchBudget,
    mut cost: impl FnMut(LaunchConfig, Round) -> f64,
) -> Tuned {
    assert!(!space.is_empty());
    let mut rng = Rng(budget.seed | 1);
    let mut xs: Vec<[f64; 3]> = Vec::new();
    let mut ys: Vec<f64> = Vec::new();
    let mut seen: Vec<usize> = Vec::new();
    let total = (budget.random + budget.guided).min(space.len());
    for it in 0..total {
        let pick = if it < budget.random.min(total) {
            let mut i = (rng.next() % space.len() as u64) as usize;
            while seen.contains(&i) {
                i = (i + 1) % space.len();
            }
            i
        } else {
            next_ei(space, &xs, &ys, &seen)
        };
        seen.push(pick);
        let c = space[pick];
        let y = cost(c, Round::Search);
        xs.push(features(&c));
        ys.push(y.max(1e-12).ln());
    }
    // the final round: the first round's best, and with `waves` their
    // blocks and schemes at whole waves, each measured again; the fastest
    // wins (without a final round, the first round's best; with no
    // evaluation at all, the first configuration at infinite cost)
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by(|&a, &b| ys[a].total_cmp(&ys[b]));
    let confirm = budget.confirm.min(total);
    let mut finalists: Vec<LaunchConfig> =
        order[..confirm].iter().map(|&i| space[seen[i]]).collect();
    if let Some(sms) = budget.waves {
        for i in 0..confirm {
            let seed = finalists[i];
            for k in 1..=WAVE_CANDIDATES {
                let c = LaunchConfig {
                    grid: k * sms,
                    ..seed
                };
                if space.contains(&c) && !finalists.contains(&c) {
                    finalists.push(c);
                }
            }
        }
    }
    let best = finalists
        .iter()
        .map(|&c| (cost(c, Round::Final), c))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or_else(|| {
            order.first().map_or((f64::INFINITY, space[0]), |&i| {
                (ys[i].exp(), space[seen[i]])
            })
        });
    Tuned {
        config: best.1,
        seconds: best.0,
        evaluations: total + finalists.len(),
    }
}

fn next_ei(space: &[LaunchConfig], xs: &[[f64; 3]], ys: &[f64], seen: &[usize]) -> usize {
    let n = xs.len();
    let mean = ys.iter().sum::<f64>() / n as f64;
    let var = ys.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / n as f64;
    let sd = var.sqrt().max(1e-6);
    let yn: Vec<f64> = ys.iter().map(|y| (y - mean) / sd).collect();
    let ls = [0.08f64, 0.1, 0.5];
    let k = |a: &[f64; 3], b: &[f64; 3]| {
        let d0 = (a[0] - b[0]) / ls[0];
        let d1 = (a[1] - b[1]) / ls[1];
        let d2 = (a[2] - b[2]) / ls[2];
        (-0.5 * (d0 * d0 + d1 * d1 + d2 * d2)).exp()
    };
    // K + noise, Cholesky
    let mut l = vec![0.0f64; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = k(&xs[i], &xs[j]) + if i == j { 1e-4 } else { 0.0 };
            for p in 0..j {
                s -= l[i * n + p] * l[j * n + p];
            }
            l[i * n + j] = if i == j {
                s.max(1e-12).sqrt()
            } else {
                s / l[j * n + j]
            };
        }
    }
    let solve = |b: &[f64]| -> Vec<f64> {
        let mut z = b.to_vec();
        for i in 0..n {
            for p in 0..i {
                z[i] -= l[i * n + p] * z[p];
            }
            z[i] /= l[i * n + i];
        }
        z
    };
    let z = solve(&yn);
    // alpha = L^T^-1 z
    let mut alpha = z.clone();
    for i in (0..n).rev() {
        for p in i + 1..n {
            alpha[i] -= l[p * n + i] * alpha[p];
        }
        alpha[i] /= l[i * n + i];
    }
    let best = yn.iter().cloned().fold(f64::INFINITY, f64::min);
    // Candidates: grids on a log scale (about 160 values) plus a window
    // around the best grid seen, for every block and pass scheme; EI over
    // all 40k points of the full space would cost more than the kernels.
    let best_i = (0..n).min_by(|&a, &b| yn[a].total_cmp(&yn[b])).unwrap();
    let best_grid = space[seen[best_i]].grid;
    let on_scale = |g: u32| {
        let step = (g as f64 / 40.0).max(1.0) as u32;
        g.is_multiple_of(step) || g.abs_diff(best_grid) <= 24
    };
    let mut pick = (f64::NEG_INFINITY, usize::MAX);
    for (idx, c) in space.iter().enumerate() {
        if seen.contains(&idx) || !on_scale(c.grid) {
            continue;
        }
        let x = features(c);
        let kx: Vec<f64> = xs.iter().map(|xi| k(&x, xi)).collect();
        let mu: f64 = kx.iter().zip(&alpha).map(|(a, b)| a * b).sum();
        let v = solve(&kx);
        let s2 = (1.0 - v.iter().map(|t| t * t).sum::<f64>()).max(1e-12);
        let s = s2.sqrt();
        let zz = (best - mu) / s;
        let ei = (best - mu) * norm_cdf(zz) + s * norm_pdf(zz);
        if ei > pick.0 {
            pick = (ei, idx);
        }
    }
    if pick.1 == usize::MAX {
        // everything on the scale seen: first unseen point
        return (0..space.len()).find(|i| !seen.contains(i)).unwrap_or(0);
    }
    pick.1
}

fn norm_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
}
fn norm_cdf(x: f64) -> f64 {
    // Abramowitz-Stegun erf approximation
    let t = 1.0 / (1.0 + 0.3275911 * x.abs() / std::f64::consts::SQRT_2);
    let y = 1.0
        - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
            + 0.254829592)
            * t
            * (-(x * x) / 2.0).exp();
    if x >= 0.0 {
        0.5 * (1.0 + y)
    } else {
        0.5 * (1.0 - y)
    }
}

/// Shortest timed batch in [`time_config`] in the search: a sync costs tens
/// of microseconds, so batches of a few short calls would time the sync,
/// and its noise would pick the tuner's winner.
const MIN_BATCH_SECONDS: f64 = 2e-3;
/// Shortest timed batch, and batches, in the final round: its timings pick
/// the winner among configurations a few percent apart, and batches of
/// 2 ms vary more than that between neighbouring grids.
const FINAL_BATCH_SECONDS: f64 = 20e-3;
const FINAL_BATCHES: usize = 5;

/// Time one configuration in seconds per call: after a warm-up call, three
/// batches of at least `reps` calls (more, up to 1000, until a batch takes
/// [`MIN_BATCH_SECONDS`]) issued back to back with one sync each (so the
/// sync's latency is spread over the batch, as when calls are pipelined),
/// the median batch divided by its calls. In the final `round`, five
/// batches of at least 20 ms.
#[allow(clippy::too_many_arguments)]
pub fn time_config<R: Runtime>(
    client: &ComputeClient<R>,
    codec: CodecKind,
    dtype: DType,
    len: usize,
    input: &cubecl::server::Handle,
    direction: Direction,
    cfg: LaunchConfig,
    reps: usize,
    round: Round,
) -> Result<f64, CodecError> {
    let (min_batch, nbatches) = match round {
        Round::Search => (MIN_BATCH_SECONDS, 3),
        Round::Final => (FINAL_BATCH_SECONDS, FINAL_BATCHES),
    };
    let sync = || {
        cubecl::future::block_on(client.sync()).map_err(|e| CodecError::Runtime(format!("{e:?}")))
    };
    let batches = |run: &dyn Fn() -> Result<(), CodecError>| -> Result<f64, CodecError> {
        run()?;
        sync()?;
        let mut reps = reps.max(1);
        loop {
            let s = Instant::now();
            for _ in 0..reps {
                run()?;
            }
            sync()?;
            let took = s.elapsed().as_secs_f64();
            if took >= min_batch || reps >= 1000 {
                break;
            }
            let scale = (min_batch / took.max(1e-9)).ceil() as usize;
            reps = (reps * scale.clamp(2, 64)).min(1000);
        }
        let mut t = Vec::new();
        for _ in 0..nbatches {
            let s = Instant::now();
            for _ in 0..reps {
                run()?;
            }
            sync()?;
            t.push(s.elapsed().as_secs_f64() / reps as f64);
        }
        t.sort_by(f64::total_cmp);
        Ok(t[nbatches / 2])
    };
    match direction {
        Direction::Compress => {
            batches(&|| compress(client, codec, input, dtype, len, cfg).map(|_| ()))
        }
        Direction::Decompress => {
            let c = compress(
                client,
                codec,
                input,
                dtype,
                len,
                LaunchConfig::default_for(codec),
            )?;
            let header = c.read_header(client)?;
            batches(&|| decompress(client, &c.handle, &header, cfg).map(|_| ()))
        }
    }
}

/// Whether the single-pass compress writes the same bytes as the
/// count/scan/write compress on this input (a guard before the tuner may
/// choose it: the look-back depends on the device's scheduling and atomics).
pub fn single_pass_agrees<R: Runtime>(
    client: &ComputeClient<R>,
    codec: CodecKind,
    dtype: DType,
    len: usize,
    input: &cubecl::server::Handle,
) -> Result<bool, CodecError> {
    let base = LaunchConfig::default_for(codec);
    let a = compress(client, codec, input, dtype, len, base)?.to_host(client)?;
    for grid in [base.grid, 64] {
        let cfg = LaunchConfig {
            single_pass: true,
            grid,
            ..base
        };
        let b = compress(client, codec, input, dtype, len, cfg)?.to_host(client)?;
        if a != b {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Picks and remembers launch configurations.
#[derive(Debug, Default)]
pub struct Tuner {
    cache: BTreeMap<String, Tuned>,
    path: Option<PathBuf>,
    /// Search budget.
    pub budget: SearchBudget,
    /// Calls per timed batch in an evaluation (see [`time_config`]).
    pub reps: usize,
}

impl Tuner {
    /// A tuner with an in-memory cache only.
    pub fn new() -> Self {
        Tuner {
            cache: BTreeMap::new(),
            path: None,
            budget: SearchBudget::default(),
            reps: 3,
        }
    }
    /// A tuner whose cache is loaded from and saved to `path` (JSON).
    pub fn with_cache_file(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref().to_path_buf();
        let cache = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<BTreeMap<String, Tuned>>(&b).ok())
            .unwrap_or_default();
        Tuner {
            cache,
            path: Some(path),
            budget: SearchBudget::default(),
            reps: 3,
        }
    }
    /// Cached result for `key`, if any.
    pub fn cached(&self, key: &TuneKey) -> Option<Tuned> {
        self.cache.get(&key.string()).copied()
    }
    /// Number of cached entries.
    pub fn len(&self) -> usize {
        self.cache.len()
    }
    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }
    /// Store a result (and save the file, if any).
    pub fn insert(&mut self, key: &TuneKey, tuned: Tuned) -> Result<(), CodecError> {
        self.cache.insert(key.string(), tuned);
        if let Some(p) = &self.path {
            let json = serde_json::to_vec_pretty(&self.cache)
                .map_err(|e| CodecError::Runtime(e.to_string()))?;
            std::fs::write(p, json)
                .map_err(|e| CodecError::Runtime(format!("tune cache {}: {e}", p.display())))?;
        }
        Ok(())
    }
    /// The configuration for `codec`/`dtype`/`direction` at `len` elements
    /// on `client`'s device: cached, or tuned now on synthetic data of the
    /// bucket's size with half of the elements zero (then cached); for
    /// Bitmap the others are one value (1.0), as in the tensors it is for.
    pub fn config<R: Runtime>(
        &mut self,
        client: &ComputeClient<R>,
        codec: CodecKind,
        dtype: DType,
        direction: Direction,
        len: usize,
    ) -> Result<LaunchConfig, CodecError> {
        let key = TuneKey {
            device: device_key(client),
            codec,
            dtype,
            direction,
            bucket: bucket(dtype, len),
        };
        if let Some(t) = self.cached(&key) {
            return Ok(t.config);
        }
        let n = (1usize << key.bucket) / dtype.size();
        let one = match dtype {
            DType::F32 => crate::calibrate::one_bits(dtype),
            _ => crate::calibrate::one_bits(dtype) * 0x0001_0001,
        };
        let words: Vec<u32> = (0..dtype.words(n) as u32)
            .map(|i| {
                let h = i.wrapping_mul(2_654_435_761) ^ 0x9e37_79b9;
                if h & 1 == 0 {
                    0
                } else if codec == CodecKind::Bitmap {
                    one
                } else {
                    h | 1
                }
            })
            .collect();
        let input = client.create_from_slice(&crate::format::words_to_bytes(&words));
        let tuned = self.tune(client, codec, dtype, n, &input, direction)?;
        self.insert(&key, tuned)?;
        Ok(tuned.config)
    }
    /// Run the Bayesian search for one kernel on `input`.
    pub fn tune<R: Runtime>(
        &self,
        client: &ComputeClient<R>,
        codec: CodecKind,
        dtype: DType,
        len: usize,
        input: &cubecl::server::Handle,
        direction: Direction,
    ) -> Result<Tuned, CodecError> {
        let sp = search_space(client, codec, dtype, len, input, direction)?;
        let mut err = None;
        let budget = SearchBudget {
            waves: self.budget.waves.or_else(|| device_waves(client)),
            ..self.budget
        };
        let tuned = bayes_opt(&sp, budget, |cfg, round| {
            match time_config(
                client,
                codec,
                dtype,
                len,
                input,
                direction,
                cfg,
                self.reps.max(1),
                round,
            ) {
                Ok(t) => t,
                Err(e) => {
                    err = Some(e);
                    f64::INFINITY
                }
            }
        });
        if !tuned.seconds.is_finite() {
            return Err(err.unwrap_or(CodecError::Runtime("no configuration ran".into())));
        }
        Ok(tuned)
    }
}
