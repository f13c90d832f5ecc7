//! Configuration: a builder in code, or environment variables.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `BURN_SWAP_POLICY` | `auto`, `keep-all`, `swap-all`, `compress-all` (ZVC; `compress-all:CODEC` names the codec: `zvc`, `rle`, `csr`, `lz4`, `bitmap`), `cswap` (needs a cost model), `oracle`, `superneurons`, `capuchin` or `home` (the last two need the link's cost: a cost model, or CUDA, where it is timed); `auto`: `home` where there is a budget and the link's cost is known (CUDA), `swap-all` where only a budget is, `keep-all` where there is no budget (see [`Auto`]) | `auto` |
//! | `BURN_SWAP_REBUILD` | `off`: plans rebuild no tensor in backward (they keep, swap or compress); `saved`: rebuilds read saved tensors only, none runs through tensors forward freed ([`SwapConfig::rebuild_through_freed`]); `on` and `saved` need the `recompute` feature | on with the `recompute` feature |
//! | `BURN_SWAP_BUDGET` | device bytes an iteration may add to what the device held when it began (saved activations, working tensors, downloads in flight), e.g. `6GiB`, `512MB`, `1000000`; `auto`: the device's free memory when the iteration begins, less a share of it (`BURN_SWAP_BUDGET_MARGIN`, a half, or a quarter where a half leaves no plan or a slower one; at least 512 MiB), where the driver says it (CUDA), see [`SwapConfig::budget_from_free_memory`]; `none`: no budget | `auto` |
//! | `BURN_SWAP_BUDGET_MARGIN` | the share of the free memory a budget taken from it leaves free: `40%` or `0.4` fixed, or the least and the first share, `25%..50%`: the first unless it leaves no plan or a slower one (see [`SwapConfig::free_memory_margin`]) | `25%..50%` |
//! | `BURN_SWAP_MIN_SWAP_BYTES` | smallest tensor worth swapping | `1MiB` |
//! | `BURN_SWAP_PREFETCH_OPS` | bring tensors back this many ops before first use | `0` |
//! | `BURN_SWAP_PROFILE` | write the profile and plan as JSON to this path at each re-plan | none |
//! | `BURN_SWAP_TIMING` | `1`: synchronise and time every op (slow) | off |
//! | `BURN_SWAP_ON_BUDGET_ERROR` | `panic` or `keep-all` | `panic` |
//! | `BURN_SWAP_PINNED_POOL` | most pinned host memory the CUDA engine takes | half the host RAM |
//! | `BURN_SWAP_HOST_RESERVE` | host RAM the pinned pool always leaves available | `4GiB` |
//! | `BURN_SWAP_DEVICE_SAMPLE_OPS` | read the device's real memory use every this many ops while profiling (0: only at phase boundaries) | `1` |
//! | `BURN_SWAP_COST_MODEL` | a `CostModel` JSON (the link and the codecs' time model, measured on the device) for `cswap` and `oracle` | none |
//! | `BURN_SWAP_SPARSITY_EVERY` | under `cswap`, `oracle` or `home` (not under burn's fusion), count the zeros of the iteration's saved tensors on the device in iterations without a plan and every this many iterations (0: never) | `500` |
//! | `BURN_SWAP_DEVICE_SAMPLE_PLANNED` | `1`: sample it in iterations that follow the plan too (a blocking round trip each: for measurements) | off |
//! | `BURN_SWAP_UNDER_FUSION` | `0`: leave tensors of burn's fusion backend (`Cuda`, `Wgpu`) on the device | on |
//! | `BURN_SWAP_ALLOCATOR` | `auto`, `exact` or `pooled`: how device buffers are allocated (see [`DeviceAllocator`]) | `auto` |
//! | `BURN_SWAP_RELEASE_BYTES` | with exact allocations, give free device buffers back once the tensors freed since the last time add up to this (0: after every op; `auto`) | a quarter of the budget, 256 MiB to 1 GiB |
//! | `BURN_SWAP_RESERVE_POOL` | `1`: on CUDA, reserve one range of the device for the driver's memory pool at the first plan (faster; see [`SwapConfig::reserve_pool`] for the risk) | off |
//! | `BURN_SWAP_POOL_CAP` | on CUDA, the most the driver's memory pool may hold, or `off`; larger needs are plain allocations (see [`PoolCap`]) | half the free memory training began with, once a planned iteration left little outside the pool |
//! | `BURN_SWAP_POOL_KEEP` | on CUDA without the reserved range, device memory the driver's pool may keep unused from the first plan on (see [`SwapConfig::pool_keep_bytes`]) | half the budget |
//! | `BURN_SWAP_BUDGET_COUNTS_UNSEEN` | `0`: the budget bounds only the tensors the plan sees; on, where the driver keeps a high-water mark (CUDA), plans leave the budget's room for what the device added beyond them (see [`SwapConfig::budget_counts_unseen`]) | on |
//! | `BURN_SWAP_REBUILD_CHECK` | device bytes of rebuilt tensors compared on the device with the tensors they stand for, per iteration, until each was compared once (see [`SwapConfig::rebuild_check_bytes`]); 0: none | `512MiB`, at most an eighth of the budget |
//! | `BURN_SWAP_RUNTIME_FAILURE_GRACE` | seconds the training thread has, after the device runtime failed on its own thread, to come back and raise the error; past it the process ends with the runtime's message (the training thread is blocked inside the runtime, e.g. in autotune); 0: wait forever | `30` |
//! | `BURN_SWAP_QUIET` | `1`: no notices on standard error (they are also `tracing` events) | off |

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::error::SwapError;
use crate::policy::{self, Auto, CostModel, PlanParams, Policy};

