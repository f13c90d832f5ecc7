//! Device memory that swapping can give back, and a cap on the device.
//!
//! CubeCL 0.10 carves tensors out of pages sized from the card's total memory
//! (a quarter of it, then quarters down to 32 MB) and keeps every page it
//! ever made. A tensor that burn-swap moves to the host frees a slice of a
//! page, not memory the driver can hand to the next allocation of another
//! size, so swapping lowered the memory in use but not the device's peak.
//! With exact allocations, each buffer is its own stream-ordered
//! allocation (`cuMemAllocAsync`, CubeCL's persistent pool); burn-swap
//! releases the free ones into the device's memory pool, where the next
//! allocation of any size can take them: after every op while profiling,
//! and once enough was freed while a plan is followed (each release walks
//! all of CubeCL's buffers on its thread). Until the first plan the pool
//! keeps its default release threshold (none): what it holds unused goes
//! back to the driver at the next synchronisation, so autotune's candidates
//! are not refused for want of one free range while smaller freed ranges
//! sit in the pool. From the first plan on it keeps up to half the budget
//! unused ([`keep_in_pool`]): VGG16 b4096 under a 12 GiB cap on an H100 went
//! from 0.76x to 0.81x of plain's speed. (A threshold that kept 64 GiB in
//! the pool was slower: ResNet-50 b48 `swap-all` at 2 GiB on an H200 went
//! from 113 to 89 samples/s; ResNet-50 was not measured with half the
//! budget kept.)

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cubecl::client::ComputeClient;
use cubecl::cuda::{CudaDevice, CudaRuntime};
use cubecl::server::ComputeServer;
use cubecl::stream_id::StreamId;
use cubecl::MemoryAllocationMode;
use cudarc::driver::{result, sys};

use super::make_current;
use crate::transfer::DriverWatch;

/// Puts the calling thread's stream in exact-allocation mode (`on`): every
/// new buffer is its own allocation of its own size, reused only by a buffer
/// of the same size until [`release_free`] gives it back; or back in
/// CubeCL's own.
pub(crate) fn exact_allocations(client: &ComputeClient<CudaRuntime>, on: bool) {
    let mode = if on {
        MemoryAllocationMode::Persistent
    } else {
        MemoryAllocationMode::Auto
    };
    // SAFETY: the mode is per stream and only changes where new buffers come
    // from; buffers already made keep their pool.
    unsafe { client.allocation_mode(mode) };
}

/// Gives the calling stream's free buffers back to the device's memory
/// pool (queued on the runtime's thread; does not wait; under a capped pool
/// what the stream holds is noted first, on that thread too).
pub(crate) fn release_free(client: &ComputeClient<CudaRuntime>, device: &CudaDevice) {
    if pool_capped() {
        note_held_later(device);
    }
    client.memory_cleanup();
}

/// [`note_held`] queued on the runtime's thread, where it runs in its turn
/// among the calling stream's tasks: asking from the training thread waited
/// for the runtime's thread at every release (GPT-small b4 under a 12 GiB
/// cap spent most of its step there).
fn note_held_later(device: &CudaDevice) {
    let stream = StreamId::current();
    super::worker::device_server(device).submit(move |server| {
        if let Ok(usage) = server.memory_usage(stream) {
            HELD_PEAK.fetch_max(usage.bytes_reserved, Ordering::AcqRel);
        }
    });
}

/// The most bytes the training stream's buffers held since
/// [`restart_pool_high_water`], under a capped pool.
static HELD_PEAK: AtomicU64 = AtomicU64::new(0);

/// Notes the bytes the calling stream's buffers hold now into
/// [`HELD_PEAK`], and returns them.
///
/// Past a capped pool most buffers are plain allocations the pool's
/// high-water mark does not see. Under exact allocations a stream's buffers
/// only grow between two releases (a freed buffer waits for one), so their
/// peak is what they hold just before each release and at the iteration's
/// end. Asking waits for the runtime's thread to reach the question (and
/// so for the notes queued before it, [`note_held_later`]).
fn note_held(client: &ComputeClient<CudaRuntime>) -> Option<u64> {
    let held = held_bytes(client)?;
    HELD_PEAK.fetch_max(held, Ordering::AcqRel);
    Some(held)
}

/// The bytes the calling stream's buffers hold now, free ones included.
fn held_bytes(client: &ComputeClient<CudaRuntime>) -> Option<u64> {
    Some(client.memory_usage().ok()?.bytes_reserved)
}

/// Whether [`cap_pool`] capped the device's pool.
fn pool_capped() -> bool {
    POOL_CAPPED.load(Ordering::Acquire)
}

