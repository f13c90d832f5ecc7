//! Moving tensor data between the device and the host, bit for bit and
//! layout for layout.
//!
//! A tensor must come back exactly as it left: same bytes and same strides.
//! The backend's own read (`float_into_data`) returns contiguous data, and an
//! op on a transposed view and on its contiguous copy may take different
//! kernel paths that round differently, so each backend family whose
//! primitive exposes its layout gets an engine that copies the underlying
//! storage verbatim:
//! - `flex`: Flex tensors (storage bytes plus layout), synchronous.
//! - `cube` (features `cuda`, `wgpu`): CubeCL buffers with their layout. On
//!   CUDA through `cuda`, a bounded pinned pool and copy threads of its
//!   own, asynchronous in both directions; elsewhere CubeCL's own reads.
//! - `fused` (same features): tensors of burn's fusion backend (`Cuda`,
//!   `Wgpu`), taken out of fusion without changing what it runs.
//!
//! Other backends use the generic path through `float_into_data` and
//! `float_from_data`: values are exact, the layout becomes contiguous.
//!
//! [`HostTensor`] is the engine's public face (used by the benchmarks);
//! inside burn-swap, handles call the crate-level functions.

#[cfg(any(feature = "cuda", feature = "wgpu"))]
mod cube;
#[cfg(feature = "cuda")]
pub mod cuda;
mod flex;
#[cfg(any(feature = "cuda", feature = "wgpu"))]
mod fused;
#[cfg(all(feature = "compression", any(feature = "cuda", feature = "wgpu")))]
mod packed;

use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use burn_backend::{read_sync, Backend, ExecutionError, TensorData};
use burn_flex::FlexTensor;

use burn_swap_plan::profile::Sparsity;
pub use burn_swap_plan::profile::{DeviceReport, DeviceUsage};

use crate::config::SwapConfig;
use crate::policy::Codec;
use crate::rebuild_check::RebuildCheck;

/// What the engines may do, from the configuration of the thread that
/// moves the tensor.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TransferOptions {
    /// Move tensors of burn's fusion backend.
    #[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]
    pub swap_under_fusion: bool,
    /// The CUDA engine's pinned pool, taken when a device's engine is made.
    #[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]
    pub pinned: PinnedLimits,
}

impl TransferOptions {
    /// The options `config` sets.
    pub(crate) fn of(config: &SwapConfig) -> Self {
        Self {
            swap_under_fusion: config.swap_under_fusion,
            pinned: PinnedLimits {
                pool_bytes: config.pinned_pool_bytes,
                chunk_bytes: config.pinned_chunk_bytes,
                host_reserve_bytes: config.host_ram_reserve_bytes,
            },
        }
    }
}

/// Counts a host copy's zero elements once the copy is on the host (what
/// ZVC drops: elements whose bits are all zero), and whether its non-zero
/// elements share one bit pattern (what the bitmap codec needs), off the
/// training thread. Dropped without counting (the copy failed or never
/// started), it tells its [`ZeroCount`] that nothing will come.
pub(crate) struct ZeroCounter(std::sync::mpsc::SyncSender<Sparsity>);

/// The other end of a [`ZeroCounter`].
pub(crate) struct ZeroCount(std::sync::mpsc::Receiver<Sparsity>);

/// A counter and what it will count into.
pub(crate) fn zero_count() -> (ZeroCounter, ZeroCount) {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    (ZeroCounter(tx), ZeroCount(rx))
}

impl ZeroCounter {
    /// Counts `bytes`, holding elements of `elem_bytes` (2, or 4-byte words
    /// for anything else).
    #[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]
    pub(crate) fn count(self, bytes: &[u8], elem_bytes: usize) {
        let _ = self.0.send(sparsity_of(bytes, elem_bytes));
    }
}

impl ZeroCount {
    /// The count, waiting for it; `None` if nothing was counted. A copy
    /// still waiting to leave after this long (its count would come later)
    /// is not waited for.
    pub(crate) fn wait(self) -> Option<Sparsity> {
        self.0.recv_timeout(std::time::Duration::from_secs(10)).ok()
    }
}

/// The fraction of all-zero elements of `elem_bytes` in `bytes`, and
/// whether the others all have one bit pattern.
fn sparsity_of(bytes: &[u8], elem_bytes: usize) -> Sparsity {
    fn count(elements: impl Iterator<Item = u32>) -> (usize, usize, bool) {
        let (mut len, mut zeros, mut value, mut two_valued) = (0, 0, None, true);
        for e in elements {
            len += 1;
            if e == 0 {
                zeros += 1;
            } else if *value.get_or_insert(e) != e {
                two_valued = false;
            }
        }
        (len, zeros, two_valued)
    }
    let (elements, zeros, two_valued) = if elem_bytes == 2 {
        count(
            bytes
                .chunks_exact(2)
                .map(|e| u16::from_ne_bytes([e[0], e[1]]) as u32),
        )
    } else {
        count(
            bytes
                .chunks_exact(4)
                .map(|e| u32::from_ne_bytes([e[0], e[1], e[2], e[3]])),
        )
    };
    Sparsity {
        zero_fraction: zeros as f32 / elements.max(1) as f32,
        two_valued: Some(two_valued),
    }
}

/// Limits of the CUDA engine's pinned host pool.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct PinnedLimits {
    /// Most page-locked host memory the pool takes.
    pub pool_bytes: u64,
    /// Size of each chunk it takes from the driver.
    pub chunk_bytes: u64,
    /// Host RAM it always leaves available.
    pub host_reserve_bytes: u64,
}

/// A tensor's data while it is off the device.
pub(crate) enum HostCopy {
    /// Contiguous data from the backend's own read.
    Data(TensorData),
    /// A Flex tensor's storage and layout.
    Flex(flex::FlexCopy),
    /// A Flex tensor's storage, compressed, and its layout.
    #[cfg(feature = "compression")]
    FlexCompressed(flex::CompressedFlexCopy),
    /// A device buffer an engine copied (possibly still copying).
    #[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]
    Device(Box<dyn DeviceCopy>),
}

