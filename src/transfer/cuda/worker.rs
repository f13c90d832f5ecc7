//! One lane per direction, each with its own CUDA stream and three threads.
//!
//! The threads retain the device's primary context (the one CubeCL uses), so
//! CubeCL's device pointers are valid on the lane's stream. Ordering against
//! compute starts on the compute thread, when a job is made: it gets a mark,
//! a fresh buffer allocated in compute's order ([`ComputeMark::now`],
//! no round trip to CubeCL's device thread). Then:
//! 0. the fence thread turns each mark into the job's own fence, a point
//!    that compute passes once it has run what was enqueued before the mark;
//! 1. the issuing thread takes jobs in order, waits for each one's fence
//!    (blocking only itself: downloads then read final data, and upload
//!    destinations are no longer read by queued kernels, whose memory compute
//!    may have freed and reused), and issues its copy on the lane's own
//!    stream (never CubeCL's, which waits on the compute backlog), recording
//!    one event per copy. A job waits for its own fence only, never for that
//!    of a job made after it;
//! 2. the completing thread waits for the copies in order and hands each its
//!    outcome (a download's device tensor is dropped, so its memory goes back
//!    to CubeCL's pool; an upload's handle is handed over), while the issuing
//!    thread already waits for the next fence.
//!
//! A job that is dropped unfinished (its thread stopped) completes with an
//! error, and a download gives its tensor back: nobody waits forever.

use std::sync::mpsc::{channel, sync_channel, Sender};
use std::sync::{Arc, Condvar, Mutex};

use burn_cubecl::tensor::CubeTensor;
use cubecl::client::ComputeClient;
use cubecl::cuda::{CudaDevice, CudaRuntime};
use cubecl::future::DynFut;
use cubecl::server::{Handle, ServerError};
use cubecl::stream_id::StreamId;
use cubecl::Runtime;
use cudarc::driver::{result, sys};

use super::pinned::PinnedBlock;
use super::CudaError;

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

/// The result of a download: `Err` hands the device tensor back.
pub(crate) type DownloadResult = Result<(), CubeTensor<CudaRuntime>>;

/// Device to host: the tensor is held until its bytes are in the block.
pub(crate) struct Download {
    tensor: Option<CubeTensor<CudaRuntime>>,
    block: Arc<PinnedBlock>,
    done: Arc<Ticket<DownloadResult>>,
}

impl Download {
    pub(crate) fn new(
        tensor: CubeTensor<CudaRuntime>,
        block: Arc<PinnedBlock>,
        done: Arc<Ticket<DownloadResult>>,
    ) -> Self {
        Self {
            tensor: Some(tensor),
            block,
            done,
        }
    }
    /// The copy finished: the device memory goes back to CubeCL's pool.
    fn succeed(mut self) {
        drop(self.tensor.take());
        self.done.set(Ok(()));
    }
    /// The tensor goes back to its owner, untouched (what dropping does).
    fn fail(self) {
        drop(self);
    }
    /// Gives the tensor back if the thread never sent it (its channel closed).
    pub(crate) fn into_tensor(mut self) -> CubeTensor<CudaRuntime> {
        self.tensor
            .take()
            .expect("a download holds its tensor until completed")
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        if let Some(tensor) = self.tensor.take() {
            self.done.set(Err(tensor));
        }
    }
}