/// Gives the free buffers of one stream back, and what the driver's pool
/// holds unused, every few milliseconds from a thread of its own while the
/// device is short of memory, until dropped.
///
/// Two caches keep freed memory from a buffer of another size:
/// - CubeCL reuses an exact allocation only for a buffer of its size.
///   Autotune tries an op's candidate kernels one after another inside the
///   runtime's thread, so what one candidate freed stays held while the next
///   asks for other sizes: on VGG16 b4096 under a 12 GiB cap (H100), two
///   free 4.8 GB slices left by the candidates of a convolution's weight
///   gradient held the device while every later candidate failed to get
///   512 MiB. A release is a task on the runtime's thread, so it runs
///   between two candidates (the next is asked only after it ran).
/// - The driver's pool keeps freed ranges for reuse in their own pieces: in
///   the first planned step of the same run, a 2.25 GiB workspace found
///   2.2 GiB free with 4.3 GiB freed in the pool. Trimming gives back what
///   the device has finished with.
///
/// `watch.free_below`: act only while the driver's free memory and what
/// its pool holds unused come to less than this (`u64::MAX`: always). Each
/// round also trims the pool where the training thread asked and leaves
/// the driver's reading in `watch`, so that the training thread makes none
/// of these driver calls itself.
pub(crate) struct Reclaimer {
    stop: Arc<AtomicBool>,
}

impl Reclaimer {
    /// Starts reclaiming for the calling thread's stream.
    pub(crate) fn start(
        client: &ComputeClient<CudaRuntime>,
        device: &CudaDevice,
        watch: Arc<DriverWatch>,
    ) -> Option<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let stream = StreamId::current();
        let (client, device, stopped) = (client.clone(), device.clone(), stop.clone());
        let spawned = std::thread::Builder::new()
            .name("burn-swap-reclaim".into())
            .spawn(move || {
                while !stopped.load(Ordering::Acquire) && !crate::runtime_failure::runtime_failed()
                {
                    let below = watch.free_below.load(Ordering::Relaxed);
                    if watch.take_trim() {
                        trim_pool(&device);
                    }
                    let reading = watch.read_with(|| {
                        let (free, total) = super::driver_free_total(&device)?;
                        LEAST_FREE_OUTSIDE_POOL.fetch_min(free, Ordering::AcqRel);
                        Some((free + pool_unused(&device).unwrap_or(0), total))
                    });
                    let short =
                        below == u64::MAX || reading.is_some_and(|r| r.free_for_buffers < below);
                    if short {
                        stream.executes(|| {
                            if pool_capped() {
                                note_held(&client);
                            }
                            client.memory_cleanup();
                            // Blocks until the release ran: one queued at a time.
                            let _ = client.memory_usage();
                        });
                        trim_pool(&device);
                    }
                    std::thread::sleep(RECLAIM_PERIOD);
                }
            });
        match spawned {
            Ok(_) => Some(Self { stop }),
            Err(err) => {
                tracing::debug!(%err, "no thread to give free device memory back");
                None
            }
        }
    }
}

/// The least free memory the driver had outside its pool, as the reclaimer
/// saw it, since [`least_free_outside_pool`] was last asked.
static LEAST_FREE_OUTSIDE_POOL: AtomicU64 = AtomicU64::new(u64::MAX);

/// The least free memory the driver had outside its memory pool since the
/// last call, sampled by the reclaimer; `None` where it did not run.
pub(crate) fn least_free_outside_pool() -> Option<u64> {
    let least = LEAST_FREE_OUTSIDE_POOL.swap(u64::MAX, Ordering::AcqRel);
    (least != u64::MAX).then_some(least)
}

/// Between two releases: well under the time one autotune candidate takes
/// at the sizes where memory is short.
const RECLAIM_PERIOD: Duration = Duration::from_millis(2);

impl Drop for Reclaimer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// The device's current memory pool, where exact allocations come from:
/// its default pool, or the capped one [`cap_pool`] installed.
fn current_pool(device: &CudaDevice) -> Result<sys::CUmemoryPool, super::CudaError> {
    make_current(device)?;
    let dev = result::device::get(device.index as i32).map_err(super::CudaError)?;
    let mut pool = std::mem::MaybeUninit::uninit();
    // SAFETY: `dev` is a valid device; the pool handle is written on success.
    unsafe {
        sys::cuDeviceGetMemPool(pool.as_mut_ptr(), dev)
            .result()
            .map_err(super::CudaError)?;
        Ok(pool.assume_init())
    }
}

