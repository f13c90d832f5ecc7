//! One copy thread per direction, each with its own CUDA stream.
//!
//! A thread retains the device's primary context (the one CubeCL uses), so
//! CubeCL's device pointers are valid on its stream. Ordering against
//! compute is set up on the compute thread, when a job is made: CubeCL is
//! asked for a fresh marker of the compute stream from the lane's own CubeCL
//! stream, which makes the lane's stream wait (on the GPU) for compute's
//! position at that moment ([`Worker::order_after_compute`]). The copy thread then
//! takes the jobs that have arrived and:
//! 1. synchronises its CubeCL stream, blocking only itself: every kernel
//!    enqueued on compute before the jobs were made has run, so downloads
//!    read final data and upload destinations are no longer read by queued
//!    kernels (their memory may have been freed by compute and reused);
//! 2. copies each buffer on its own stream (never CubeCL's, which waits on
//!    the compute backlog), recording one event per copy;
//! 3. completes the oldest copy in flight once its event passed (a
//!    download's device tensor is dropped, so its memory goes back to
//!    CubeCL's pool; an upload's handle is handed over), then takes newly
//!    arrived jobs before waiting on the next one. Copies still queued keep
//!    the copy engine busy meanwhile: the stream only runs dry when no job
//!    is waiting, not at every batch boundary.
//!
//! A job that is dropped unfinished (its thread stopped) completes with an
//! error, and a download gives its tensor back: nobody waits forever.

use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};

use burn_cubecl::tensor::CubeTensor;
use cubecl::client::ComputeClient;
use cubecl::cuda::{CudaDevice, CudaRuntime};
use cubecl::server::Handle;
use cubecl::stream_id::StreamId;
use cubecl::Runtime;
use cudarc::driver::{result, sys};

use super::pinned::PinnedBlock;
use super::CudaError;

/// Copies in flight on one lane at most (one CUDA event each).
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

pub(crate) struct Worker<J> {
    tx: Mutex<Sender<J>>,
    /// The CubeCL stream of the copy thread (the one that waits on compute).
    stream: StreamId,
}

impl<J: Send + 'static> Worker<J> {
    /// Queues a job; it must have been ordered with [`Worker::order_after_compute`]
    /// on the compute thread first.
    pub(crate) fn send(&self, job: J) -> Result<(), J> {
        self.tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send(job)
            .map_err(|e| e.0)
    }

    fn on_lane(&self, compute: &ComputeClient<CudaRuntime>) -> ComputeClient<CudaRuntime> {
        let mut lane = compute.clone();
        // SAFETY: the client only selects which CubeCL stream requests are
        // ordered on; the device serialises all access.
        unsafe { lane.set_stream(self.stream) };
        lane
    }

    /// Makes this worker's CubeCL stream wait, on the GPU, until compute has
    /// run what the calling (compute) thread enqueued so far. Asking for a
    /// fresh compute-stream marker from the worker's stream is CubeCL's own
    /// cross-stream path: it records an event on compute and waits on it.
    pub(crate) fn order_after_compute(
        &self,
        compute: &ComputeClient<CudaRuntime>,
    ) -> Result<(), String> {
        let marker = compute.empty(1);
        self.on_lane(compute)
            .get_resource(marker)
            .map(drop)
            .map_err(|e| format!("{e:?}"))
    }
}

/// What a copy thread needs to run: its context, stream and events.
struct Lane {
    stream: sys::CUstream,
    /// One event per copy in flight.
    events: Vec<sys::CUevent>,
    client: ComputeClient<CudaRuntime>,
}

impl Lane {
    fn open(device: &CudaDevice) -> Result<Self, CudaError> {
        super::make_current(device)?;
        let stream =
            result::stream::create(result::stream::StreamKind::NonBlocking).map_err(CudaError)?;
        let events = (0..MAX_IN_FLIGHT)
            .map(|_| {
                result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                    .map_err(CudaError)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            stream,
            events,
            client: CudaRuntime::client(device),
        })
    }

    /// Waits until compute has passed every position this lane was ordered after.
    fn wait_for_compute(&self) -> Result<(), String> {
        cubecl::future::block_on(self.client.sync()).map_err(|e| format!("{e:?}"))
    }

    /// Marks the end of copy `index` on the lane's stream.
    fn record(&self, index: usize) -> Result<(), String> {
        // SAFETY: the event and the stream belong to this lane.
        unsafe {
            result::event::record(self.events[index], self.stream)
                .map_err(|e| CudaError(e).to_string())
        }
    }

