//! One lane per direction: a CUDA stream of its own and two threads.
//!
//! The threads retain the device's primary context (the one CubeCL uses), so
//! CubeCL's device pointers are valid on the lane's stream. Ordering against
//! compute starts on the compute thread, when a job is made: [`Worker::send`]
//! hands it to CubeCL's device thread (queued, no round trip), which, in
//! compute's order, reads the job's buffer address on compute's own stream
//! and records a fence there (an event: compute passes it once it has run
//! what was queued before the job), then passes job and fence to the lane.
//! No CubeCL cross-stream path is used: each use of it parks a task on
//! CubeCL's collector thread until the GPU reaches the host's current
//! point, and that thread's queue of 8 blocks CubeCL's device thread when
//! full. Then:
//! 1. the issuing thread takes jobs in order, waits for each one's fence
//!    (blocking only itself: downloads then read final data, and upload
//!    destinations are no longer read by queued kernels, whose memory compute
//!    may have freed and reused), and issues its copy on the lane's own
//!    stream, recording one event per copy;
//! 2. the completing thread waits for the copies in order and hands each its
//!    outcome (a download's device tensor is dropped, so its memory goes back
//!    to CubeCL's pool; an upload's handle is handed over), while the issuing
//!    thread already waits for the next fence.
//!
//! A job that is dropped unfinished (its thread stopped) completes with an
//! error, and a download gives its tensor back: nobody waits forever.