/// Whether the capped pool is installed ([`cap_pool`]).
static POOL_CAPPED: AtomicBool = AtomicBool::new(false);

/// Makes a memory pool that holds at most `max_bytes` the device's current
/// one, once per process, so that CubeCL's stream-ordered allocations past
/// it fail and take CubeCL's fallback, a plain `cuMemAlloc`.
///
/// The driver's pool maps memory in ranges it reuses only for buffers that
/// fit in one; a range with one live buffer in it cannot go back to the
/// driver. Grown and shrunk step after step it ends in pieces: ResNet-50
/// b192 under a 12 GiB cap on an H100 ran out of memory at step 29 with
/// 8.3 GiB unused in the pool. A plain allocation is its own pages, given
/// back whole when freed, so free memory is one piece to the driver. Its
/// cost: freeing one waits for the device, and each step maps its buffers
/// anew; GPT-small b4's step went from 0.29 to 0.64 s under a 1 GiB cap on
/// an H100. So it is done only where asked or where the device presses
/// (`SwapConfig::pool_cap`); installed during training, the pool it
/// replaces gives its memory back as its buffers are freed.
pub(crate) fn cap_pool(device: &CudaDevice, max_bytes: u64) {
    if pool_capped() {
        return;
    }
    let cap = || -> Result<(), super::CudaError> {
        let before = current_pool(device)?;
        let dev = result::device::get(device.index as i32).map_err(super::CudaError)?;
        // SAFETY: zeroed is a valid value of this plain C struct.
        let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE;
        props.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        // The device's ordinal follows the 4-byte type in every CUDA
        // version's layout (a field, later the first member of a union),
        // which the bindings name differently by version.
        // SAFETY: `location` is a C struct of an enum and at least an int.
        unsafe {
            let location = std::ptr::addr_of_mut!(props.location).cast::<i32>();
            location.add(1).write(device.index as i32);
        }
        // The driver rounds it; 0 would mean no cap.
        props.maxSize = max_bytes.max(2 << 20) as usize;
        let mut pool = std::mem::MaybeUninit::uninit();
        // SAFETY: `props` is filled in; the pool lives as long as the
        // process (the device's current pool must not be destroyed).
        unsafe {
            sys::cuMemPoolCreate(pool.as_mut_ptr(), &props)
                .result()
                .map_err(super::CudaError)?;
            sys::cuDeviceSetMemPool(dev, pool.assume_init())
                .result()
                .map_err(super::CudaError)?;
        }
        // Capped during training, the pool before it may keep freed memory
        // (`keep_in_pool`): its buffers now go back to the driver as they
        // are freed.
        set_release_threshold(before, 0)?;
        // SAFETY: trimming only releases memory no allocation uses.
        unsafe {
            sys::cuMemPoolTrimTo(before, 0)
                .result()
                .map_err(super::CudaError)?;
        }
        Ok(())
    };
    match cap() {
        Ok(()) => {
            POOL_CAPPED.store(true, Ordering::Release);
            tracing::info!(max_bytes, "device memory pool capped");
        }
        Err(err) => tracing::warn!(%err, "could not cap the device's memory pool"),
    }
}

/// Bytes kept in the device's memory pool as one range (see
/// [`reserve_pool`]): trims leave them.
static RESERVED: AtomicU64 = AtomicU64::new(0);

/// Device memory left outside the reserved range: kernel modules and what
/// the driver allocates for itself.
const OUTSIDE_RESERVE: u64 = 1 << 30;