/// A device buffer on the host, seen without its runtime type.
pub(crate) trait DeviceCopy: Send {
    /// The device-to-host copy has not finished.
    fn in_flight(&self) -> bool;
    /// Blocks until the device-to-host copy finished (where it can).
    fn wait(&self);
    /// [`Self::wait`] would wait for the copy (a copy that has not started
    /// yet, because the ops before it have not run, cannot be waited for).
    fn waitable(&self) -> bool {
        true
    }
    /// Starts the copy back.
    fn prefetch(self: Box<Self>) -> Box<dyn DeviceLoad>;
    /// The primitive back on the device now.
    fn load(self: Box<Self>) -> Box<dyn Any + Send>;
}

/// A device buffer on its way back, seen without its runtime type.
pub(crate) trait DeviceLoad: Send {
    /// The data is on the device: collecting it will not wait.
    fn landed(&self) -> bool;
    /// The download it comes from is still running.
    fn download_in_flight(&self) -> bool;
    /// Blocks until that download finished.
    fn wait_downloaded(&self);
    /// The device bytes it holds until collected, where fewer than the
    /// tensor's: a compressed copy comes back into a buffer of its own size
    /// and is decompressed only when collected. `None`: the tensor's bytes.
    fn held_bytes(&self) -> Option<u64> {
        None
    }
    /// The primitive, waiting for its copy if needed.
    fn collect(self: Box<Self>) -> Box<dyn Any + Send>;
}

/// A tensor on its way back to the device.
pub(crate) enum Incoming<P> {
    /// Already back.
    Ready(P),
    /// An engine's copy back.
    Device(Box<dyn DeviceLoad>),
}

impl<P> Incoming<P> {
    /// The data is on the device: collecting it will not wait for a copy.
    pub(crate) fn landed(&self) -> bool {
        match self {
            Incoming::Ready(_) => true,
            Incoming::Device(load) => load.landed(),
        }
    }

    /// The download this copy comes from is still running (a prefetch may
    /// start before it ends), so the old device buffer is still held.
    pub(crate) fn download_in_flight(&self) -> bool {
        match self {
            Incoming::Ready(_) => false,
            Incoming::Device(load) => load.download_in_flight(),
        }
    }

    /// Blocks until the download this copy comes from finished.
    pub(crate) fn wait_downloaded(&self) {
        if let Incoming::Device(load) = self {
            load.wait_downloaded();
        }
    }

    /// The device bytes it holds until collected, where fewer than the
    /// tensor's (see [`DeviceLoad::held_bytes`]).
    pub(crate) fn held_bytes(&self) -> Option<u64> {
        match self {
            Incoming::Ready(_) => None,
            Incoming::Device(load) => load.held_bytes(),
        }
    }
}

/// Swapped tensors compressed before they left the device, since the
/// process started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompressionStats {
    /// Tensors compressed.
    pub tensors: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes that crossed the link for them.
    pub compressed_bytes: u64,
    /// Compressions queued on the device (`tensors` counts those whose copy
    /// reached the host).
    pub compressions: u64,
    /// Time the training thread spent queuing them (the codecs' allocations
    /// and kernel launches, not the kernels' run on the device).
    pub compress_queue_ns: u64,
    /// Tensors the plan compressed that were swapped uncompressed instead,
    /// because compressing them failed.
    pub sent_uncompressed: u64,
    /// Decompressions queued on the device.
    pub decompressions: u64,
    /// Time the training thread spent queuing them.
    pub decompress_queue_ns: u64,
}

static COMPRESSION: std::sync::Mutex<CompressionStats> = std::sync::Mutex::new(CompressionStats {
    tensors: 0,
    bytes: 0,
    compressed_bytes: 0,
    compressions: 0,
    compress_queue_ns: 0,
    sent_uncompressed: 0,
    decompressions: 0,
    decompress_queue_ns: 0,
});

/// Adds the time one compression (`compress`) or decompression took to queue.
#[cfg_attr(not(feature = "compression"), allow(dead_code))]
fn count_codec_queue(compress: bool, took: std::time::Duration) {
    let mut stats = COMPRESSION.lock().unwrap_or_else(|p| p.into_inner());
    let ns = took.as_nanos() as u64;
    if compress {
        stats.compressions += 1;
        stats.compress_queue_ns += ns;
    } else {
        stats.decompressions += 1;
        stats.decompress_queue_ns += ns;
    }
}

#[cfg_attr(not(feature = "compression"), allow(dead_code))]
fn count_compressed(bytes: u64, compressed_bytes: u64) {
    let mut stats = COMPRESSION.lock().unwrap_or_else(|p| p.into_inner());
    stats.tensors += 1;
    stats.bytes += bytes;
    stats.compressed_bytes += compressed_bytes;
}

/// Offloads `tensor` with `compressed`; where compressing it fails (not the
/// pinned pool or the copy engine), offloads it with `plain` instead and
/// says so once. A plan's codec only makes the copy faster: the swap is what
/// frees the device memory the plan counts on.
#[cfg_attr(not(feature = "compression"), allow(dead_code))]
fn compressed_or_plain<T, C>(
    tensor: T,
    compressed: impl FnOnce(T) -> Result<C, (TransferError, T)>,
    plain: impl FnOnce(T) -> Result<C, (TransferError, T)>,
) -> Result<C, (TransferError, T)> {
    match compressed(tensor) {
        Err((TransferError::Compress(why) | TransferError::Unsupported(why), tensor)) => {
            COMPRESSION
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .sent_uncompressed += 1;
            crate::notice::once("compression failed", || {
                format!("compressing a swapped tensor failed ({why}): it and any other such tensor are swapped uncompressed (`CompressionStats::sent_uncompressed` counts them)")
            });
            plain(tensor)
        }
        other => other,
    }
}

/// What compression did to swapped tensors so far.
pub fn compression_stats() -> CompressionStats {
    *COMPRESSION.lock().unwrap_or_else(|p| p.into_inner())
}