/// What to do when no plan fits the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnBudgetError {
    /// Panic at the end of the profiled backward, with the numbers
    /// (like an out-of-memory error, but before one happens).
    Panic,
    /// Log the error, keep every tensor on the device, and report the error
    /// through [`status`](crate::status).
    KeepAll,
}

/// How the runtime allocates device buffers while burn-swap manages them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceAllocator {
    /// `Exact` when the policy moves tensors, else the runtime's own.
    #[default]
    Auto,
    /// Each buffer is an allocation of its own size, and burn-swap gives
    /// free ones back to the driver's stream-ordered pool as it frees
    /// tensors, so memory a plan frees serves the next allocation of any
    /// size. Without it, CubeCL carves buffers out of pages sized from the
    /// whole card (on an 80 GB card: 5.3 GB for a 1 GB tensor) and keeps
    /// every page: moving tensors off lowers the memory in use but not what
    /// the driver sees. CUDA only; other runtimes keep their own.
    Exact,
    /// The runtime's own pools, untouched.
    Pooled,
}

/// How much device memory the driver's stream-ordered pool may hold (CUDA,
/// exact allocations). Past the cap, CubeCL falls back to plain
/// allocations of their own pages, freed whole.
///
/// The pool reuses a freed range only for a buffer that fits in it, and a
/// range with one live buffer in it cannot go back to the driver; grown and
/// shrunk step after step it ends in pieces. GPT-small b4 under a 12 GiB cap
/// on an H200 ran out of memory after 14 to 71 iterations for a 105-589 MiB
/// buffer, with 6.0-6.7 GiB unused in the pool; with the pool capped at
/// 7 GiB it trained 60 timed steps. A cap bounds what the pieces strand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PoolCap {
    /// Where the budget is taken from the device's free memory (no budget
    /// given, so the device is the limit): uncapped until an iteration that
    /// followed a plan left the driver less than one and a half of the
    /// largest tensor free outside the pool, then half the free memory
    /// training began with. Never capped where a budget is given.
    #[default]
    HalfFree,
    /// The driver's pool, uncapped: fastest where it does not end in
    /// pieces (each plain allocation is mapped anew and freeing it waits
    /// for the device).
    Off,
    /// At most this many bytes.
    AtMost(u64),
}