use std::sync::mpsc::{channel, sync_channel, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use burn_cubecl::tensor::CubeTensor;
use cubecl::cuda::{CudaDevice, CudaRuntime};
use cubecl::device::Device;
use cubecl::device_handle::DeviceHandle;
use cubecl::future::DynFut;
use cubecl::server::{ComputeServer, Handle, ServerError};
use cubecl::stream_id::StreamId;
use cubecl::Runtime;
use cudarc::driver::{result, sys, DriverError};

use super::pinned::PinnedBlock;
use super::CudaError;
use crate::transfer::ZeroCounter;

/// Copies issued and not yet completed on one lane at most.
const MAX_IN_FLIGHT: usize = 64;

/// A value that another thread fills in once.
pub(crate) struct Ticket<T> {
    value: Mutex<Option<T>>,
    ready: Condvar,
}

impl<T> Ticket<T> {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            value: Mutex::new(None),
            ready: Condvar::new(),
        })
    }
    pub(crate) fn set(&self, value: T) {
        *self.value.lock().unwrap_or_else(|p| p.into_inner()) = Some(value);
        self.ready.notify_all();
    }
    pub(crate) fn is_set(&self) -> bool {
        self.value
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }
    /// Runs `before_blocking` unless the value is set: a waiter hands
    /// CubeCL's device thread the jobs still queued for it first
    /// ([`flush_jobs`]).
    pub(crate) fn ready_or(&self, before_blocking: impl FnOnce()) -> &Self {
        if !self.is_set() {
            before_blocking();
        }
        self
    }
    /// Blocks until set, then takes the value.
    pub(crate) fn take(&self) -> T {
        let mut guard = self.value.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(v) = guard.take() {
                return v;
            }
            guard = self.ready.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
    }
    /// Blocks until set, then runs `f` on the value in place.
    pub(crate) fn wait_with<R>(&self, f: impl FnOnce(&mut Option<T>) -> R) -> R {
        let mut guard = self.value.lock().unwrap_or_else(|p| p.into_inner());
        while guard.is_none() {
            guard = self.ready.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
        f(&mut guard)
    }
    /// Blocks until set, leaving the value.
    pub(crate) fn wait(&self) {
        let mut guard = self.value.lock().unwrap_or_else(|p| p.into_inner());
        while guard.is_none() {
            guard = self.ready.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// What a download copies from the device, and hands back if it fails.
pub(crate) enum OnDevice {
    /// A tensor's buffer, copied as it is.
    Tensor(CubeTensor<CudaRuntime>),
    /// A tensor's buffer compressed on the device: only its used words are
    /// copied, their count read from the device once compute has passed
    /// the compress kernels.
    #[cfg(feature = "compression")]
    Packed(cube_kernels::Compressed),
}

/// The result of a download: `Err` hands what was on the device back.
pub(crate) type DownloadResult = Result<(), OnDevice>;

/// Device to host: the device data is held until its bytes are in the block.
pub(crate) struct Download {
    data: Option<OnDevice>,
    block: Arc<PinnedBlock>,
    done: Arc<Ticket<DownloadResult>>,
    /// Counts the block's zero elements (of that many bytes) once copied.
    zeros: Option<(ZeroCounter, usize)>,
}

impl Download {
    pub(crate) fn new(
        data: OnDevice,
        block: Arc<PinnedBlock>,
        done: Arc<Ticket<DownloadResult>>,
    ) -> Self {
        Self {
            data: Some(data),
            block,
            done,
            zeros: None,
        }
    }
    /// Once copied, the block's zero elements of `elem_bytes` are counted
    /// with `zeros` on the counting thread.
    pub(crate) fn count_zeros(&mut self, zeros: ZeroCounter, elem_bytes: usize) {
        self.zeros = Some((zeros, elem_bytes));
    }
    /// Its zeros are counted once copied.
    pub(crate) fn counts_zeros(&self) -> bool {
        self.zeros.is_some()
    }
    /// The device buffers the copy reads (for a compressed one, its data
    /// and its size word).
    pub(crate) fn buffers(&self) -> Vec<Handle> {
        match &self.data {
            Some(OnDevice::Tensor(tensor)) => vec![tensor.handle.clone()],
            #[cfg(feature = "compression")]
            Some(OnDevice::Packed(comp)) => vec![comp.handle.clone(), comp.size.clone()],
            None => Vec::new(),
        }
    }
    /// The copy finished: the device memory goes back to CubeCL's pool.
    fn succeed(mut self) {
        #[cfg(feature = "compression")]
        if let Some(OnDevice::Packed(comp)) = &self.data {
            super::super::count_compressed(
                crate::transfer::packed::raw_bytes(comp),
                self.block.len() as u64,
            );
        }
        drop(self.data.take());
        if let Some((zeros, elem_bytes)) = self.zeros.take() {
            count_later(self.block.clone(), zeros, elem_bytes);
        }
        self.done.set(Ok(()));
    }
    /// The data goes back to its owner, untouched (what dropping does).
    fn fail(self) {
        drop(self);
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        if let Some(data) = self.data.take() {
            self.done.set(Err(data));
        }
    }
}

/// Counts zeros of copied blocks on a thread of its own, so that neither
/// the training thread nor the lane's completions wait for the scan.
fn count_later(block: Arc<PinnedBlock>, zeros: ZeroCounter, elem_bytes: usize) {
    type Job = (Arc<PinnedBlock>, ZeroCounter, usize);
    static COUNTER: OnceLock<Mutex<Option<Sender<Job>>>> = OnceLock::new();
    let sender = COUNTER.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        let spawned = std::thread::Builder::new()
            .name("burn-swap-zeros".into())
            .spawn(move || {
                for (block, zeros, elem_bytes) in rx {
                    zeros.count(block.as_slice(), elem_bytes);
                }
            });
        // Without the thread, counters are dropped: nothing is counted.
        Mutex::new(spawned.ok().map(|_| tx))
    });
    if let Some(tx) = &*sender.lock().unwrap_or_else(|p| p.into_inner()) {
        let _ = tx.send((block, zeros, elem_bytes));
    }
}

/// Host to device: `dst` (from compute's CubeCL pool), filled from the
/// block once the block's own download (`after`) finished.
pub(crate) struct Upload {
    block: Arc<PinnedBlock>,
    /// Taken when completed, so the receiver holds the only reference (an
    /// extra one would keep fusion from writing to it in place).
    dst: Option<Handle>,
    after: Arc<Ticket<DownloadResult>>,
    /// Taken when completed.
    done: Option<Arc<Ticket<Result<Handle, String>>>>,
}

impl Upload {
    pub(crate) fn new(
        block: Arc<PinnedBlock>,
        dst: Handle,
        after: Arc<Ticket<DownloadResult>>,
        done: Arc<Ticket<Result<Handle, String>>>,
    ) -> Self {
        Self {
            block,
            dst: Some(dst),
            after,
            done: Some(done),
        }
    }
    fn complete(mut self, outcome: Result<(), String>) {
        let dst = self.dst.take();
        let result = outcome.and_then(|()| dst.ok_or_else(|| "no destination".to_string()));
        if let Some(done) = self.done.take() {
            done.set(result);
        }
    }
}

impl Drop for Upload {
    fn drop(&mut self) {
        if let Some(done) = self.done.take() {
            done.set(Err("the upload thread stopped before copying".into()));
        }
    }
}

/// A job's device buffer, as CubeCL's device thread read it.
#[derive(Debug, Clone, Copy)]
struct Target {
    ptr: u64,
    size: usize,
}

impl Target {
    /// `Err` unless the buffer holds the block's `len` bytes (`exact`: and
    /// no more, so a download takes the whole buffer).
    fn check(self, len: usize, exact: bool) -> Result<(), String> {
        if self.size < len || (exact && self.size != len) {
            return Err(format!("buffer is {} B, block {len} B", self.size));
        }
        Ok(())
    }
}

/// A driver error as the lanes report it.
fn text(error: DriverError) -> String {
    CudaError(error).to_string()
}

/// A point on compute's stream: passed once compute has run what was
/// queued before the job.
type Fence = DynFut<Result<(), ServerError>>;

/// A job on its way to a lane, with its buffers as CubeCL's device thread
/// read them.
type Message<J> = (J, Result<Vec<Target>, String>, Fence);

/// The device's CubeCL server, reached directly so the compute thread does
/// not wait for it.
pub(crate) type ServerHandle = DeviceHandle<<CudaRuntime as Runtime>::Server>;

/// The CubeCL server of `device`: tasks submitted to it run on its device
/// thread, in order with compute's.
pub(crate) fn device_server(device: &CudaDevice) -> ServerHandle {
    ServerHandle::new(device.to_id())
}

/// The sending end of a lane.
pub(crate) struct Worker<J> {
    tx: Sender<Message<J>>,
    server: ServerHandle,
}

impl<J: Send + 'static> Worker<J> {
    /// Sends a job whose device buffers are `buffers`, to be copied once
    /// compute passed the point where the calling (compute) thread is now.
    /// Queued on CubeCL's device thread, no round trip; a lane that stopped
    /// drops the job, which then completes with an error.
    ///
    /// CubeCL's device thread takes its queue in batches of 32 tasks, and
    /// compute's own kernels fill them. A flush hands over a batch at once,
    /// but fills the rest of it with nothing, so the next task the compute
    /// thread queues waits until the device thread has run the batch before:
    /// one flush per copy kept the compute thread in step with the device
    /// thread. So a job is flushed only when `flush` asks (a count taken from
    /// its copy is waited for by a clock), and whoever blocks on a job's
    /// outcome flushes first ([`flush_jobs`]).
    pub(crate) fn send(&self, job: J, buffers: Vec<Handle>, flush: bool) {
        let tx = self.tx.clone();
        let compute = StreamId::current();
        self.server.submit(move |server| {
            let targets = buffers
                .into_iter()
                .map(|buffer| {
                    server
                        .get_resource(buffer.binding(), compute)
                        .map(|r| Target {
                            ptr: r.resource().ptr,
                            size: r.resource().size as usize,
                        })
                        .map_err(|e| format!("{e:?}"))
                })
                .collect();
            // Taking the fence also takes any failure CubeCL recorded on
            // compute's stream: the copy then fails with it (logged), and
            // the tensor stays on the device.
            let fence = server.sync(compute);
            let _ = tx.send((job, targets, fence));
        });
        if flush {
            self.server.flush_queue();
        }
    }
}

