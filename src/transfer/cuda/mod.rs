//! CUDA buffers (CubeBackend on CUDA, and the buffers burn-swap takes out
//! of burn-cuda's fusion, see [`super::fused`]): the device buffer is copied
//! verbatim to a bounded pinned pool on a copy thread of our own, and comes
//! back as a new buffer with the same shape, strides and dtype.
//!
//! - Offload: a pinned block of the buffer's size is taken on the calling
//!   thread; when none is left, the tensor stays on the device and the
//!   caller logs why. The copy is then asynchronous: the buffer returns to
//!   CubeCL's pool only after the copy has completed (see [`worker`]).
//! - Prefetch: an upload job, ordered after the block's download on the
//!   upload thread (the compute thread never waits for a download); the
//!   tensor is collected later, waiting only if its copy has not finished.
//! - Load without a prefetch: the same upload, waited for at once.
//!
//! The engine (pool and copy threads) is made once per device, on first use.

mod link;
mod memory;
mod pinned;
mod worker;

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use burn_backend::DType;
use burn_cubecl::tensor::CubeTensor;
use burn_std::Metadata;
use cubecl::client::ComputeClient;
use cubecl::cuda::{CudaDevice, CudaRuntime};
use cubecl::Runtime;
use cudarc::driver::{result, DriverError};

pub(crate) use link::measure_link;
pub use memory::DeviceHold;
pub(crate) use memory::{
    cap_pool, exact_allocations, keep_in_pool, least_free_outside_pool, pool_high_water,
    pool_unused, release_free, reserve_pool, restart_pool_high_water, trim_pool, Reclaimer,
};
pub use pinned::PoolStats;
use pinned::{PinnedBlock, PinnedPool};
use worker::{flush_jobs, Download, DownloadResult, OnDevice, Ticket, Upload, Worker};

use super::{DeviceUsage, PinnedLimits, TransferError, ZeroCounter};
use crate::policy::Codec;

/// The float primitive of `CubeBackend<CudaRuntime, ..>`.
pub(crate) type CubePrimitive = CubeTensor<CudaRuntime>;

/// A CUDA driver error.
#[derive(Debug, Clone)]
pub struct CudaError(pub(crate) DriverError);

impl CudaError {
    fn other(message: String) -> Self {
        tracing::error!(%message, "CUDA transfer engine");
        Self(DriverError(
            cudarc::driver::sys::CUresult::CUDA_ERROR_UNKNOWN,
        ))
    }
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

struct Engine {
    /// The device's client on the calling thread's stream (none is pinned).
    compute: ComputeClient<CudaRuntime>,
    pool: Arc<PinnedPool>,
    down: Worker<Download>,
    up: Worker<Upload>,
    refusals_logged: AtomicU64,
}

/// A device's engine, or why it could not be made.
type MadeEngine = Result<Arc<Engine>, String>;

/// Each device's engine or its failure (kept, so a device whose engine
/// failed is not retried, and leaks nothing, for every tensor).
fn engines() -> &'static Mutex<HashMap<usize, MadeEngine>> {
    static ENGINES: OnceLock<Mutex<HashMap<usize, MadeEngine>>> = OnceLock::new();
    ENGINES.get_or_init(Default::default)
}

fn existing(device: &CudaDevice) -> Option<Arc<Engine>> {
    engines()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&device.index)
        .and_then(|e| e.as_ref().ok())
        .cloned()
}

/// The device's engine, made with `limits` if there is none yet.
fn engine(device: &CudaDevice, limits: &PinnedLimits) -> Result<Arc<Engine>, TransferError> {
    let mut map = engines().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(engine) = map.get(&device.index) {
        return engine.clone().map_err(TransferError::Engine);
    }
    let made = make_engine(device, limits);
    if let Err(err) = &made {
        tracing::error!(%err, device = device.index, "CUDA transfer engine unavailable; tensors stay on the device");
        crate::notice::once("cuda engine unavailable", || {
            format!(
                "CUDA transfer engine unavailable on device {}: {err}; tensors stay on the device",
                device.index
            )
        });
    }
    map.insert(device.index, made.clone());
    made.map_err(TransferError::Engine)
}

fn make_engine(device: &CudaDevice, limits: &PinnedLimits) -> Result<Arc<Engine>, String> {
    let fail = |e: CudaError| e.to_string();
    make_current(device).map_err(fail)?;
    let engine = Arc::new(Engine {
        compute: CudaRuntime::client(device),
        pool: PinnedPool::new(
            limits.pool_bytes,
            limits.chunk_bytes,
            limits.host_reserve_bytes,
        ),
        down: worker::spawn_download(device).map_err(fail)?,
        up: worker::spawn_upload(device).map_err(fail)?,
        refusals_logged: AtomicU64::new(0),
    });
    tracing::info!(
        device = device.index,
        pinned_limit = limits.pool_bytes,
        "CUDA transfer engine ready"
    );
    Ok(engine)
}