/// How burn-swap manages saved activations on the current thread.
#[derive(Debug, Clone)]
pub struct SwapConfig {
    /// Makes the plan. The default, [`Auto`], is replaced at the first op by
    /// the policy it chooses for the device: `home` on CUDA.
    pub policy: Arc<dyn Policy>,
    /// Whether plans may rebuild tensors in backward (run their ops again,
    /// or let a ReLU's output stand in for its input). Only a build with
    /// the `recompute` feature rebuilds; on there by default. Off, plans
    /// keep, swap or compress each tensor.
    pub rebuild: bool,
    /// Whether a rebuild may run through tensors forward freed, made again
    /// on the way (a softmax's `x - max` from the attention's `q` and `k`);
    /// on by default. Under burn's fusion a chain with a matmul or a
    /// reduction in it is compared with its tensor first, which costs
    /// warm-up time where such chains do not replay alike (see
    /// [`PlanParams::under_fusion`]).
    pub rebuild_through_freed: bool,
    /// What copies and codecs cost on the device, where measured: the
    /// policies that choose codecs (`cswap`, `oracle`) need it, the others
    /// use it to predict the iteration's time.
    pub cost_model: Option<Arc<CostModel>>,
    /// Device bytes an iteration may add to what the device held when it
    /// began: its saved activations, its working tensors and downloads still
    /// holding their memory. Held by the plan (simulated on the profile), by
    /// the executor (it waits for downloads rather than go over) and checked
    /// against the runtime's own count of memory in use.
    pub budget_bytes: Option<u64>,
    /// Where `budget_bytes` is `None`: take the budget from the device's
    /// free memory when an iteration begins (what the driver reports free
    /// and its pool holds unused), less a share of it and at least 512 MiB
    /// ([`SwapConfig::free_memory_margin`]). It is taken at each
    /// iteration's start; one that finds less free than the plan in force
    /// was made for plans again before its first op (the optimizer's state
    /// appears after the first step). Only where the driver reports free
    /// memory (CUDA); elsewhere there is no budget. On by default.
    pub budget_from_free_memory: bool,
    /// The share of the free memory a budget taken from it leaves free at
    /// first (a half; at least 512 MiB): free memory comes in pieces (the
    /// driver's pool keeps freed buffers between live ones), and the first
    /// plans cannot yet leave room for what the device adds beyond them.
    /// Where that leaves no plan, or one the evaluator predicts more than a
    /// twentieth slower than the plan under
    /// [`SwapConfig::least_free_memory_margin`], the budget leaves that
    /// share instead, from then on. Under a 12 GiB cap on an H200, a
    /// quarter left VGG16 b3072 out of memory in iteration 32 (the pool in
    /// pieces) where a half trained it at the same speed; a half leaves
    /// GPT-small b4 no plan once the optimizer's state is made.
    pub free_memory_margin: f64,
    /// The least share of the free memory a budget taken from it leaves
    /// free (a quarter; see [`SwapConfig::free_memory_margin`]). Equal to
    /// it, the share is fixed.
    pub least_free_memory_margin: f64,
    /// Tensors smaller than this are not worth a transfer.
    pub min_swap_bytes: u64,
    /// How many ops before its first backward use a swapped tensor is
    /// brought back. `None` (the default): as early as the budget allows
    /// (without a budget, within the plan's own peak), so that copies have
    /// the most compute to hide behind.
    pub prefetch_lookahead_ops: Option<u32>,
    /// Where to write the profile and plan (JSON) whenever a plan is made.
    pub profile_path: Option<PathBuf>,
    /// Synchronise the device around every op to time it (slow; off by default).
    pub timing: bool,
    /// What to do when no plan fits the budget.
    pub on_budget_error: OnBudgetError,
    /// Iterations longer than this are not profiled in full (memory guard).
    pub max_recorded_ops: usize,
    /// Most page-locked host memory the CUDA transfer engine takes (it is
    /// taken in chunks as needed, once, and reused; past it, tensors stay on
    /// the device). Default: half the host's RAM (8 GiB where unknown).
    pub pinned_pool_bytes: u64,
    /// Size of each chunk the pinned pool takes from the driver.
    pub pinned_chunk_bytes: u64,
    /// Host RAM the pinned pool always leaves available (`MemAvailable`).
    pub host_ram_reserve_bytes: u64,
    /// Read the device's real memory use every this many ops (each read is
    /// a round trip to the runtime); 0 reads only at phase boundaries.
    /// Iterations that follow a plan are read at phase boundaries only.
    /// Default 1: in an iteration without a plan, each read also holds the
    /// training thread to the device's pace, so that under fusion (where
    /// the host runs ahead) the tensors moved off after each op have left
    /// before the next ones pile up.
    pub device_sample_ops: u32,
    /// Under a policy that reads them (`cswap`, `oracle`), count the zeros
    /// of the iteration's saved tensors (those of at least `min_swap_bytes`)
    /// on the device, for the profile's `zero_fraction` (what compression
    /// would gain): in every iteration without a plan and every this many
    /// iterations; 0 never. One reduction per tensor, read back when the
    /// iteration ends.
    pub sparsity_every: u64,
    /// Sample the device's memory in iterations that follow the plan too
    /// (each sample is a blocking round trip to the runtime: for
    /// measurements, not for speed).
    pub device_sample_planned: bool,
    /// Swap tensors of burn's fusion backend (burn-cuda's default `Cuda`,
    /// burn-wgpu's `Wgpu`). On by default: buffers are taken out of fusion
    /// only once the ops that read them ran, and put back under the same
    /// tensor id, so fusion runs the same kernels and results are
    /// bit-identical to `Autodiff<Cuda>`. Off leaves them on the device.
    pub swap_under_fusion: bool,
    /// How device buffers are allocated.
    pub allocator: DeviceAllocator,
    /// Under exact allocations, in an iteration that follows its plan: give
    /// the free device buffers back once the device bytes of the tensors
    /// freed since the last time add up to this (and at each phase
    /// boundary); 0 after every op. `None` (the default): a quarter of the
    /// budget, at least 256 MiB and at most 1 GiB (256 MiB without a
    /// budget). Each release is a pass over all of the runtime's buffers on
    /// its thread, and a buffer given back is allocated anew from the
    /// driver by the next of its size, both on the runtime's thread, which
    /// paces the step: after every op it halved ResNet-50's speed. On an
    /// H200, 1 GiB instead of 256 MiB took GPT-small b4 `home` at 6 GiB
    /// from 16.0 to 18.2 samples/s and ResNet-50 b92 under a 12 GiB cap
    /// from 180 to 200 (2 and 4 GiB: 19.0 and 19.4 on GPT-small). Iterations
    /// without a plan release after every op, so that each op's workspace
    /// is measured.
    pub release_after_bytes: Option<u64>,
    /// CUDA, exact allocations under a budget: at the first plan, reserve
    /// the device's free memory (less 1 GiB, at most four budgets) in the
    /// driver's pool as one range, so that freed neighbours join into one
    /// free range again. Off by default: on an H100 under a 12 GiB cap it
    /// took VGG16 b4096 from 0.76x to 0.81x of plain's speed over 30 steps,
    /// but GPT-small b4's range ended in pieces smaller than a 147 MiB
    /// buffer (5.9 GiB free in it) after 11 to 13 steps, in each of three
    /// runs; off, the same run trained 24 steps. Off, the pool grows buffer
    /// by buffer and gives back what it holds unused (other processes on
    /// the device can then have it).
    pub reserve_pool: bool,
    /// CUDA, exact allocations under a budget, without the reserved range:
    /// from the first plan on, the driver's pool may keep this much freed
    /// memory unused instead of giving it back at each synchronisation and
    /// trim, so that the next step's buffers come from it rather than from
    /// new driver allocations. `None`: half the budget. What it keeps beyond
    /// that goes back to the driver, which can then place a buffer the pool
    /// cannot. Before autotune and the first plan nothing is kept, so
    /// autotune's candidates have the room.
    pub pool_keep_bytes: Option<u64>,
    /// CUDA, exact allocations: the most device memory the driver's
    /// stream-ordered pool may hold (see [`PoolCap`]); buffers past it are
    /// plain allocations of their own pages, freed whole, so free memory
    /// cannot end up in pieces the pool keeps. It trades speed for that:
    /// on an H100 under a 12 GiB cap, a 1 GiB cap took GPT-small b4 from
    /// 14.0 to 5.8-6.3 samples/s and ResNet-50 b192 from 143 to 78-86. With
    /// [`release_after_bytes`](Self::release_after_bytes) 0 a 1 GiB cap let
    /// VGG16 b6144 `home` at 5 GiB train under that cap at the default
    /// autotune level (6,798 samples/s, 0.83x plain's b2048), where the cap
    /// alone, or neither, ran out of memory for a 3.4 GiB convolution
    /// workspace.
    pub pool_cap: PoolCap,
    /// Hold the budget against the device's own count where the driver's
    /// allocator keeps a high-water mark (CUDA): once iterations that
    /// followed a plan grew the device's buffers past what the plan sees
    /// (the ops' own buffers under fusion, buffers fusion frees late), plan
    /// again leaving that much of the budget free, up to three times per op
    /// sequence. On by default; off, the budget bounds the tensors the
    /// plan sees, and the device holds more.
    pub budget_counts_unseen: bool,
    /// Under a plan that rebuilds tensors: in each iteration, tensors not
    /// checked yet, up to this many device bytes (counted twice: the tensor
    /// and its rebuild), are kept aside instead of freed, and compared bit
    /// for bit with their rebuild when the next iteration begins (reading
    /// both back). A rebuild that differs (an op fused in forward can round
    /// otherwise when it runs alone) is warned of, its op's tensors stay on
    /// the device from then on, and the plan is made anew; the iteration
    /// that read it is not undone. Each rebuilt tensor is checked once; one
    /// larger than half of this is not checked. Under a budget, at most an
    /// eighth of it (the plan fills the budget; the checks come on top).
    /// 0: no checks.
    pub rebuild_check_bytes: u64,
    /// After the device runtime failed on one of its own threads (a failed
    /// allocation, say), how long the training thread has to reach its next
    /// op, where the failure is raised as a panic. A thread blocked inside
    /// the runtime never comes back (seen when autotune's benchmark buffers
    /// ran out of memory under a cap), so past this the process ends with
    /// the runtime's message instead of hanging. `None` waits forever.
    pub runtime_failure_grace: Option<Duration>,
}