/// Pinned-pool refusals since the executor last took them, and the first
/// reason: the pool refuses on whichever thread copies (the training
/// thread, or a data loader's whose op moved the pending offloads on), the
/// executor sums them up at the end of the iteration. Process-wide for that
/// reason; per thread under test, where tests run side by side in threads of
/// one process and each executor must see only its own.
type PoolRefusals = (u64, Option<String>);

#[cfg(not(test))]
fn with_pool_refusals<T>(f: impl FnOnce(&mut PoolRefusals) -> T) -> T {
    static POOL_REFUSALS: std::sync::Mutex<PoolRefusals> = std::sync::Mutex::new((0, None));
    f(&mut POOL_REFUSALS.lock().unwrap_or_else(|p| p.into_inner()))
}

#[cfg(test)]
fn with_pool_refusals<T>(f: impl FnOnce(&mut PoolRefusals) -> T) -> T {
    thread_local! {
        static POOL_REFUSALS: std::cell::RefCell<PoolRefusals> = const { std::cell::RefCell::new((0, None)) };
    }
    POOL_REFUSALS.with(|refusals| f(&mut refusals.borrow_mut()))
}

/// Counts a refusal of the pinned pool.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn pool_refused(why: &str) {
    with_pool_refusals(|refusals| {
        refusals.0 += 1;
        refusals.1.get_or_insert_with(|| why.to_string());
    });
}

/// The pinned-pool refusals since the last call, and the first reason.
pub(crate) fn take_pool_refusals() -> PoolRefusals {
    with_pool_refusals(std::mem::take)
}

/// Why a transfer did not happen. In every case the tensor stays on the device.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The backend failed to read the tensor.
    #[error("reading the tensor back from the device failed: {0:?}")]
    Read(ExecutionError),
    /// The pinned pool had no room (or the host RAM guard said no).
    #[error("{0}")]
    Pool(String),
    /// The copy engine could not start or stopped.
    #[error("transfer engine: {0}")]
    Engine(String),
    /// The engine does not move this kind of tensor.
    #[error("unsupported tensor for the transfer engine: {0}")]
    Unsupported(String),
    /// Compressing the tensor failed.
    #[error("compressing the tensor: {0}")]
    Compress(String),
}

/// The device memory a backend really uses, and where burn-swap can manage
/// it, the runtime's allocator. Backends whose runtime does not say (Flex,
/// ndarray) report `None` and ignore the rest.
pub trait DeviceMemory: Send {
    /// Usage now, over all streams burn-swap uses.
    fn usage(&self) -> Option<DeviceUsage>;
    /// With `on`, new buffers of the calling thread's stream are allocations
    /// of their own size (instead of slices of the runtime's large pages),
    /// so that memory burn-swap frees can serve any later allocation; else
    /// the runtime's own pools.
    fn exact_allocations(&self, on: bool) {
        let _ = on;
    }
    /// Gives the free buffers of the calling thread's stream back (queued,
    /// does not wait).
    fn release_free(&self) {}
    /// Until the returned guard is dropped, gives the free buffers of the
    /// calling thread's stream and the driver's unused pool memory back
    /// every few milliseconds from another thread, also while the runtime
    /// autotunes an op, whenever the driver reports less free memory than
    /// `watch.free_below` (`u64::MAX`: always). Each time it also leaves
    /// the driver's reading in `watch` and trims the pool where asked.
    /// Exact allocations only; see `cuda::Reclaimer`.
    fn reclaim(&self, watch: Arc<DriverWatch>) -> Option<Box<dyn Send>> {
        let _ = watch;
        None
    }
    /// Returns memory the driver's allocator holds unused to the device, so
    /// that the next iteration starts from memory in one piece.
    fn trim(&self) {}
    /// Reserves the device's free memory, at most `at_most` bytes, in the
    /// driver's allocator as one range that buffers are carved from and
    /// freed back into (exact allocations; see `cuda::reserve_pool`).
    fn reserve_one_range(&self, at_most: u64) {
        let _ = at_most;
    }
    /// Caps what the driver's allocator may hold at `bytes`; larger needs
    /// become allocations of their own (see `cuda::cap_pool`).
    fn cap_allocator(&self, bytes: u64) {
        let _ = bytes;
    }
    /// The least free memory the driver had outside its allocator since
    /// the last call, where something sampled it (the reclaimer, CUDA).
    fn least_free_outside_allocator(&self) -> Option<u64> {
        None
    }
    /// Lets the driver's allocator keep up to `bytes` unused from now on
    /// (trims and synchronisations leave them), so that buffers freed in one
    /// step serve the next without new memory from the driver.
    fn keep_in_pool(&self, bytes: u64) {
        let _ = bytes;
    }
    /// Bytes the driver's allocator holds unused (what [`Self::trim`] gives
    /// back), if known.
    fn allocator_unused(&self) -> Option<u64> {
        None
    }
    /// Restarts the high-water mark of the bytes in the driver's allocator's
    /// buffers and returns the bytes in them now, if the allocator keeps one.
    fn restart_allocator_peak(&self) -> Option<u64> {
        None
    }
    /// The most bytes in the driver's allocator's buffers since
    /// [`Self::restart_allocator_peak`], if known.
    fn allocator_peak(&self) -> Option<u64> {
        None
    }
    /// Free and total device memory straight from the driver (no runtime
    /// call, so it answers after the runtime failed).
    fn driver_free_total(&self) -> Option<(u64, u64)> {
        None
    }
    /// Device memory free for new buffers (the driver's free memory and
    /// what its allocator holds unused) and the total, where the driver
    /// says them.
    fn free_for_buffers(&self) -> Option<(u64, u64)> {
        let (free, total) = self.driver_free_total()?;
        Some((free + self.allocator_unused().unwrap_or(0), total))
    }
    /// Host bytes the transfer engine's pinned pool can hold for swapped
    /// tensors, where a pool bounds them: one of at most `pool_bytes` that
    /// leaves the host `host_reserve_bytes` of RAM (see
    /// `cuda::pinned_capacity`).
    fn pinned_capacity(&self, pool_bytes: u64, host_reserve_bytes: u64) -> Option<u64> {
        let _ = (pool_bytes, host_reserve_bytes);
        None
    }
    /// The host link as swaps will use it, timed on the device, where the
    /// backend has one to time (CUDA).
    fn measure_link(&self) -> Option<crate::policy::LinkModel> {
        None
    }
    /// The bitmap codec's time model, timed on the device with tensors of
    /// at most `largest_bytes`, where the backend runs the codecs (CUDA,
    /// feature `compression`).
    fn time_bitmap(&self, largest_bytes: u64) -> Option<crate::policy::CodecTimeModel> {
        let _ = largest_bytes;
        None
    }
}