/// Hands CubeCL's device thread the tasks queued for it on `device`: a job
/// waits there until its batch is full, so a thread about to block on a
/// copy sends the jobs first (or it could wait for compute's next ops,
/// forever where there are none).
pub(crate) fn flush_jobs(device: &CudaDevice) {
    device_server(device).flush_queue();
}

/// The end of one copy on a lane's stream.
struct CopyEvent(sys::CUevent);

// SAFETY: a CUDA event may be waited on and destroyed from any thread of the
// process; the context is current on both lane threads.
unsafe impl Send for CopyEvent {}

impl CopyEvent {
    /// Marks the end of the copy just issued on `stream`.
    fn record(stream: sys::CUstream) -> Result<Self, String> {
        // SAFETY: the event is fresh and the stream belongs to the lane.
        unsafe {
            let event =
                result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(text)?;
            let event = CopyEvent(event);
            result::event::record(event.0, stream).map_err(text)?;
            Ok(event)
        }
    }
    /// Blocks until the copy finished.
    fn wait(self) -> Result<(), String> {
        // SAFETY: the event was created and recorded by this lane.
        unsafe { result::event::synchronize(self.0).map_err(text) }
    }
}

impl Drop for CopyEvent {
    fn drop(&mut self) {
        // SAFETY: destroying a recorded event is deferred by the driver
        // until it completes.
        unsafe {
            let _ = result::event::destroy(self.0);
        }
    }
}