impl Default for SwapConfig {
    fn default() -> Self {
        Self {
            policy: Arc::new(Auto {
                progress: Some(Arc::new(say_search_progress)),
            }),
            rebuild: cfg!(feature = "recompute"),
            rebuild_through_freed: true,
            cost_model: None,
            budget_bytes: None,
            budget_from_free_memory: true,
            free_memory_margin: 0.5,
            least_free_memory_margin: 0.25,
            min_swap_bytes: 1 << 20,
            prefetch_lookahead_ops: None,
            profile_path: None,
            timing: false,
            on_budget_error: OnBudgetError::Panic,
            max_recorded_ops: 1 << 21,
            pinned_pool_bytes: default_pinned_pool_bytes(),
            pinned_chunk_bytes: 256 << 20,
            host_ram_reserve_bytes: 4 << 30,
            device_sample_ops: 1,
            sparsity_every: 500,
            device_sample_planned: false,
            swap_under_fusion: true,
            allocator: DeviceAllocator::Auto,
            release_after_bytes: None,
            reserve_pool: false,
            pool_keep_bytes: None,
            pool_cap: PoolCap::default(),
            budget_counts_unseen: true,
            rebuild_check_bytes: 512 << 20,
            runtime_failure_grace: Some(Duration::from_secs(30)),
        }
    }
}

impl SwapConfig {
    /// Whether device buffers are allocated exactly (see [`DeviceAllocator`]).
    pub fn exact_allocations(&self) -> bool {
        match self.allocator {
            DeviceAllocator::Auto => self.policy.moves_tensors(),
            DeviceAllocator::Exact => true,
            DeviceAllocator::Pooled => false,
        }
    }

    /// What the policy plans for, from this configuration.
    pub fn plan_params(&self) -> PlanParams {
        PlanParams {
            budget_bytes: self.budget_bytes,
            min_swap_bytes: self.min_swap_bytes,
            prefetch_lookahead_ops: self.prefetch_lookahead_ops,
            costs: self.cost_model.clone(),
            unseen_bytes: 0,
            host_budget_bytes: None,
            rebuild: self.rebuild && cfg!(feature = "recompute"),
            rebuild_through_freed: self.rebuild_through_freed,
            under_fusion: false,
        }
    }

    /// A builder starting from the defaults.
    pub fn builder() -> SwapConfigBuilder {
        SwapConfigBuilder {
            config: Self::default(),
        }
    }