/// Makes the device's primary context (CubeCL's) current on this thread.
pub(crate) fn make_current(device: &CudaDevice) -> Result<(), CudaError> {
    thread_local! {
        static CURRENT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    }
    if CURRENT.with(|c| c.get()) == Some(device.index) {
        return Ok(());
    }
    result::init().map_err(CudaError)?;
    let dev = result::device::get(device.index as i32).map_err(CudaError)?;
    // SAFETY: `dev` is a valid device; the primary context is retained for
    // the life of the process, like CubeCL does.
    unsafe {
        let ctx = result::primary_ctx::retain(dev).map_err(CudaError)?;
        result::ctx::set_current(ctx).map_err(CudaError)?;
    }
    CURRENT.with(|c| c.set(Some(device.index)));
    Ok(())
}

/// A CUDA tensor's buffer on the host (or on its way there), and its layout.
pub(crate) struct CudaCopy {
    block: Arc<PinnedBlock>,
    meta: Metadata,
    dtype: DType,
    device: CudaDevice,
    /// The block holds the buffer compressed (see [`super::packed`]).
    packed: bool,
    /// The block's size when the download started: the tensor's, or for a
    /// compressed copy the compressor's worst case (the block shrinks to
    /// the compressed size once the download read it).
    device_bytes: usize,
    /// Set when the download finished; `Err` hands the device data back.
    offload: Arc<Ticket<DownloadResult>>,
}

/// An upload in flight.
pub(crate) struct PendingLoad {
    copy: CudaCopy,
    done: Arc<Ticket<Result<cubecl::server::Handle, String>>>,
    /// The device buffer the upload lands in.
    upload_bytes: usize,
}

impl PendingLoad {
    /// The upload finished (or failed): collecting it will not block.
    pub(crate) fn landed(&self) -> bool {
        self.done.is_set()
    }
    /// The download of the block it reads is still running.
    pub(crate) fn download_in_flight(&self) -> bool {
        self.copy.in_flight()
    }
    /// Blocks until the download of the block it reads finished.
    pub(crate) fn wait_downloaded(&self) {
        self.copy.wait();
    }
    /// A compressed copy's buffer until it is collected (decompressed then).
    pub(crate) fn held_bytes(&self) -> Option<u64> {
        self.copy.packed.then_some(self.upload_bytes as u64)
    }
}

impl CudaCopy {
    /// The device buffer it comes back into: the tensor's size; for a
    /// compressed copy whose download is done, its compressed size rounded
    /// up as plans count it (`Codec::upload_bytes`), else the worst case.
    fn upload_bytes(&self) -> usize {
        #[cfg(feature = "compression")]
        if self.packed && !self.in_flight() {
            let (capacity, packed) = (self.device_bytes as u64, self.block.len() as u64);
            return Codec::upload_bytes(capacity, packed) as usize;
        }
        self.device_bytes
    }

    /// The device-to-host copy is still running.
    pub(crate) fn in_flight(&self) -> bool {
        !self.offload.is_set()
    }
    /// Blocks until the device-to-host copy finished.
    pub(crate) fn wait(&self) {
        self.offload.ready_or(|| flush_jobs(&self.device)).wait();
    }
}

/// Starts the download of a CUDA tensor, compressed on compute's stream
/// first when `codec` is given (feature `compression`), else its zeros
/// counted with `zeros` once it is on the host. `Err` gives the tensor
/// back.
// The tensor itself is what a failure hands back: boxing it would cost an
// allocation on every offload.
#[allow(clippy::result_large_err)]
#[cfg_attr(not(feature = "compression"), allow(unused_variables))]
pub(crate) fn offload(
    cube: CubePrimitive,
    limits: &PinnedLimits,
    codec: Option<Codec>,
    zeros: Option<ZeroCounter>,
) -> Result<CudaCopy, (TransferError, CubePrimitive)> {
    if cube.qparams.is_some() || !is_float(cube.dtype) {
        let err = TransferError::Unsupported(format!("{:?}", cube.dtype));
        return Err((err, cube));
    }
    let engine = match engine(&cube.device, limits) {
        Ok(e) => e,
        Err(err) => return Err((err, cube)),
    };
    #[cfg(feature = "compression")]
    if let Some(codec) = codec {
        return super::compressed_or_plain(
            cube,
            |cube| offload_packed(&engine, cube, codec),
            |cube| offload_plain(&engine, cube, None),
        );
    }
    offload_plain(&engine, cube, zeros)
}