/// What a training thread shares with the thread that reclaims device
/// memory for it ([`DeviceMemory::reclaim`]): when to reclaim, the trims it
/// asks for, and the driver's latest reading. The driver's calls take
/// 0.1-0.25 ms each while CubeCL's thread launches work (GPT-small b4 on an
/// H200 spent 20 ms of its step in 112 reads, and trims after releases were
/// most of the 50 ms its releases took), so the training thread reads the
/// reading, not the driver.
#[derive(Debug)]
pub struct DriverWatch {
    /// Reclaim while the driver's free memory and what its pool holds
    /// unused come to less than this (`u64::MAX`: always).
    pub free_below: AtomicU64,
    /// Bytes the training thread's tensors held when it last looked: each
    /// reading carries the value it had when the driver was read.
    tracked: AtomicU64,
    trim_wanted: AtomicBool,
    latest: Mutex<Option<DriverReading>>,
}

/// The device's memory as the driver said it, off the training thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverReading {
    /// When the driver was asked.
    pub at: Instant,
    /// Free memory and what the driver's pool held unused.
    pub free_for_buffers: u64,
    /// The device's memory.
    pub total: u64,
    /// `DriverWatch::tracked` just before the driver was read.
    pub tracked: u64,
}

impl DriverReading {
    /// Device memory in buffers (the driver's pool's unused memory not
    /// counted).
    pub fn used(&self) -> u64 {
        self.total.saturating_sub(self.free_for_buffers)
    }
}

impl DriverWatch {
    /// Reclaiming below `free_below`, with no reading yet.
    pub fn new(free_below: u64) -> Self {
        Self {
            free_below: AtomicU64::new(free_below),
            tracked: AtomicU64::new(0),
            trim_wanted: AtomicBool::new(false),
            latest: Mutex::new(None),
        }
    }

    /// The training thread: what its tensors hold now.
    pub fn note_tracked(&self, bytes: u64) {
        self.tracked.store(bytes, Ordering::Relaxed);
    }

    /// The training thread: trim the driver's pool at the next reading.
    pub fn want_trim(&self) {
        self.trim_wanted.store(true, Ordering::Release);
    }

    /// The reclaimer: whether a trim was asked for since it last looked.
    pub fn take_trim(&self) -> bool {
        self.trim_wanted.swap(false, Ordering::AcqRel)
    }

    /// The reclaimer: reads the driver with `read` (free for buffers,
    /// total) and leaves the reading.
    pub fn read_with(&self, read: impl FnOnce() -> Option<(u64, u64)>) -> Option<DriverReading> {
        let tracked = self.tracked.load(Ordering::Relaxed);
        let at = Instant::now();
        let (free_for_buffers, total) = read()?;
        let reading = DriverReading {
            at,
            free_for_buffers,
            total,
            tracked,
        };
        *self.latest.lock().unwrap_or_else(|e| e.into_inner()) = Some(reading);
        Some(reading)
    }

    /// The latest reading, if any.
    pub fn latest(&self) -> Option<DriverReading> {
        *self.latest.lock().unwrap_or_else(|e| e.into_inner())
    }
}

struct NoProbe;

impl DeviceMemory for NoProbe {
    fn usage(&self) -> Option<DeviceUsage> {
        None
    }
}

/// The device-memory probe for `B`'s devices.
pub(crate) fn memory_probe<B: Backend>(device: &B::Device) -> Box<dyn DeviceMemory> {
    #[cfg(feature = "cuda")]
    if let Some(device) = (device as &dyn Any).downcast_ref::<cubecl::cuda::CudaDevice>() {
        use cubecl::Runtime;
        struct CudaProbe {
            device: cubecl::cuda::CudaDevice,
            /// Not tied to a stream: each call acts on the caller's.
            client: cubecl::client::ComputeClient<cubecl::cuda::CudaRuntime>,
        }
        impl DeviceMemory for CudaProbe {
            fn usage(&self) -> Option<DeviceUsage> {
                cuda::device_usage(&self.device)
            }
            fn exact_allocations(&self, on: bool) {
                cuda::exact_allocations(&self.client, on)
            }
            fn release_free(&self) {
                cuda::release_free(&self.client, &self.device)
            }
            fn reclaim(&self, watch: Arc<DriverWatch>) -> Option<Box<dyn Send>> {
                cuda::Reclaimer::start(&self.client, &self.device, watch)
                    .map(|r| Box::new(r) as Box<dyn Send>)
            }
            fn trim(&self) {
                cuda::trim_pool(&self.device)
            }
            fn allocator_unused(&self) -> Option<u64> {
                cuda::pool_unused(&self.device)
            }
            fn restart_allocator_peak(&self) -> Option<u64> {
                cuda::restart_pool_high_water(&self.client, &self.device)
            }
            fn allocator_peak(&self) -> Option<u64> {
                cuda::pool_high_water(&self.client, &self.device)
            }
            fn reserve_one_range(&self, at_most: u64) {
                cuda::reserve_pool(&self.device, at_most)
            }
            fn keep_in_pool(&self, bytes: u64) {
                cuda::keep_in_pool(&self.device, bytes)
            }
            fn cap_allocator(&self, bytes: u64) {
                cuda::cap_pool(&self.device, bytes)
            }
            fn least_free_outside_allocator(&self) -> Option<u64> {
                cuda::least_free_outside_pool()
            }
            fn driver_free_total(&self) -> Option<(u64, u64)> {
                cuda::driver_free_total(&self.device)
            }
            fn pinned_capacity(&self, pool_bytes: u64, host_reserve_bytes: u64) -> Option<u64> {
                Some(cuda::pinned_capacity(
                    &self.device,
                    pool_bytes,
                    host_reserve_bytes,
                ))
            }
            fn measure_link(&self) -> Option<crate::policy::LinkModel> {
                cuda::measure_link(&self.device)
                    .map_err(|err| tracing::warn!(%err, "the host link could not be measured"))
                    .ok()
            }
            #[cfg(feature = "compression")]
            fn time_bitmap(&self, largest_bytes: u64) -> Option<crate::policy::CodecTimeModel> {
                packed::time_bitmap(&self.client, largest_bytes)
                    .map_err(|err| tracing::warn!(%err, "the bitmap codec could not be timed"))
                    .ok()
            }
        }
        return Box::new(CudaProbe {
            device: device.clone(),
            client: cubecl::cuda::CudaRuntime::client(device),
        });
    }
    let _ = device;
    Box::new(NoProbe)
}