    /// The defaults overridden by `BURN_SWAP_*` variables.
    pub fn try_from_env() -> Result<Self, SwapError> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// The defaults overridden by the variables `lookup` returns.
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, SwapError> {
        let mut config = Self::default();
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        if let Some(v) = var("BURN_SWAP_POLICY") {
            config.policy = policy_by_name(&v)?;
        }
        if let Some(v) = var("BURN_SWAP_REBUILD") {
            (config.rebuild, config.rebuild_through_freed) = match v.trim() {
                "on" | "1" | "true" | "yes" => (true, true),
                "saved" => (true, false),
                "off" | "0" | "false" | "no" => (false, false),
                _ => {
                    return Err(SwapError::Config(format!(
                        "BURN_SWAP_REBUILD={v}: `on`, `saved` or `off`"
                    )))
                }
            };
            if config.rebuild && !cfg!(feature = "recompute") {
                return Err(SwapError::Config(format!(
                    "BURN_SWAP_REBUILD={v}: burn-swap was built without its `recompute` feature"
                )));
            }
        }
        if let Some(v) = var("BURN_SWAP_COST_MODEL") {
            let costs = CostModel::load(v.trim())
                .map_err(|err| SwapError::Config(format!("BURN_SWAP_COST_MODEL={v}: {err}")))?;
            config.cost_model = Some(Arc::new(costs));
        }
        if let Some(v) = var("BURN_SWAP_BUDGET") {
            (config.budget_bytes, config.budget_from_free_memory) = parse_budget(&v)?;
        }
        if let Some(v) = var("BURN_SWAP_BUDGET_MARGIN") {
            (config.least_free_memory_margin, config.free_memory_margin) = parse_margin(&v)?;
        }
        if let Some(v) = var("BURN_SWAP_MIN_SWAP_BYTES") {
            config.min_swap_bytes = parse_bytes(&v)?;
        }
        if let Some(v) = var("BURN_SWAP_PREFETCH_OPS") {
            config.prefetch_lookahead_ops = match v.trim() {
                "auto" => None,
                n => Some(n.parse().map_err(|_| {
                    SwapError::Config(format!(
                        "BURN_SWAP_PREFETCH_OPS={v}: not a count of ops or `auto`"
                    ))
                })?),
            };
        }
        if let Some(v) = var("BURN_SWAP_PROFILE") {
            config.profile_path = Some(PathBuf::from(v));
        }
        if let Some(v) = var("BURN_SWAP_TIMING") {
            config.timing = matches!(v.trim(), "1" | "true" | "on" | "yes");
        }
        if let Some(v) = var("BURN_SWAP_PINNED_POOL") {
            config.pinned_pool_bytes = parse_bytes(&v)?;
        }
        if let Some(v) = var("BURN_SWAP_HOST_RESERVE") {
            config.host_ram_reserve_bytes = parse_bytes(&v)?;
        }
        if let Some(v) = var("BURN_SWAP_DEVICE_SAMPLE_OPS") {
            config.device_sample_ops = v.trim().parse().map_err(|_| {
                SwapError::Config(format!("BURN_SWAP_DEVICE_SAMPLE_OPS={v}: not a count"))
            })?;
        }
        if let Some(v) = var("BURN_SWAP_SPARSITY_EVERY") {
            config.sparsity_every = v.trim().parse().map_err(|_| {
                SwapError::Config(format!("BURN_SWAP_SPARSITY_EVERY={v}: not a count"))
            })?;
        }
        if let Some(v) = var("BURN_SWAP_DEVICE_SAMPLE_PLANNED") {
            config.device_sample_planned = matches!(v.trim(), "1" | "true" | "on" | "yes");
        }
        if let Some(v) = var("BURN_SWAP_UNDER_FUSION") {
            config.swap_under_fusion = !matches!(v.trim(), "0" | "false" | "off" | "no");
        }
        if let Some(v) = var("BURN_SWAP_ALLOCATOR") {
            config.allocator = match v.trim() {
                "auto" => DeviceAllocator::Auto,
                "exact" => DeviceAllocator::Exact,
                "pooled" => DeviceAllocator::Pooled,
                other => {
                    return Err(SwapError::Config(format!(
                        "BURN_SWAP_ALLOCATOR={other}: expected `auto`, `exact` or `pooled`"
                    )))
                }
            };
        }
        if let Some(v) = var("BURN_SWAP_RESERVE_POOL") {
            config.reserve_pool = matches!(v.trim(), "1" | "true" | "on" | "yes");
        }
        if let Some(v) = var("BURN_SWAP_POOL_KEEP") {
            config.pool_keep_bytes = Some(parse_bytes(&v)?);
        }
        if let Some(v) = var("BURN_SWAP_POOL_CAP") {
            config.pool_cap = match v.trim() {
                "off" | "none" => PoolCap::Off,
                "auto" | "half" => PoolCap::HalfFree,
                bytes => PoolCap::AtMost(parse_bytes(bytes)?),
            };
        }
        if let Some(v) = var("BURN_SWAP_BUDGET_COUNTS_UNSEEN") {
            config.budget_counts_unseen = !matches!(v.trim(), "0" | "false" | "off" | "no");
        }
        if let Some(v) = var("BURN_SWAP_REBUILD_CHECK") {
            config.rebuild_check_bytes = parse_bytes(&v)?;
        }
        if let Some(v) = var("BURN_SWAP_RELEASE_BYTES") {
            config.release_after_bytes = match v.trim() {
                "auto" => None,
                bytes => Some(parse_bytes(bytes)?),
            };
        }
        if let Some(v) = var("BURN_SWAP_RUNTIME_FAILURE_GRACE") {
            let seconds: f64 = v
                .trim()
                .parse()
                .ok()
                .filter(|s: &f64| *s >= 0.0 && s.is_finite())
                .ok_or_else(|| {
                    SwapError::Config(format!(
                        "BURN_SWAP_RUNTIME_FAILURE_GRACE={v}: not a number of seconds"
                    ))
                })?;
            config.runtime_failure_grace =
                (seconds > 0.0).then(|| Duration::from_secs_f64(seconds));
        }
        if let Some(v) = var("BURN_SWAP_ON_BUDGET_ERROR") {
            config.on_budget_error = match v.trim() {
                "panic" => OnBudgetError::Panic,
                "keep-all" => OnBudgetError::KeepAll,
                other => {
                    return Err(SwapError::Config(format!(
                        "BURN_SWAP_ON_BUDGET_ERROR={other}: expected `panic` or `keep-all`"
                    )))
                }
            };
        }
        Ok(config)
    }

    /// Like [`try_from_env`](Self::try_from_env), panicking with the error.
    pub fn from_env() -> Self {
        Self::try_from_env().unwrap_or_else(|err| panic!("{err}"))
    }
}

/// Builds a [`SwapConfig`].
#[derive(Debug, Clone)]
pub struct SwapConfigBuilder {
    config: SwapConfig,
}