/// Starts the download of `cube` as it is.
#[allow(clippy::result_large_err)] // as `offload`
fn offload_plain(
    engine: &Engine,
    cube: CubePrimitive,
    zeros: Option<ZeroCounter>,
) -> Result<CudaCopy, (TransferError, CubePrimitive)> {
    let bytes = cube.handle.size_in_used() as usize;
    let block = match take_block(engine, bytes) {
        Ok(block) => block,
        Err(err) => return Err((err, cube)),
    };
    let copy = new_copy(&cube, block.clone(), false);
    let elem_bytes = cube.dtype.size();
    let mut job = Download::new(OnDevice::Tensor(cube), block, copy.offload.clone());
    if let Some(zeros) = zeros {
        job.count_zeros(zeros, elem_bytes);
    }
    // A lane that stopped hands the tensor back through `offload`.
    send_download(engine, job);
    Ok(copy)
}

/// Compresses `cube` on compute's stream and starts the download of the
/// compressed words; the tensor's own buffer goes back to CubeCL at once
/// (stream order keeps it until the compress kernels have read it).
#[cfg(feature = "compression")]
#[allow(clippy::result_large_err)]
fn offload_packed(
    engine: &Engine,
    cube: CubePrimitive,
    codec: Codec,
) -> Result<CudaCopy, (TransferError, CubePrimitive)> {
    let comp = match super::packed::compress(&cube, codec) {
        Ok(comp) => comp,
        Err(err) => return Err((err, cube)),
    };
    // The size is known once the kernels ran: the block is taken for the
    // worst case and shrunk by the copy thread before it copies.
    let block = match take_block(engine, comp.capacity_words * 4) {
        Ok(block) => block,
        Err(err) => return Err((err, cube)),
    };
    let copy = new_copy(&cube, block.clone(), true);
    send_download(
        engine,
        Download::new(OnDevice::Packed(comp), block, copy.offload.clone()),
    );
    Ok(copy)
}

fn send_download(engine: &Engine, job: Download) {
    let buffers = job.buffers();
    // A zero count is waited for with a time limit, not through the copy.
    let flush = job.counts_zeros();
    engine.down.send(job, buffers, flush);
}

/// A pinned block of `bytes` from the engine's pool, or why not.
fn take_block(engine: &Engine, bytes: usize) -> Result<Arc<PinnedBlock>, TransferError> {
    engine.pool.alloc(bytes).map(Arc::new).map_err(|err| {
        // Summed up once at the end of the iteration (see `crate::report`).
        let n = engine.refusals_logged.fetch_add(1, Ordering::Relaxed);
        if n < 8 || n.is_power_of_two() {
            tracing::debug!(%err, refusals = n + 1, "pinned pool refused a block; the tensor stays on the device");
        }
        super::pool_refused(&err.to_string());
        TransferError::Pool(err.to_string())
    })
}

fn new_copy(cube: &CubePrimitive, block: Arc<PinnedBlock>, packed: bool) -> CudaCopy {
    CudaCopy {
        device_bytes: block.len(),
        block,
        meta: (*cube.meta).clone(),
        dtype: cube.dtype,
        device: cube.device.clone(),
        packed,
        offload: Ticket::new(),
    }
}

/// Starts bringing a copy back. If its download already failed, the tensor
/// it kept is returned at once; a download still running is waited for by
/// the upload thread, not here.
#[allow(clippy::result_large_err)] // as `offload`: the tensor comes back
pub(crate) fn prefetch(copy: CudaCopy) -> Result<PendingLoad, CubePrimitive> {
    if !copy.in_flight() {
        if let Some(back) = take_failed(&copy) {
            return Err(back);
        }
    }
    let done = Ticket::new();
    let upload_bytes = copy.upload_bytes();
    match existing(&copy.device) {
        Some(engine) => {
            // From compute's own pool, so the memory goes back to compute
            // when the tensor dies. Taken before the fence: whatever last
            // used this memory was enqueued before it, so it has run before
            // the copy lands. A compressed block only shrinks (to its size
            // once its download read it), so this holds what is copied.
            let dst = engine.compute.empty(upload_bytes);
            // A job that cannot be sent completes with an error when dropped.
            let job = Upload::new(
                copy.block.clone(),
                dst.clone(),
                copy.offload.clone(),
                done.clone(),
            );
            engine.up.send(job, vec![dst], false);
        }
        None => done.set(Err("the upload thread is not running".into())),
    }
    Ok(PendingLoad {
        copy,
        done,
        upload_bytes,
    })
}