/// Reserves the device's free memory (but [`OUTSIDE_RESERVE`], and at most
/// `at_most`) in its memory pool as one range, once per process: one
/// allocation, freed at once, with a release threshold that keeps it.
///
/// The pool reuses a freed range only for a buffer that fits in it. Grown
/// buffer by buffer, it ends up in pieces: under a 12 GiB cap on an H100,
/// VGG16's first planned step at b4096 could not get 2.25 GiB for a
/// convolution's workspace with 4.3 GiB freed in the pool and 2.2 GiB free.
/// Carved from one range, freed neighbours are one free range again. But
/// live buffers still split it, and the pieces can get smaller step after
/// step: GPT-small b4 under the same cap ran out of memory after 11 to 13
/// steps with 5.9 GiB free in the range, none of it in one 147 MiB piece.
/// So this is only done where asked (`SwapConfig::reserve_pool`).
pub(crate) fn reserve_pool(device: &CudaDevice, at_most: u64) {
    if RESERVED.load(Ordering::Acquire) > 0 {
        return;
    }
    let reserve = || -> Result<u64, super::CudaError> {
        let pool = current_pool(device)?;
        let (free, _) = result::mem_get_info().map_err(super::CudaError)?;
        let bytes = (free as u64).saturating_sub(OUTSIDE_RESERVE).min(at_most) & !((2 << 20) - 1);
        if bytes == 0 {
            return Ok(0);
        }
        set_release_threshold(pool, bytes)?;
        let mut ptr: sys::CUdeviceptr = 0;
        let stream: sys::CUstream = std::ptr::null_mut();
        // SAFETY: the allocation is freed on the same (legacy default)
        // stream and waited for before return.
        unsafe {
            sys::cuMemAllocFromPoolAsync(&mut ptr, bytes as usize, pool, stream)
                .result()
                .map_err(super::CudaError)?;
            sys::cuMemFreeAsync(ptr, stream)
                .result()
                .map_err(super::CudaError)?;
            sys::cuStreamSynchronize(stream)
                .result()
                .map_err(super::CudaError)?;
        }
        Ok(bytes)
    };
    match reserve() {
        Ok(bytes) => {
            RESERVED.store(bytes, Ordering::Release);
            tracing::debug!(bytes, "device memory reserved in the pool as one range");
        }
        Err(err) => tracing::debug!(%err, "could not reserve the device's memory pool"),
    }
}

/// Bytes the device's memory pool may keep unused besides the reserved
/// range (see [`keep_in_pool`]): trims leave them.
static KEPT_UNUSED: AtomicU64 = AtomicU64::new(0);

/// Lets the device's memory pool keep up to `bytes` unused (its release
/// threshold, and what [`trim_pool`] leaves). With none kept, every
/// synchronisation and trim gives freed memory back to the driver and the
/// next buffers take new memory from it: GPT-small b4's ops took 385 ms of
/// a step under a 12 GiB cap on an H100 that way, against 147-178 ms with
/// the reserved range. What it keeps beyond that goes back, so the driver
/// has memory for a buffer the pool cannot place.
pub(crate) fn keep_in_pool(device: &CudaDevice, bytes: u64) {
    let keep = || -> Result<(), super::CudaError> {
        let pool = current_pool(device)?;
        // The threshold counts all the pool holds: what is in buffers now
        // (at a plan, the model and its optimizer state) and the rest.
        let used = pool_used(pool).unwrap_or(0);
        set_release_threshold(pool, (used + bytes).max(RESERVED.load(Ordering::Acquire)))
    };
    match keep() {
        Ok(()) => KEPT_UNUSED.store(bytes, Ordering::Release),
        Err(err) => tracing::debug!(%err, "could not set the memory pool's release threshold"),
    }
}

/// How much the pool may hold, in buffers and unused, before a
/// synchronisation gives the unused part back to the driver.
fn set_release_threshold(pool: sys::CUmemoryPool, bytes: u64) -> Result<(), super::CudaError> {
    set_pool_attribute(
        pool,
        sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
        bytes,
    )
}

/// Sets one of a memory pool's 64-bit attributes.
fn set_pool_attribute(
    pool: sys::CUmemoryPool,
    attribute: sys::CUmemPool_attribute,
    value: u64,
) -> Result<(), super::CudaError> {
    let mut value = value;
    // SAFETY: the attributes set here are 64-bit values.
    unsafe {
        sys::cuMemPoolSetAttribute(pool, attribute, (&mut value as *mut u64).cast())
            .result()
            .map_err(super::CudaError)
    }
}

/// Reads one of a memory pool's 64-bit attributes.
fn pool_attribute(pool: sys::CUmemoryPool, attribute: sys::CUmemPool_attribute) -> Option<u64> {
    let mut value = 0u64;
    // SAFETY: the attributes read here are 64-bit values written into `value`.
    unsafe {
        sys::cuMemPoolGetAttribute(pool, attribute, (&mut value as *mut u64).cast())
            .result()
            .ok()?;
    }
    Some(value)
}

/// Returns what the device's memory pool holds unused (buffers whose
/// stream-ordered free has run) to the driver, but the reserved range
/// ([`reserve_pool`]). The pool's own release at synchronisations misses
/// frees still queued at that moment.
pub(crate) fn trim_pool(device: &CudaDevice) {
    let trim = || -> Result<(), super::CudaError> {
        let pool = current_pool(device)?;
        // Counted, as the driver does, in all the pool holds.
        let used = pool_used(pool).unwrap_or(0);
        let keep = RESERVED
            .load(Ordering::Acquire)
            .max(used + KEPT_UNUSED.load(Ordering::Acquire)) as usize;
        // SAFETY: trimming only releases memory no allocation uses.
        unsafe {
            sys::cuMemPoolTrimTo(pool, keep)
                .result()
                .map_err(super::CudaError)
        }
    };
    if let Err(err) = trim() {
        tracing::debug!(%err, "could not trim the CUDA memory pool");
    }
}