impl SwapConfigBuilder {
    /// Starts from the environment instead of the defaults.
    pub fn from_env() -> Self {
        Self {
            config: SwapConfig::from_env(),
        }
    }
    /// The policy that makes the plan.
    pub fn policy(mut self, policy: impl Policy + 'static) -> Self {
        self.config.policy = Arc::new(policy);
        self
    }
    /// See [`SwapConfig::rebuild`].
    pub fn rebuild(mut self, on: bool) -> Self {
        self.config.rebuild = on;
        self
    }
    /// See [`SwapConfig::rebuild_through_freed`].
    pub fn rebuild_through_freed(mut self, on: bool) -> Self {
        self.config.rebuild_through_freed = on;
        self
    }
    /// See [`SwapConfig::cost_model`].
    pub fn cost_model(mut self, costs: CostModel) -> Self {
        self.config.cost_model = Some(Arc::new(costs));
        self
    }
    /// See [`SwapConfig::budget_bytes`].
    pub fn budget_bytes(mut self, bytes: u64) -> Self {
        self.config.budget_bytes = Some(bytes);
        self
    }
    /// Takes the budget from the device's free memory when no budget in
    /// bytes is given (see [`SwapConfig::budget_from_free_memory`]).
    pub fn budget_from_free_memory(mut self, on: bool) -> Self {
        self.config.budget_from_free_memory = on;
        self
    }
    /// Leaves `share` of the free memory free, fixed (see
    /// [`SwapConfig::free_memory_margin`]).
    pub fn free_memory_margin(mut self, share: f64) -> Self {
        self.config.free_memory_margin = share;
        self.config.least_free_memory_margin = share;
        self
    }
    /// Leaves `first` of the free memory free at first, and `least` where
    /// that leaves no plan or a slower one (see
    /// [`SwapConfig::free_memory_margin`]).
    pub fn free_memory_margins(mut self, least: f64, first: f64) -> Self {
        self.config.free_memory_margin = first;
        self.config.least_free_memory_margin = least;
        self
    }
    /// Smallest tensor worth a transfer.
    pub fn min_swap_bytes(mut self, bytes: u64) -> Self {
        self.config.min_swap_bytes = bytes;
        self
    }
    /// Bring swapped tensors back this many ops before their first backward
    /// use, instead of as early as the budget allows.
    pub fn prefetch_lookahead_ops(mut self, ops: u32) -> Self {
        self.config.prefetch_lookahead_ops = Some(ops);
        self
    }
    /// Write the profile and plan as JSON here whenever a plan is made.
    pub fn profile_json(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.profile_path = Some(path.into());
        self
    }
    /// Synchronise and time every op.
    pub fn timing(mut self, on: bool) -> Self {
        self.config.timing = on;
        self
    }
    /// What to do when no plan fits the budget.
    pub fn on_budget_error(mut self, action: OnBudgetError) -> Self {
        self.config.on_budget_error = action;
        self
    }
    /// Iterations longer than this are not profiled in full.
    pub fn max_recorded_ops(mut self, ops: usize) -> Self {
        self.config.max_recorded_ops = ops;
        self
    }
    /// Most pinned host memory the CUDA transfer engine takes.
    pub fn pinned_pool_bytes(mut self, bytes: u64) -> Self {
        self.config.pinned_pool_bytes = bytes;
        self
    }
    /// Host RAM the pinned pool always leaves available.
    pub fn host_ram_reserve_bytes(mut self, bytes: u64) -> Self {
        self.config.host_ram_reserve_bytes = bytes;
        self
    }
    /// See [`SwapConfig::swap_under_fusion`].
    pub fn swap_under_fusion(mut self, allow: bool) -> Self {
        self.config.swap_under_fusion = allow;
        self
    }

    /// See [`DeviceAllocator`].
    pub fn allocator(mut self, allocator: DeviceAllocator) -> Self {
        self.config.allocator = allocator;
        self
    }

    /// See [`SwapConfig::rebuild_check_bytes`].
    pub fn rebuild_check_bytes(mut self, bytes: u64) -> Self {
        self.config.rebuild_check_bytes = bytes;
        self
    }

    /// See [`SwapConfig::release_after_bytes`].
    pub fn release_after_bytes(mut self, bytes: u64) -> Self {
        self.config.release_after_bytes = Some(bytes);
        self
    }

    /// See [`SwapConfig::budget_counts_unseen`].
    pub fn budget_counts_unseen(mut self, on: bool) -> Self {
        self.config.budget_counts_unseen = on;
        self
    }

    /// See [`SwapConfig::pool_keep_bytes`].
    pub fn pool_keep_bytes(mut self, bytes: Option<u64>) -> Self {
        self.config.pool_keep_bytes = bytes;
        self
    }

    /// See [`SwapConfig::pool_cap`].
    pub fn pool_cap(mut self, cap: PoolCap) -> Self {
        self.config.pool_cap = cap;
        self
    }

    /// See [`SwapConfig::reserve_pool`].
    pub fn reserve_pool(mut self, on: bool) -> Self {
        self.config.reserve_pool = on;
        self
    }

    /// See [`SwapConfig::runtime_failure_grace`].
    pub fn runtime_failure_grace(mut self, grace: Option<Duration>) -> Self {
        self.config.runtime_failure_grace = grace;
        self
    }

    /// See [`SwapConfig::sparsity_every`].
    pub fn sparsity_every(mut self, iterations: u64) -> Self {
        self.config.sparsity_every = iterations;
        self
    }

    /// Read the device's real memory use every this many ops (0: phase boundaries only).
    pub fn device_sample_ops(mut self, ops: u32) -> Self {
        self.config.device_sample_ops = ops;
        self
    }
    /// See [`SwapConfig::device_sample_planned`].
    pub fn device_sample_planned(mut self, on: bool) -> Self {
        self.config.device_sample_planned = on;
        self
    }
    /// The configuration.
    pub fn build(self) -> SwapConfig {
        self.config
    }
}