/// After the download finished: the tensor it handed back, if it failed
/// (a compressed one is decompressed from the device).
fn take_failed(copy: &CudaCopy) -> Option<CubePrimitive> {
    let kept = copy
        .offload
        .ready_or(|| flush_jobs(&copy.device))
        .wait_with(|value| match value.take() {
            Some(Err(kept)) => {
                *value = Some(Ok(()));
                Some(kept)
            }
            other => {
                *value = other;
                None
            }
        })?;
    Some(match kept {
        OnDevice::Tensor(cube) => cube,
        #[cfg(feature = "compression")]
        OnDevice::Packed(comp) => {
            let client = CudaRuntime::client(&copy.device);
            let header = super::packed::device_header(&client, &comp);
            let handle = super::packed::decompress_checked(&client, &comp.handle, header);
            copy.tensor(client, handle)
        }
    })
}

/// Collects a prefetched tensor, waiting for its copy if needed. An upload
/// that failed is redone from the pinned bytes through CubeCL's own
/// (synchronous) upload, still layout-exact. A compressed copy is
/// decompressed on compute's stream.
pub(crate) fn finish(pending: PendingLoad) -> CubePrimitive {
    let PendingLoad { copy, done, .. } = pending;
    let client = CudaRuntime::client(&copy.device);
    let handle = match done.ready_or(|| flush_jobs(&copy.device)).take() {
        Ok(handle) => handle,
        Err(err) => {
            if let Some(back) = take_failed(&copy) {
                return back;
            }
            tracing::warn!(%err, bytes = copy.block.len(), "asynchronous upload failed; uploading synchronously");
            client.create_from_slice(copy.block.as_slice())
        }
    };
    #[cfg(feature = "compression")]
    let handle = if copy.packed {
        unpack(&client, &copy, handle)
    } else {
        handle
    };
    copy.tensor(client, handle)
}

/// Decompresses the uploaded words of `copy` (its header and index checked
/// on the pinned copy first); the decoder's status is checked at the end of
/// backward.
#[cfg(feature = "compression")]
fn unpack(
    client: &ComputeClient<CudaRuntime>,
    copy: &CudaCopy,
    comp: cubecl::server::Handle,
) -> cubecl::server::Handle {
    let unpacked = copy
        .block
        .as_words()
        .ok_or(cube_kernels::CodecError::Corrupt(
            "a compressed copy of partial words",
        ))
        .and_then(super::packed::check_host_copy)
        .and_then(|header| super::packed::decompress(client, &comp, &header));
    match unpacked {
        Ok(out) => super::packed::defer_check(client, out),
        Err(err) => super::came_back_corrupt(err),
    }
}

impl CudaCopy {
    /// The tensor this copy was made from, with its data in `handle`.
    fn tensor(
        &self,
        client: ComputeClient<CudaRuntime>,
        handle: cubecl::server::Handle,
    ) -> CubePrimitive {
        CubeTensor::new(
            client,
            handle,
            self.meta.clone(),
            self.device.clone(),
            self.dtype,
        )
    }
}

fn is_float(dtype: DType) -> bool {
    matches!(
        dtype,
        DType::F64 | DType::F32 | DType::Flex32 | DType::F16 | DType::BF16
    )
}

/// Device memory in use as CubeCL reports it for the calling (compute)
/// thread's stream, where every buffer burn-swap moves is allocated, and as
/// the driver sees it.
pub(crate) fn device_usage(device: &CudaDevice) -> Option<DeviceUsage> {
    let usage = CudaRuntime::client(device).memory_usage().ok()?;
    let mut out = DeviceUsage {
        in_use: usage.bytes_in_use,
        reserved: usage.bytes_reserved,
        driver_used: None,
    };
    if make_current(device).is_ok() {
        if let Ok((free, total)) = result::mem_get_info() {
            out.driver_used = Some((total - free) as u64);
        }
    }
    Some(out)
}

/// Free and total memory of `device`, from the driver.
pub(crate) fn driver_free_total(device: &CudaDevice) -> Option<(u64, u64)> {
    make_current(device).ok()?;
    let (free, total) = result::mem_get_info().ok()?;
    Some((free as u64, total as u64))
}

/// The pinned pool's counters for a device, if its engine was made.
pub fn pinned_stats(device: &CudaDevice) -> Option<PoolStats> {
    existing(device).map(|e| e.pool.stats())
}

/// Host bytes the pinned pool of `device`'s engine can hold for swapped
/// tensors (before the engine exists: a pool of at most `pool_bytes`
/// leaving the host `host_reserve_bytes`), less an eighth for free ranges
/// too small for the blocks that come: a block is carved from one chunk.
pub(crate) fn pinned_capacity(
    device: &CudaDevice,
    pool_bytes: u64,
    host_reserve_bytes: u64,
) -> u64 {
    let capacity = match existing(device) {
        Some(engine) => engine.pool.capacity(),
        None => pinned::capacity_of(pool_bytes, 0, host_reserve_bytes),
    };
    capacity / 8 * 7
}