/// Bytes the device's memory pool holds from the driver without a buffer
/// in them: freed, not yet given back (the driver's free memory does not
/// count them, and a larger buffer than any freed range cannot use them).
pub(crate) fn pool_unused(device: &CudaDevice) -> Option<u64> {
    let (reserved, used) = pool_reserved_used(current_pool(device).ok()?)?;
    Some(reserved.saturating_sub(used))
}

/// Restarts the high-water mark of the bytes in the device's memory pool's
/// buffers, and returns the bytes in buffers now. Read with
/// [`pool_high_water`]. Under a capped pool, the mark of the bytes the
/// calling stream's buffers hold ([`note_held`]).
pub(crate) fn restart_pool_high_water(
    client: &ComputeClient<CudaRuntime>,
    device: &CudaDevice,
) -> Option<u64> {
    if pool_capped() {
        let held = held_bytes(client)?;
        HELD_PEAK.store(held, Ordering::Release);
        return Some(held);
    }
    let pool = current_pool(device).ok()?;
    // The mark can only be reset to 0.
    set_pool_attribute(
        pool,
        sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH,
        0,
    )
    .ok()?;
    pool_used(pool)
}

/// The most bytes the device's memory pool had in buffers since
/// [`restart_pool_high_water`]: every buffer the driver handed out counts,
/// the ops' own workspaces and the buffers of fused kernels included, at
/// the moment it was allocated (no sampling misses it).
pub(crate) fn pool_high_water(
    client: &ComputeClient<CudaRuntime>,
    device: &CudaDevice,
) -> Option<u64> {
    if pool_capped() {
        // Noting what is held now raises the mark to it.
        note_held(client)?;
        return Some(HELD_PEAK.load(Ordering::Acquire));
    }
    let pool = current_pool(device).ok()?;
    let high = pool_attribute(
        pool,
        sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH,
    )?;
    // Until a buffer is allocated after the restart the mark reads 0.
    Some(high.max(pool_used(pool).unwrap_or(0)))
}

/// The bytes a memory pool holds from the driver, and those of them in
/// buffers.
fn pool_reserved_used(pool: sys::CUmemoryPool) -> Option<(u64, u64)> {
    Some((
        pool_attribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
        )?,
        pool_used(pool)?,
    ))
}

/// The bytes of a memory pool's that are in buffers.
fn pool_used(pool: sys::CUmemoryPool) -> Option<u64> {
    pool_attribute(
        pool,
        sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
    )
}

/// All but a given number of bytes of a device, held by one allocation made
/// before the model is built, so that the driver runs out of memory where a
/// smaller card would (CubeCL still sizes its pages from the whole card).
/// Released when dropped.
#[derive(Debug)]
pub struct DeviceHold {
    ptr: sys::CUdeviceptr,
    held: u64,
    device: CudaDevice,
}

impl DeviceHold {
    /// Holds the device's free memory except `leave` bytes. Fails with the
    /// numbers when less than `leave` is free.
    pub fn all_but(device: &CudaDevice, leave: u64) -> Result<Self, String> {
        make_current(device).map_err(|e| format!("CUDA context: {e}"))?;
        let (free, total) = result::mem_get_info().map_err(|e| format!("cuMemGetInfo: {e:?}"))?;
        let (free, total) = (free as u64, total as u64);
        if free < leave {
            return Err(format!(
                "cannot leave {leave} bytes of device memory: only {free} of {total} are free"
            ));
        }
        let held = free - leave;
        if held == 0 {
            return Ok(Self {
                ptr: 0,
                held,
                device: device.clone(),
            });
        }
        // SAFETY: a plain device allocation, freed in `drop`.
        let ptr = unsafe { result::malloc_sync(held as usize) }
            .map_err(|e| format!("holding {held} bytes of device memory: {e:?}"))?;
        Ok(Self {
            ptr,
            held,
            device: device.clone(),
        })
    }

    /// Bytes held.
    pub fn held_bytes(&self) -> u64 {
        self.held
    }
}

impl Drop for DeviceHold {
    fn drop(&mut self) {
        if self.ptr != 0 && make_current(&self.device).is_ok() {
            // SAFETY: allocated by `malloc_sync` in `all_but`, freed once.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}