/// Moves a value whose concrete type is known at run time only.
fn cast<T: 'static, U: 'static>(value: T) -> Option<U> {
    let mut slot = Some(value);
    (&mut slot as &mut dyn Any)
        .downcast_mut::<Option<U>>()
        .and_then(Option::take)
}

/// Offloads `primitive` if it is runtime `R`'s fusion or CubeCL tensor
/// (`Err` hands it on untouched otherwise).
#[cfg(any(feature = "cuda", feature = "wgpu"))]
#[allow(clippy::type_complexity, clippy::result_large_err)]
fn offload_cube<P: Send + 'static, R: burn_cubecl::CubeRuntime>(
    primitive: P,
    options: &TransferOptions,
    codec: Option<Codec>,
    zeros: &mut Option<ZeroCounter>,
) -> Result<Result<HostCopy, (TransferError, P)>, P> {
    let any = &primitive as &dyn Any;
    if any.is::<fused::FusedTensor<R>>() {
        let tensor: fused::FusedTensor<R> = cast(primitive).expect("type checked");
        if !options.swap_under_fusion {
            return Ok(Err((
                TransferError::Unsupported(
                    "swapping under fusion is turned off (BURN_SWAP_UNDER_FUSION=0, \
                     SwapConfig::swap_under_fusion)"
                        .into(),
                ),
                cast(tensor).expect("type checked"),
            )));
        }
        return Ok(fused::offload(tensor, options.pinned, codec, zeros.take())
            .map(|copy| HostCopy::Device(Box::new(copy)))
            .map_err(|(err, back)| (err, cast(back).expect("type checked"))));
    }
    if any.is::<burn_cubecl::tensor::CubeTensor<R>>() {
        let tensor: burn_cubecl::tensor::CubeTensor<R> = cast(primitive).expect("type checked");
        return Ok(cube::offload(tensor, &options.pinned, codec, zeros.take())
            .map(|copy| HostCopy::Device(Box::new(copy)))
            .map_err(|(err, back)| (err, cast(back).expect("type checked"))));
    }
    Err(primitive)
}

/// What a new handle of `primitive` must hold while it lives: for a fusion
/// tensor, its count of handles (a tensor two handles share is never moved).
pub(crate) fn note_new<P: 'static>(primitive: &P) -> Option<Holder> {
    let any = primitive as &dyn Any;
    #[cfg(feature = "cuda")]
    if let Some(t) = any.downcast_ref::<fused::FusedTensor<cubecl::cuda::CudaRuntime>>() {
        return Some(Holder {
            _count: fused::note_new(t),
        });
    }
    #[cfg(feature = "wgpu")]
    if let Some(t) = any.downcast_ref::<fused::FusedTensor<cubecl::wgpu::WgpuRuntime>>() {
        return Some(Holder {
            _count: fused::note_new(t),
        });
    }
    let _ = any;
    None
}

/// A primitive whose type is known at run time only.
pub(crate) type AnyPrimitive = Box<dyn Any + Send>;
/// An op run again on such primitives.
pub(crate) type AnyReplay<'a> = Box<dyn FnOnce(Vec<AnyPrimitive>) -> AnyPrimitive + 'a>;

/// A tensor freed for its rebuild by an engine that keeps the tensor itself
/// (under fusion: the tensor stays, with its id; its buffer goes).
pub(crate) trait Released: Send {
    /// The tensor again, as a boxed primitive; see [`rebuild_released`].
    fn rebuild(
        self: Box<Self>,
        id: crate::handle::TensorId,
        inputs: Box<dyn FnOnce() -> Vec<AnyPrimitive> + '_>,
        replay: AnyReplay<'_>,
    ) -> RebuiltBy;
}

/// What [`Released::rebuild`] gives back.
pub(crate) struct RebuiltBy {
    pub tensor: AnyPrimitive,
    /// Its op ran again (the buffer was not still there).
    pub rebuilt: bool,
    /// The buffer kept aside and the rebuild, to compare.
    pub check: Option<Box<dyn RebuildCheck>>,
}

/// How a tensor is freed for its rebuild.
#[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]
pub(crate) enum Release<P> {
    /// Its engine holds it meanwhile.
    Engine(Box<dyn Released>),
    /// By dropping it: no engine keeps it.
    Drop(P),
    /// Not at all: another live tensor shares it.
    Refused(P),
}

/// Frees `primitive` for its rebuild (keeps it aside for a check with
/// `keep_aside`, where an engine holds it). Under fusion the tensor must
/// stay live for fusion, as it does without burn-swap: dropped, fusion
/// would run other blocks (kernels that round otherwise).
#[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(unused_variables))]
pub(crate) fn release_for_rebuild<B: Backend>(
    primitive: B::FloatTensorPrimitive,
    keep_aside: bool,
    stand_in: Option<StandIn<'_, B::FloatTensorPrimitive>>,
) -> Release<B::FloatTensorPrimitive> {
    #[cfg(feature = "cuda")]
    let (primitive, stand_in) =
        match release_fused::<_, cubecl::cuda::CudaRuntime>(primitive, keep_aside, stand_in) {
            Ok(release) => return release,
            Err(back) => back,
        };
    #[cfg(feature = "wgpu")]
    let (primitive, stand_in) =
        match release_fused::<_, cubecl::wgpu::WgpuRuntime>(primitive, keep_aside, stand_in) {
            Ok(release) => return release,
            Err(back) => back,
        };
    drop(stand_in);
    Release::Drop(primitive)
}