/// Host to device: `dst` (from compute's CubeCL pool), filled from the
/// block once the block's own download (`after`) finished.
pub(crate) struct Upload {
    block: Arc<PinnedBlock>,
    dst: Handle,
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
            dst,
            after,
            done: Some(done),
        }
    }
    fn complete(mut self, result: Result<Handle, String>) {
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

/// A position in the compute stream: a fresh one-byte buffer from compute's
/// pool, allocated (asynchronously) on the compute thread when a job is made.
pub(crate) struct ComputeMark(Handle);

impl ComputeMark {
    /// Compute's position now, as the calling (compute) thread enqueued it:
    /// the job sent with it is copied only once compute has passed it. The
    /// allocation is queued, so making a job costs the compute thread no
    /// round trip to CubeCL's device thread; the lane's fence thread takes
    /// the fence.
    pub(crate) fn now(compute: &ComputeClient<CudaRuntime>) -> Self {
        Self(compute.empty(1))
    }
}

/// A point that compute passes once it has run everything enqueued before a
/// job's mark (the copy may start then).
struct ComputeFence(DynFut<Result<(), ServerError>>);

impl ComputeFence {
    /// Takes the fence of `mark` on the lane's CubeCL stream `lane`: asking
    /// for the mark's buffer from there is CubeCL's own cross-stream path (it
    /// records an event on compute, no earlier than the mark, and makes the
    /// lane's stream wait on it), and a sync point taken on the lane's stream
    /// right after is passed once compute passed that event.
    fn take(lane: &ComputeClient<CudaRuntime>, mark: ComputeMark) -> Result<Self, String> {
        lane.get_resource(mark.0)
            .map(drop)
            .map_err(|e| format!("{e:?}"))?;
        Ok(Self(lane.sync()))
    }

    /// Blocks the calling (copy) thread until compute passed the point.
    fn wait(self) -> Result<(), String> {
        cubecl::future::block_on(self.0).map_err(|e| format!("{e:?}"))
    }
}

pub(crate) struct Worker<J> {
    tx: Mutex<Sender<(J, ComputeMark)>>,
}

impl<J: Send + 'static> Worker<J> {
    /// Queues a job with the mark [`ComputeMark::now`] gave for it.
    pub(crate) fn send(&self, job: J, mark: ComputeMark) -> Result<(), J> {
        self.tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send((job, mark))
            .map_err(|e| e.0 .0)
    }
}

/// What a copy thread needs to run: its stream and a CubeCL client on its
/// own CubeCL stream (to reach buffers).
struct Lane {
    stream: sys::CUstream,
    client: ComputeClient<CudaRuntime>,
}

/// The end of one copy on a lane's stream.
struct CopyEvent(sys::CUevent);

// SAFETY: a CUDA event may be waited on and destroyed from any thread of the
// process; the context is current on both lane threads.
unsafe impl Send for CopyEvent {}

impl CopyEvent {
    /// Blocks until the copy finished.
    fn wait(self) -> Result<(), String> {
        // SAFETY: the event was created and recorded by this lane.
        unsafe { result::event::synchronize(self.0).map_err(|e| CudaError(e).to_string()) }
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

impl Lane {
    fn open(device: &CudaDevice) -> Result<Self, CudaError> {
        super::make_current(device)?;
        let stream =
            result::stream::create(result::stream::StreamKind::NonBlocking).map_err(CudaError)?;
        Ok(Self {
            stream,
            client: CudaRuntime::client(device),
        })
    }

    /// Marks the end of the copy just issued on the lane's stream.
    fn record(&self) -> Result<CopyEvent, String> {
        // SAFETY: the event is fresh and the stream belongs to this lane.
        unsafe {
            let event = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(|e| CudaError(e).to_string())?;
            let event = CopyEvent(event);
            result::event::record(event.0, self.stream).map_err(|e| CudaError(e).to_string())?;
            Ok(event)
        }
    }
}

/// What a copy thread does with its jobs.
struct Copier<R, C, D> {
    /// Waits until the job may be copied (an upload: its block's download
    /// finished); `Err` completes it uncopied.
    ready: R,
    /// Issues one job's copy on the lane's stream; returns what must live
    /// until the copy finished.
    copy: C,
    /// Hands a job its outcome once its copy finished (or failed).
    complete: D,
}

/// Starts a lane of three threads, each taking jobs in order:
/// - the fence thread takes each job's fence from its mark as soon as the
///   job arrives (two round trips to CubeCL's device thread, kept off the
///   compute thread);
/// - the issuing thread waits for each job's own fence and issues its copy;
/// - the completing thread waits for the copies and hands each job its
///   outcome, so waiting for a later job's fence never delays reporting an
///   earlier job's copy.
fn spawn<J, K, R, C, D>(
    name: &str,
    device: CudaDevice,
    copier: Copier<R, C, D>,
) -> Result<Worker<J>, CudaError>
where
    J: Send + 'static,
    K: Send + 'static,
    R: Fn(&J) -> Result<(), String> + Send + 'static,
    C: Fn(&Lane, &J) -> Result<K, String> + Send + 'static,
    D: Fn(J, Result<K, String>) + Send + 'static,
{
    let (tx, rx) = channel::<(J, ComputeMark)>();
    let (fenced_tx, fenced_rx) = channel::<(J, Result<ComputeFence, String>)>();
    let (issued_tx, issued_rx) = sync_channel::<(J, Result<(K, CopyEvent), String>)>(MAX_IN_FLIGHT);
    let (ready_tx, ready_rx) = channel();
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
                let outcome = issued.and_then(|(keep, event)| event.wait().map(|()| keep));
                complete(job, outcome);
            }
        })
        .map_err(|e| CudaError::other(format!("spawning {name}-done: {e}")))?;
    let fence_device = device.clone();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let lane = match Lane::open(&device) {
                Ok(lane) => {
                    let _ = ready_tx.send(Ok(StreamId::current()));
                    lane
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            // Jobs come in compute order, so their fences pass in order too.
            for (job, fence) in fenced_rx {
                let _span = tracing::trace_span!("copy").entered();
                let issued = ready(&job)
                    .and_then(|()| fence?.wait())
                    .and_then(|()| copy(&lane, &job))
                    .and_then(|keep| lane.record().map(|event| (keep, event)));
                if issued_tx.send((job, issued)).is_err() {
                    return;
                }
            }
        })
        .map_err(|e| CudaError::other(format!("spawning {name}: {e}")))?;
    let stream = ready_rx
        .recv()
        .map_err(|_| CudaError::other(format!("{name} did not start")))??;
    std::thread::Builder::new()
        .name(format!("{name}-fence"))
        .spawn(move || {
            let mut lane = CudaRuntime::client(&fence_device);
            // SAFETY: the client only selects which CubeCL stream requests
            // are ordered on (the issuing thread's); the device thread
            // serialises all access.
            unsafe { lane.set_stream(stream) };
            for (job, mark) in rx {
                let fence = ComputeFence::take(&lane, mark);
                if fenced_tx.send((job, fence)).is_err() {
                    return;
                }
            }
        })
        .map_err(|e| CudaError::other(format!("spawning {name}-fence: {e}")))?;
    Ok(Worker { tx: Mutex::new(tx) })
}