/// A lane's own stream, used by its issuing thread only.
struct LaneStream(sys::CUstream);

// SAFETY: the stream is used by the one thread it is moved to.
unsafe impl Send for LaneStream {}

/// What a lane does with its jobs.
struct Copier<R, C, D> {
    /// Waits until the job may be copied (an upload: its block's download
    /// finished); `Err` completes it uncopied.
    ready: R,
    /// Issues one job's copy to or from its targets on the lane's stream.
    copy: C,
    /// Hands a job its outcome once its copy finished (or failed).
    complete: D,
}

/// Starts a lane: its stream, an issuing and a completing thread, so that
/// waiting for a later job's fence never delays reporting an earlier copy.
fn spawn<J, R, C, D>(
    name: &str,
    device: &CudaDevice,
    copier: Copier<R, C, D>,
) -> Result<Worker<J>, CudaError>
where
    J: Send + 'static,
    R: Fn(&J) -> Result<(), String> + Send + 'static,
    C: Fn(sys::CUstream, &J, &[Target]) -> Result<(), String> + Send + 'static,
    D: Fn(J, Result<(), String>) + Send + 'static,
{
    super::make_current(device)?;
    let stream = LaneStream(
        result::stream::create(result::stream::StreamKind::NonBlocking).map_err(CudaError)?,
    );
    let (tx, rx) = channel::<Message<J>>();
    let (issued_tx, issued_rx) = sync_channel::<(J, Result<CopyEvent, String>)>(MAX_IN_FLIGHT);
    let Copier {
        ready,
        copy,
        complete,
    } = copier;
    let completer_device = device.clone();
    std::thread::Builder::new()
        .name(format!("{name}-done"))
        .spawn(move || {
            // Events are waited on in the context they were made in.
            let _ = super::make_current(&completer_device);
            for (job, issued) in issued_rx {
                complete(job, issued.and_then(CopyEvent::wait));
            }
        })
        .map_err(|e| CudaError::other(format!("spawning {name}-done: {e}")))?;
    let issuer_device = device.clone();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            // the whole `LaneStream` (Send), not just its raw pointer field
            let stream = stream;
            let current = super::make_current(&issuer_device).map_err(|e| e.to_string());
            // Jobs come in compute order, so their fences pass in order too.
            for (job, target, fence) in rx {
                let _span = tracing::trace_span!("copy").entered();
                let issued = current
                    .clone()
                    .and_then(|()| ready(&job))
                    .and_then(|()| {
                        cubecl::future::block_on(fence).map_err(|e| {
                            // Taken from compute's stream with the fence, so
                            // CubeCL will not report it again: say it loudly.
                            tracing::error!(error = ?e, "CubeCL reported a failure on compute's stream");
                            format!("compute's stream failed: {e:?}")
                        })
                    })
                    .and_then(|()| copy(stream.0, &job, &target?))
                    .and_then(|()| CopyEvent::record(stream.0));
                if issued_tx.send((job, issued)).is_err() {
                    return;
                }
            }
        })
        .map_err(|e| CudaError::other(format!("spawning {name}: {e}")))?;
    Ok(Worker {
        tx,
        server: device_server(device),
    })
}