/// The tensor whose buffer stands in for one freed for its rebuild: its
/// primitive, and what keeps it alive until the engine let it go.
#[cfg_attr(not(any(feature = "cuda", feature = "wgpu")), allow(dead_code))]
pub(crate) struct StandIn<'a, P> {
    pub primitive: &'a P,
    pub keep: AnyPrimitive,
}

/// [`release_for_rebuild`] where `primitive` is runtime `R`'s fusion tensor.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
#[allow(clippy::type_complexity)]
fn release_fused<'a, P: Send + 'static, R: burn_cubecl::CubeRuntime>(
    primitive: P,
    keep_aside: bool,
    stand_in: Option<StandIn<'a, P>>,
) -> Result<Release<P>, (P, Option<StandIn<'a, P>>)> {
    if !(&primitive as &dyn Any).is::<fused::FusedTensor<R>>() {
        return Err((primitive, stand_in));
    }
    let tensor: fused::FusedTensor<R> = cast(primitive).expect("type checked");
    let stand_in = stand_in.map(|s| {
        let source = (s.primitive as &dyn Any)
            .downcast_ref::<fused::FusedTensor<R>>()
            .expect("a stand-in of a fusion tensor is a fusion tensor");
        (source.id, s.keep)
    });
    Ok(match fused::release(tensor, keep_aside, stand_in) {
        Ok(release) => Release::Engine(Box::new(release)),
        Err((_, tensor)) => Release::Refused(cast(tensor).expect("type checked")),
    })
}

/// Makes a tensor freed by its engine again: `replay` on `inputs()` where
/// it must run (see [`Released`]), `id` naming it for the check.
pub(crate) fn rebuild_released<B: Backend>(
    released: Box<dyn Released>,
    id: crate::handle::TensorId,
    inputs: impl FnOnce() -> Vec<B::FloatTensorPrimitive>,
    replay: crate::handle::Replay<B>,
) -> (B::FloatTensorPrimitive, bool, Option<Box<dyn RebuildCheck>>) {
    let inputs = Box::new(|| {
        inputs()
            .into_iter()
            .map(|p| Box::new(p) as AnyPrimitive)
            .collect()
    });
    let replay = Box::new(|inputs: Vec<AnyPrimitive>| {
        let inputs = inputs.into_iter().map(primitive::<B>).collect();
        Box::new(replay(inputs)) as AnyPrimitive
    });
    let done = released.rebuild(id, inputs, replay);
    (primitive::<B>(done.tensor), done.rebuilt, done.check)
}

/// A tensor other than a float input (an attention's mask) that a rebuild's
/// op reads, for that op: under fusion an alias of its buffer where the
/// rebuild runs ([`fused::for_rebuild`]); as it is otherwise.
pub(crate) fn for_rebuild<P: 'static>(tensor: P) -> P {
    #[cfg(feature = "cuda")]
    if let Some(alias) = alias_fused::<P, cubecl::cuda::CudaRuntime>(&tensor) {
        return alias;
    }
    #[cfg(feature = "wgpu")]
    if let Some(alias) = alias_fused::<P, cubecl::wgpu::WgpuRuntime>(&tensor) {
        return alias;
    }
    tensor
}

/// [`for_rebuild`] where `tensor` is runtime `R`'s fusion tensor.
#[cfg(any(feature = "cuda", feature = "wgpu"))]
fn alias_fused<P: 'static, R: burn_cubecl::CubeRuntime>(tensor: &P) -> Option<P> {
    let fused = (tensor as &dyn Any).downcast_ref::<fused::FusedTensor<R>>()?;
    cast(fused::for_rebuild(fused.clone()))
}

/// Whether `B` is burn's fusion backend.
pub(crate) fn is_fused<B: Backend>() -> bool {
    is_fused_type::<B::FloatTensorPrimitive>()
}

/// Whether `P` is the tensor type of burn's fusion backend.
#[cfg_attr(
    not(any(feature = "cuda", feature = "wgpu")),
    allow(clippy::extra_unused_type_parameters)
)]
fn is_fused_type<P: 'static>() -> bool {
    #[allow(unused_imports)]
    use std::any::TypeId;
    #[cfg(feature = "cuda")]
    if TypeId::of::<P>() == TypeId::of::<fused::FusedTensor<cubecl::cuda::CudaRuntime>>() {
        return true;
    }
    #[cfg(feature = "wgpu")]
    if TypeId::of::<P>() == TypeId::of::<fused::FusedTensor<cubecl::wgpu::WgpuRuntime>>() {
        return true;
    }
    false
}

/// Held by a handle whose primitive an engine tracks (see [`note_new`]).
pub(crate) struct Holder {
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    _count: fused::Holder,
}

/// Moves offloads that wait on the device's runtime on (fusion: buffers are
/// taken out once the ops before them ran). The training thread calls it
/// after each op; it does nothing when none waits. `keep_pace`: wait until
/// fusion's server has taken every op asked for so far (see
/// [`fused::progress`]).
pub(crate) fn progress(keep_pace: bool) {
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    fused::progress(keep_pace);
    let _ = keep_pace;
}

/// Offloads of fusion tensors still waiting for fusion to run the ops
/// before them, and their bytes, still on the device.
pub(crate) fn fusion_waiting() -> (usize, u64) {
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    return fused::waiting();
    #[cfg(not(any(feature = "cuda", feature = "wgpu")))]
    (0, 0)
}

impl HostCopy {
    /// The device-to-host copy has not finished yet.
    pub(crate) fn in_flight(&self) -> bool {
        match self {
            HostCopy::Device(copy) => copy.in_flight(),
            _ => false,
        }
    }