/// Half the host's RAM: the pool only grows as far as the plan needs, and
/// the host RAM reserve is checked before every chunk as well.
fn default_pinned_pool_bytes() -> u64 {
    crate::host::meminfo("MemTotal").map_or(8 << 30, |total| total / 2)
}

/// A built-in policy by its name.
pub fn policy_by_name(name: &str) -> Result<Arc<dyn Policy>, SwapError> {
    policy::by_name_with_progress(name, Some(Arc::new(say_search_progress))).ok_or_else(|| {
        SwapError::Config(format!(
            "unknown policy `{}` (expected auto, keep-all, swap-all, compress-all, compress-all:CODEC with CODEC zvc, rle, csr, lz4 or bitmap, cswap, oracle, superneurons, capuchin or home)",
            name.trim()
        ))
    })
}

/// The particle swarm's progress on standard error, every tenth of its
/// rounds and at its last.
fn say_search_progress(p: policy::HomeProgress) {
    let step = (p.rounds / 10).max(1);
    if p.round.is_multiple_of(step) || p.last {
        let best = format!(
            "best plan {:.3} ms a step{}{}",
            p.best_ns / 1e6,
            if p.fits {
                ""
            } else {
                " (none under the budget yet)"
            },
            if p.last && p.round < p.rounds {
                ", no better one in the last rounds: done"
            } else {
                ""
            }
        );
        tracing::info!(round = p.round, rounds = p.rounds, "{best}");
        crate::notice::say(|| format!("planning (home): round {}/{}, {best}", p.round, p.rounds));
    }
}

/// Parses a budget as `BURN_SWAP_BUDGET` takes it: bytes (see
/// [`parse_bytes`]), `auto` (from the device's free memory) or `none`.
/// Returns [`SwapConfig::budget_bytes`] and
/// [`SwapConfig::budget_from_free_memory`].
pub fn parse_budget(text: &str) -> Result<(Option<u64>, bool), SwapError> {
    Ok(match text.trim() {
        "auto" => (None, true),
        "none" => (None, false),
        bytes => (Some(parse_bytes(bytes)?), false),
    })
}

/// Parses a share of a whole, `40%` or `0.4`, from 0 up to but not
/// including 1.
pub fn parse_share(text: &str) -> Result<f64, SwapError> {
    let t = text.trim();
    let share = match t.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().map(|p| p / 100.0),
        None => t.parse::<f64>(),
    };
    match share {
        Ok(share) if (0.0..1.0).contains(&share) => Ok(share),
        _ => Err(SwapError::Config(format!(
            "`{text}` is not a share from 0 to under 1 (`40%` or `0.4`)"
        ))),
    }
}

/// Parses a margin for a budget taken from the free memory: one share
/// (`40%`), fixed, or the least and the first share (`25%..50%`). Returns
/// `(least, first)`.
pub fn parse_margin(text: &str) -> Result<(f64, f64), SwapError> {
    match text.split_once("..") {
        None => parse_share(text).map(|share| (share, share)),
        Some((least, first)) => {
            let (least, first) = (parse_share(least)?, parse_share(first)?);
            if least > first {
                return Err(SwapError::Config(format!(
                    "`{text}`: the least share comes first (`25%..50%`)"
                )));
            }
            Ok((least, first))
        }
    }
}