pub(crate) fn spawn_download(device: CudaDevice) -> Result<Worker<Download>, CudaError> {
    let copier = Copier {
        ready: |_: &Download| Ok(()),
        copy: |lane: &Lane, job: &Download| {
            let tensor = job
                .tensor
                .as_ref()
                .expect("a download holds its tensor until completed");
            let resource = lane
                .client
                .get_resource(tensor.handle.clone())
                .map_err(|e| format!("{e:?}"))?;
            let size = resource.resource().size as usize;
            if size != job.block.len() {
                return Err(format!("buffer is {size} B, block {} B", job.block.len()));
            }
            // SAFETY: the resource is kept until the copy's event
            // completed; the block is held by the job.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    job.block.ptr() as *mut _,
                    resource.resource().ptr,
                    size,
                    lane.stream,
                )
                .result()
                .map_err(|e| CudaError(e).to_string())?;
            }
            Ok(resource)
        },
        complete: |job: Download, outcome: Result<_, String>| match outcome {
            Ok(resource) => {
                drop(resource);
                job.succeed();
            }
            Err(err) => {
                tracing::warn!(%err, "download failed; the tensor stays on the device");
                job.fail();
            }
        },
    };
    spawn("burn-swap-d2h", device, copier)
}

pub(crate) fn spawn_upload(device: CudaDevice) -> Result<Worker<Upload>, CudaError> {
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
        copy: |lane: &Lane, job: &Upload| {
            let resource = lane
                .client
                .get_resource(job.dst.clone())
                .map_err(|e| format!("{e:?}"))?;
            // SAFETY: as for downloads; the block is held by the job.
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(
                    resource.resource().ptr,
                    job.block.ptr() as *const _,
                    job.block.len(),
                    lane.stream,
                )
                .result()
                .map_err(|e| CudaError(e).to_string())?;
            }
            Ok(resource)
        },
        complete: |job: Upload, outcome: Result<_, String>| {
            let dst = job.dst.clone();
            job.complete(outcome.map(|resource| {
                drop(resource);
                dst
            }));
        },
    };
    spawn("burn-swap-h2d", device, copier)
}