    /// Blocks until the device-to-host copy finished.
    pub(crate) fn wait(&self) {
        if let HostCopy::Device(copy) = self {
            copy.wait();
        }
    }

    /// [`Self::wait`] would wait for the copy now.
    pub(crate) fn waitable(&self) -> bool {
        match self {
            HostCopy::Device(copy) => copy.waitable(),
            _ => true,
        }
    }
}

/// Copies a primitive to the host (for asynchronous engines: starts the
/// copy), compressed with `codec` first where the engine can. The GPU
/// engines count the zeros of an uncompressed copy with `zeros` (others
/// drop it). On failure the primitive comes back untouched.
#[cfg_attr(
    not(any(feature = "cuda", feature = "wgpu")),
    allow(unused_variables, unused_mut)
)]
pub(crate) fn offload<B: Backend>(
    primitive: B::FloatTensorPrimitive,
    options: &TransferOptions,
    codec: Option<Codec>,
    mut zeros: Option<ZeroCounter>,
) -> Result<HostCopy, (TransferError, B::FloatTensorPrimitive)> {
    if (&primitive as &dyn Any).is::<FlexTensor>() {
        #[cfg(feature = "compression")]
        if let Some(codec) = codec {
            let kind = cube_kernels::calibrate::codec_kind(codec);
            return compressed_or_plain(
                primitive,
                |primitive| match flex::offload_compressed(flex_of(&primitive), kind) {
                    Ok(copy) => {
                        let bytes = flex_of(&primitive).data_arc().len() as u64;
                        count_compressed(bytes, copy.compressed_bytes());
                        Ok(HostCopy::FlexCompressed(copy))
                    }
                    Err(err) => Err((TransferError::Compress(err.to_string()), primitive)),
                },
                |primitive| Ok(HostCopy::Flex(flex::offload(flex_of(&primitive)))),
            );
        }
        return Ok(HostCopy::Flex(flex::offload(flex_of(&primitive))));
    }
    // The GPU engines compress with the codecs' kernels (feature
    // `compression`); without it a plan's codec is not carried out.
    #[cfg(not(feature = "compression"))]
    let codec = codec.and_then(|codec| {
        compression_not_carried_out(codec);
        None
    });
    #[cfg(feature = "cuda")]
    let primitive =
        match offload_cube::<_, cubecl::cuda::CudaRuntime>(primitive, options, codec, &mut zeros) {
            Ok(result) => return result,
            Err(primitive) => primitive,
        };
    #[cfg(feature = "wgpu")]
    let primitive =
        match offload_cube::<_, cubecl::wgpu::WgpuRuntime>(primitive, options, codec, &mut zeros) {
            Ok(result) => return result,
            Err(primitive) => primitive,
        };
    if let Some(codec) = codec {
        compression_not_carried_out(codec);
    }
    match read_sync(B::float_into_data(primitive.clone())) {
        Ok(data) => Ok(HostCopy::Data(data)),
        Err(err) => Err((TransferError::Read(err), primitive)),
    }
}

/// `primitive` as the Flex tensor it was checked to be.
fn flex_of<P: 'static>(primitive: &P) -> &FlexTensor {
    (primitive as &dyn Any)
        .downcast_ref()
        .expect("checked to be a Flex tensor")
}

/// Says once that a plan's codec was not carried out here.
fn compression_not_carried_out(codec: Codec) {
    crate::notice::once("compression not carried out", || {
        format!(
            "the plan compresses swapped tensors ({codec} first), but this backend's transfer engine does not compress (it does on Flex and, with the feature `compression`, on CubeCL's CUDA and wgpu runtimes): they are swapped as they are"
        )
    });
}

/// Reads the status of every decompression the GPU engines ran since the
/// last call: `Err` says what came back corrupt.
pub(crate) fn check_unpacked() -> Result<(), String> {
    #[cfg(all(feature = "compression", any(feature = "cuda", feature = "wgpu")))]
    return packed::check_unpacked();
    #[cfg(not(all(feature = "compression", any(feature = "cuda", feature = "wgpu"))))]
    Ok(())
}

/// Starts bringing a host copy back to `device`; synchronous engines finish
/// at once.
pub(crate) fn prefetch<B: Backend>(
    host: HostCopy,
    device: &B::Device,
) -> Incoming<B::FloatTensorPrimitive> {
    match host {
        HostCopy::Device(copy) => Incoming::Device(copy.prefetch()),
        host => Incoming::Ready(load::<B>(host, device)),
    }
}

/// The primitive of a prefetch, waiting for its copy if needed.
pub(crate) fn collect<B: Backend>(
    incoming: Incoming<B::FloatTensorPrimitive>,
) -> B::FloatTensorPrimitive {
    match incoming {
        Incoming::Ready(p) => p,
        Incoming::Device(load) => primitive::<B>(load.collect()),
    }
}

/// Uploads a host copy back to `device` now.
pub(crate) fn load<B: Backend>(host: HostCopy, device: &B::Device) -> B::FloatTensorPrimitive {
    match host {
        HostCopy::Data(data) => B::float_from_data(data, device),
        HostCopy::Flex(copy) => {
            cast(flex::load(copy)).expect("a Flex copy is only made from a Flex tensor")
        }
        #[cfg(feature = "compression")]
        HostCopy::FlexCompressed(copy) => match flex::load_compressed(copy) {
            Ok(tensor) => cast(tensor).expect("a Flex copy is only made from a Flex tensor"),
            Err(err) => came_back_corrupt(err),
        },
        HostCopy::Device(copy) => primitive::<B>(copy.load()),
    }
}

/// A compressed copy failed its checks on the way back: the training
/// thread stops rather than hand the model wrong values.
#[cfg(feature = "compression")]
fn came_back_corrupt(err: impl std::fmt::Display) -> ! {
    panic!("burn-swap: a swapped tensor came back corrupt: {err}")
}

fn primitive<B: Backend>(any: Box<dyn Any + Send>) -> B::FloatTensorPrimitive {
    *any.downcast()
        .expect("a device copy comes back as the primitive it was made from")
}