    /// Blocks until copy `index` finished.
    fn wait_copy(&self, index: usize) -> Result<(), String> {
        // SAFETY: the event belongs to this lane.
        unsafe {
            result::event::synchronize(self.events[index]).map_err(|e| CudaError(e).to_string())
        }
    }
}

/// What a copy thread does with its jobs.
struct Copier<P, C, D> {
    /// Takes a freshly arrived batch: fences it against compute and returns
    /// the jobs to copy (completing any that cannot be copied).
    prepare: P,
    /// Issues one job's copy on the lane's stream; returns what must live
    /// until the copy finished.
    copy: C,
    /// Hands a job its outcome once its copy finished (or failed).
    complete: D,
}

fn spawn<J, K, P, C, D>(
    name: &str,
    device: CudaDevice,
    copier: Copier<P, C, D>,
) -> Result<Worker<J>, CudaError>
where
    J: Send + 'static,
    P: Fn(&Lane, Vec<J>) -> Vec<J> + Send + 'static,
    C: Fn(&Lane, &J) -> Result<K, String> + Send + 'static,
    D: Fn(J, Result<K, String>) + Send + 'static,
{
    let (tx, rx): (Sender<J>, Receiver<J>) = channel();
    let (ready_tx, ready_rx) = channel();
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
            run_lane(&lane, &rx, &copier);
        })
        .map_err(|e| CudaError::other(format!("spawning {name}: {e}")))?;
    let stream = ready_rx
        .recv()
        .map_err(|_| CudaError::other(format!("{name} did not start")))??;
    Ok(Worker {
        tx: Mutex::new(tx),
        stream,
    })
}

/// The copy thread's loop: issue whatever has arrived, complete the oldest
/// copy, repeat; block on the channel only when nothing is in flight. Ends
/// once the channel closed and every copy completed.
fn run_lane<J, K, P, C, D>(lane: &Lane, rx: &Receiver<J>, copier: &Copier<P, C, D>)
where
    P: Fn(&Lane, Vec<J>) -> Vec<J>,
    C: Fn(&Lane, &J) -> Result<K, String>,
    D: Fn(J, Result<K, String>),
{
    let mut in_flight: VecDeque<(J, Result<K, String>, usize)> = VecDeque::new();
    let mut free_events: Vec<usize> = (0..lane.events.len()).rev().collect();
    loop {
        let mut arrived = Vec::new();
        if in_flight.is_empty() {
            match rx.recv() {
                Ok(job) => arrived.push(job),
                Err(_) => return,
            }
        }
        while arrived.len() < free_events.len() {
            match rx.try_recv() {
                Ok(job) => arrived.push(job),
                Err(_) => break,
            }
        }
        if !arrived.is_empty() {
            let _span = tracing::trace_span!("copy_batch", jobs = arrived.len()).entered();
            for job in (copier.prepare)(lane, arrived) {
                let event = free_events.pop().expect("one free event per arrived job");
                let copied =
                    (copier.copy)(lane, &job).and_then(|keep| lane.record(event).map(|()| keep));
                in_flight.push_back((job, copied, event));
            }
        }
        if let Some((job, copied, event)) = in_flight.pop_front() {
            let outcome = copied.and_then(|keep| lane.wait_copy(event).map(|()| keep));
            free_events.push(event);
            (copier.complete)(job, outcome);
        }
    }
}

pub(crate) fn spawn_download(device: CudaDevice) -> Result<Worker<Download>, CudaError> {
    let copier = Copier {
        prepare: |lane: &Lane, batch: Vec<Download>| {
            if let Err(err) = lane.wait_for_compute() {
                tracing::warn!(%err, "download fence failed; tensors stay on the device");
                batch.into_iter().for_each(Download::fail);
                return Vec::new();
            }
            batch
        },
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
        prepare: |lane: &Lane, batch: Vec<Upload>| {
            // A block is read only once its own download finished; a failed
            // download kept the tensor on the device: nothing to copy.
            let (ready, failed): (Vec<Upload>, Vec<Upload>) = batch
                .into_iter()
                .partition(|job| job.after.wait_with(|result| matches!(result, Some(Ok(())))));
            for job in failed {
                job.complete(Err("its download failed".into()));
            }
            if ready.is_empty() {
                return ready;
            }
            // The destinations were taken before the jobs' fences: once
            // compute passed them, nothing queued still reads that memory.
            if let Err(err) = lane.wait_for_compute() {
                for job in ready {
                    job.complete(Err(format!("upload fence: {err}")));
                }
                return Vec::new();
            }
            ready
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