/// Parses `123`, `64KiB`, `512MB`, `1.5GiB`, `2G` (binary units for `Ki`/`Mi`/`Gi`
/// and for bare `K`/`M`/`G`, decimal for `KB`/`MB`/`GB`).
pub fn parse_bytes(text: &str) -> Result<u64, SwapError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| SwapError::Config(format!("`{text}` is not a byte size")))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        other => {
            return Err(SwapError::Config(format!(
                "`{text}`: unknown unit `{other}`"
            )))
        }
    };
    Ok((value * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_parse_in_binary_and_decimal_units() {
        assert_eq!(parse_bytes("123").unwrap(), 123);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65536);
        assert_eq!(parse_bytes("1.5 GiB").unwrap(), 1_610_612_736);
        assert_eq!(parse_bytes("512MB").unwrap(), 512_000_000);
        assert_eq!(parse_bytes("2g").unwrap(), 2 << 30);
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("5 parsecs").is_err());
    }

    #[test]
    fn variables_override_the_defaults() {
        let vars = [
            ("BURN_SWAP_POLICY", "swap-all"),
            ("BURN_SWAP_BUDGET", "6GiB"),
            ("BURN_SWAP_MIN_SWAP_BYTES", "4KiB"),
            ("BURN_SWAP_PREFETCH_OPS", "8"),
            ("BURN_SWAP_PROFILE", "out/profile.json"),
            ("BURN_SWAP_TIMING", "1"),
            ("BURN_SWAP_ON_BUDGET_ERROR", "keep-all"),
            ("BURN_SWAP_ALLOCATOR", "pooled"),
            ("BURN_SWAP_RELEASE_BYTES", "0"),
            ("BURN_SWAP_RUNTIME_FAILURE_GRACE", "2.5"),
            ("BURN_SWAP_RESERVE_POOL", "1"),
            ("BURN_SWAP_POOL_KEEP", "2GiB"),
            ("BURN_SWAP_POOL_CAP", "1GiB"),
            ("BURN_SWAP_BUDGET_COUNTS_UNSEEN", "0"),
        ];
        let c = SwapConfig::from_vars(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
        .unwrap();
        assert_eq!(c.policy.name(), "swap-all");
        assert_eq!(c.budget_bytes, Some(6 << 30));
        assert_eq!(c.min_swap_bytes, 4096);
        assert_eq!(c.prefetch_lookahead_ops, Some(8));
        assert_eq!(
            c.profile_path.as_deref(),
            Some(std::path::Path::new("out/profile.json"))
        );
        assert!(c.timing);
        assert_eq!(c.on_budget_error, OnBudgetError::KeepAll);
        assert_eq!(c.allocator, DeviceAllocator::Pooled);
        assert!(!c.exact_allocations());
        assert_eq!(c.release_after_bytes, Some(0));
        assert_eq!(SwapConfig::default().release_after_bytes, None);
        assert!(c.reserve_pool);
        assert!(!SwapConfig::default().reserve_pool);
        assert_eq!(c.pool_keep_bytes, Some(2 << 30));
        assert_eq!(c.pool_cap, PoolCap::AtMost(1 << 30));
        let off =
            SwapConfig::from_vars(|name| (name == "BURN_SWAP_POOL_CAP").then(|| "off".to_string()))
                .unwrap();
        assert_eq!(off.pool_cap, PoolCap::Off);
        assert_eq!(SwapConfig::default().pool_cap, PoolCap::HalfFree);
        assert!(!c.budget_counts_unseen);
        assert!(SwapConfig::default().budget_counts_unseen);
        assert_eq!(c.runtime_failure_grace, Some(Duration::from_millis(2500)));
        let forever =
            SwapConfig::from_vars(|n| (n == "BURN_SWAP_RUNTIME_FAILURE_GRACE").then(|| "0".into()))
                .unwrap();
        assert_eq!(forever.runtime_failure_grace, None);
        assert!(SwapConfig::from_vars(|n| {
            (n == "BURN_SWAP_RUNTIME_FAILURE_GRACE").then(|| "-1".into())
        })
        .is_err());
    }

    #[test]
    fn a_cost_model_is_read_from_its_file() {
        let costs = CostModel {
            link: crate::policy::LinkModel::symmetric(50e9, 40e9, 5_000.0),
            codecs: None,
        };
        let path =
            std::env::temp_dir().join(format!("burn-swap-costs-{}.json", std::process::id()));
        costs.save(&path).unwrap();
        let file = path.display().to_string();
        let c =
            SwapConfig::from_vars(|name| (name == "BURN_SWAP_COST_MODEL").then(|| file.clone()))
                .unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(c.cost_model.as_deref(), Some(&costs));
        assert_eq!(c.plan_params().costs.as_deref(), Some(&costs));
        let err = SwapConfig::from_vars(|name| {
            (name == "BURN_SWAP_COST_MODEL").then(|| "/no/such/costs.json".to_string())
        })
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("BURN_SWAP_COST_MODEL=/no/such/costs.json"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_variable_is_a_clear_error() {
        let err = SwapConfig::from_vars(|name| {
            (name == "BURN_SWAP_POLICY").then(|| "swap-most".to_string())
        })
        .unwrap_err();
        assert!(
            err.to_string().contains("unknown policy `swap-most`"),
            "{err}"
        );
        let none = SwapConfig::from_vars(|_| None).unwrap();
        assert_eq!(none.policy.name(), "auto");
        assert_eq!(none.rebuild, cfg!(feature = "recompute"));
        assert_eq!(none.budget_bytes, None);
        assert_eq!(none.prefetch_lookahead_ops, None);
        // Until the executor chooses a policy that moves tensors, the
        // runtime's pools stay as they are.
        assert!(!none.exact_allocations());
        let rebuild = |value: &str| {
            SwapConfig::from_vars(|name| (name == "BURN_SWAP_REBUILD").then(|| value.to_string()))
                .map(|config| config.plan_params().rebuild)
        };
        assert!(!rebuild("off").unwrap());
        assert_eq!(rebuild("on").is_ok(), cfg!(feature = "recompute"));
        assert_eq!(rebuild("saved").is_ok(), cfg!(feature = "recompute"));
        if cfg!(feature = "recompute") {
            let saved = SwapConfig::from_vars(|name| {
                (name == "BURN_SWAP_REBUILD").then(|| "saved".to_string())
            })
            .unwrap();
            assert!(!saved.plan_params().rebuild_through_freed);
        }
        assert!(rebuild("sometimes").is_err());
        let auto = SwapConfig::from_vars(|name| {
            (name == "BURN_SWAP_PREFETCH_OPS").then(|| "auto".to_string())
        })
        .unwrap();
        assert_eq!(auto.prefetch_lookahead_ops, None);
    }

    #[test]
    fn the_budget_is_bytes_the_free_memory_or_none() {
        let budget = |value: &str| {
            let config = SwapConfig::from_vars(|name| {
                (name == "BURN_SWAP_BUDGET").then(|| value.to_string())
            })
            .unwrap();
            (config.budget_bytes, config.budget_from_free_memory)
        };
        assert_eq!(budget(""), (None, true));
        assert_eq!(budget("auto"), (None, true));
        assert_eq!(budget("none"), (None, false));
        assert_eq!(budget("2GiB"), (Some(2 << 30), false));
        assert_eq!(parse_share("40%").unwrap(), 0.4);
        assert_eq!(parse_share(" 0.5 ").unwrap(), 0.5);
        assert!(parse_share("100%").is_err());
        assert!(parse_share("-0.1").is_err());
        assert!(parse_share("a third").is_err());
        assert_eq!(parse_margin("40%").unwrap(), (0.4, 0.4));
        assert_eq!(parse_margin("25%..50%").unwrap(), (0.25, 0.5));
        assert_eq!(parse_margin("0.1 .. 0.3").unwrap(), (0.1, 0.3));
        assert!(parse_margin("50%..25%").is_err());
        assert!(parse_margin("25%..").is_err());
    }
}