enum HostState<P> {
    Host(HostCopy),
    Incoming(Incoming<P>),
}

/// A float tensor moved off the device by burn-swap's transfer engine: the
/// same path swapped activations take, for tools and benchmarks.
pub struct HostTensor<B: Backend> {
    state: HostState<B::FloatTensorPrimitive>,
    device: B::Device,
}

impl<B: Backend> HostTensor<B> {
    /// Starts moving `tensor` to the host, within `config`'s pinned pool
    /// limits (a device's engine takes them at its first offload). On
    /// failure (no pinned memory left, an unsupported tensor) the tensor
    /// comes back with the reason.
    /// Tensors of burn's fusion backend are refused: their buffers leave
    /// only once fusion ran the ops that read them, which a training step
    /// under [`SwapAutodiff`](crate::SwapAutodiff) drives.
    pub fn offload(
        tensor: B::FloatTensorPrimitive,
        config: &SwapConfig,
    ) -> Result<Self, (TransferError, B::FloatTensorPrimitive)> {
        if is_fused_type::<B::FloatTensorPrimitive>() {
            let why = "a fusion tensor moves only inside a training step".to_string();
            return Err((TransferError::Unsupported(why), tensor));
        }
        let device = B::float_device(&tensor);
        offload::<B>(tensor, &TransferOptions::of(config), None, None).map(|host| Self {
            state: HostState::Host(host),
            device,
        })
    }

    /// The device-to-host copy is still running (its device memory is held).
    pub fn is_offloading(&self) -> bool {
        matches!(&self.state, HostState::Host(h) if h.in_flight())
    }

    /// Blocks until the device-to-host copy finished and the device memory was given back.
    pub fn wait_offloaded(&self) {
        if let HostState::Host(host) = &self.state {
            host.wait();
        }
    }

    /// Starts the copy back (asynchronous where the engine is).
    pub fn prefetch(&mut self) {
        let state = std::mem::replace(
            &mut self.state,
            HostState::Host(HostCopy::Data(TensorData::new::<f32, _>(vec![], [0]))),
        );
        self.state = match state {
            HostState::Host(host) => HostState::Incoming(prefetch::<B>(host, &self.device)),
            incoming => incoming,
        };
    }

    /// The tensor back on the device, bit- and layout-exact.
    pub fn load(self) -> B::FloatTensorPrimitive {
        match self.state {
            HostState::Host(host) => load::<B>(host, &self.device),
            HostState::Incoming(incoming) => collect::<B>(incoming),
        }
    }
}

#[cfg(any(feature = "cuda", feature = "wgpu"))]
pub use fused::{stats as fusion_swap_stats, FusionSwapStats};

/// Pinned pool counters of the CUDA engine for `device`, once it was made.
#[cfg(feature = "cuda")]
pub fn pinned_pool_stats(device: &cubecl::cuda::CudaDevice) -> Option<cuda::PoolStats> {
    cuda::pinned_stats(device)
}

/// Bytes the CUDA driver's memory pool for `device` holds unused: freed
/// memory it keeps, whole or in pieces between live buffers.
#[cfg(feature = "cuda")]
pub fn driver_pool_unused(device: &cubecl::cuda::CudaDevice) -> Option<u64> {
    cuda::pool_unused(device)
}

/// Device memory the runtime reports for `B`'s `device` (`None` where it does not say).
pub fn device_usage<B: Backend>(device: &B::Device) -> Option<DeviceUsage> {
    memory_probe::<B>(device).usage()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_compression_swaps_the_tensor_uncompressed() {
        let before = compression_stats().sent_uncompressed;
        let fails = |t: u32| Err((TransferError::Compress("no room".into()), t));
        let sent: Result<(&str, u32), _> = compressed_or_plain(7, fails, |t| Ok(("plain", t)));
        assert_eq!(sent.ok(), Some(("plain", 7)));
        assert_eq!(compression_stats().sent_uncompressed, before + 1);
        // The pinned pool refusing is not the codec's failure: an
        // uncompressed copy needs more of it, so the tensor stays.
        let refused = |t: u32| Err((TransferError::Pool("full".into()), t));
        let kept: Result<(&str, u32), _> =
            compressed_or_plain(7, refused, |_| unreachable!("not tried"));
        assert!(matches!(kept, Err((TransferError::Pool(_), 7))));
        let packed: Result<(&str, u32), _> =
            compressed_or_plain(7, |t| Ok(("packed", t)), |_| unreachable!("not tried"));
        assert_eq!(packed.ok(), Some(("packed", 7)));
    }

    #[test]
    fn zeros_are_counted_by_their_bits_per_element() {
        let words: Vec<u8> = [0u32, 7, 0, 0x8000_0000]
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .collect();
        // -0.0 is not all zero bits: ZVC keeps it, and it is a value of its own.
        let counted = sparsity_of(&words, 4);
        assert_eq!(counted.zero_fraction, 0.5);
        assert_eq!(counted.two_valued, Some(false));
        let halves: Vec<u8> = [0u16, 0, 0, 3]
            .iter()
            .flat_map(|h| h.to_ne_bytes())
            .collect();
        assert_eq!(sparsity_of(&halves, 2).zero_fraction, 0.75);
        assert_eq!(sparsity_of(&halves, 2).two_valued, Some(true));
        // A dropout mask: zeros and ones.
        let mask: Vec<u8> = [1.0f32, 0.0, 1.0, 1.0]
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .collect();
        assert_eq!(sparsity_of(&mask, 4).two_valued, Some(true));
        assert_eq!(sparsity_of(&[0; 8], 4).two_valued, Some(true));
    }

    #[test]
    fn a_counter_dropped_without_counting_gives_nothing_at_once() {
        let (counter, count) = zero_count();
        drop(counter);
        let started = std::time::Instant::now();
        assert_eq!(count.wait(), None);
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        let (counter, count) = zero_count();
        counter.count(&[0, 0, 0, 0, 1, 0, 0, 0], 4);
        assert_eq!(count.wait().map(|s| s.zero_fraction), Some(0.5));
    }
}