pub(crate) fn spawn_download(device: &CudaDevice) -> Result<Worker<Download>, CudaError> {
    let copier = Copier {
        ready: |_: &Download| Ok(()),
        copy: |stream, job: &Download, targets: &[Target]| {
            let [data, rest @ ..] = targets else {
                return Err("no device buffer".into());
            };
            let bytes = match rest {
                [] => {
                    data.check(job.block.len(), true)?;
                    data.size
                }
                [size] => {
                    let bytes = read_word(stream, *size)? as usize * 4;
                    data.check(bytes, false)?;
                    // The block was taken for the worst case; the pool
                    // gets the rest back before the copy.
                    job.block.shrink(bytes)?;
                    bytes
                }
                _ => return Err("unexpected device buffers".into()),
            };
            // SAFETY: the job holds the device data and the block until its
            // copy's event completed.
            unsafe { sys::cuMemcpyDtoHAsync_v2(job.block.ptr().cast(), data.ptr, bytes, stream) }
                .result()
                .map_err(text)
        },
        complete: |job: Download, outcome: Result<(), String>| match outcome {
            Ok(()) => job.succeed(),
            Err(err) => {
                tracing::warn!(%err, "download failed; the tensor stays on the device");
                job.fail();
            }
        },
    };
    spawn("burn-swap-d2h", device, copier)
}

/// Reads one 32-bit word of the device at `target` through `stream` (the
/// fence has passed, so compute wrote it), waiting for it.
fn read_word(stream: sys::CUstream, target: Target) -> Result<u32, String> {
    target.check(4, false)?;
    let mut word = 0u32;
    // SAFETY: `word` outlives the copy, which the synchronisation waits for.
    unsafe {
        sys::cuMemcpyDtoHAsync_v2((&mut word as *mut u32).cast(), target.ptr, 4, stream)
            .result()
            .map_err(text)?;
        result::stream::synchronize(stream).map_err(text)?;
    }
    Ok(word)
}

pub(crate) fn spawn_upload(device: &CudaDevice) -> Result<Worker<Upload>, CudaError> {
    let copier = Copier {
        // A block is read only once its own download finished; a failed
        // download kept the tensor on the device: nothing to copy.
        ready: |job: &Upload| {
            if job.after.wait_with(|result| matches!(result, Some(Ok(())))) {
                Ok(())
            } else {
                Err("its download failed".into())
            }
        },
        copy: |stream, job: &Upload, targets: &[Target]| {
            let [target] = targets else {
                return Err("an upload has one device buffer".into());
            };
            target.check(job.block.len(), false)?;
            // SAFETY: as for downloads; the job holds `dst` and the block.
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(
                    target.ptr,
                    job.block.ptr() as *const _,
                    job.block.len(),
                    stream,
                )
            }
            .result()
            .map_err(text)
        },
        complete: |job: Upload, outcome: Result<(), String>| job.complete(outcome),
    };
    spawn("burn-swap-h2d", device, copier)
}
