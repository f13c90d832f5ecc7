//! One copy thread per direction, each with its own CUDA stream.
//!
//! A thread retains the device's primary context (the one CubeCL uses), so
//! CubeCL's device pointers are valid on its stream. It takes jobs in
//! batches and, per batch:
//! 1. fences against the compute stream: it allocates a tiny handle on the
//!    compute stream (so at its current position), asks CubeCL for it from
//!    its own CubeCL stream (which makes that stream wait on compute) and
//!    synchronises that stream, blocking only this thread. After it, every
//!    kernel enqueued before the batch was taken has run: downloads read
//!    final data, and upload destinations that compute used before they
//!    were freed are no longer read by queued kernels;
//! 2. copies each buffer on its own stream (never CubeCL's, which stays tied
//!    to the compute backlog), records one event and waits for it;
//! 3. only then completes the jobs: a download's device tensor is dropped
//!    (its memory goes back to CubeCL's pool) after the copy finished.

use std::sync::atomic::{AtomicU64, Ordering};
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

/// Jobs in one batch at most (bounds the latency of the first one).
const MAX_BATCH: usize = 64;

/// A value that another thread fills in once.
pub(crate) struct Ticket<T> {
    value: Mutex<Option<T>>,
    ready: Condvar,
}

impl<T> Ticket<T> {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self { value: Mutex::new(None), ready: Condvar::new() })
    }
    pub(crate) fn set(&self, value: T) {
        *self.value.lock().unwrap_or_else(|p| p.into_inner()) = Some(value);
        self.ready.notify_all();
    }
    pub(crate) fn is_set(&self) -> bool {
        self.value.lock().unwrap_or_else(|p| p.into_inner()).is_some()
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

/// Device to host: the tensor is held until its bytes are in the block.
/// On failure the tensor is handed back, so nothing is lost.
pub(crate) struct Download {
    pub tensor: CubeTensor<CudaRuntime>,
    pub block: Arc<PinnedBlock>,
    pub compute: StreamId,
    pub done: Arc<Ticket<Result<(), CubeTensor<CudaRuntime>>>>,
}

/// Host to device: a new buffer of the block's size, filled from it.
pub(crate) struct Upload {
    pub block: Arc<PinnedBlock>,
    pub compute: StreamId,
    pub done: Arc<Ticket<Result<Handle, String>>>,
}

/// Device memory CubeCL reports for the upload thread's own stream.
#[derive(Default)]
pub(crate) struct StreamUsage {
    pub in_use: AtomicU64,
    pub reserved: AtomicU64,
}

pub(crate) struct Worker<J> {
    tx: Mutex<Sender<J>>,
}

impl<J: Send + 'static> Worker<J> {
    pub(crate) fn send(&self, job: J) -> Result<(), J> {
        self.tx.lock().unwrap_or_else(|p| p.into_inner()).send(job).map_err(|e| e.0)
    }
}

/// What a copy thread needs to run: its context and stream.
struct Lane {
    stream: sys::CUstream,
    event: sys::CUevent,
    client: ComputeClient<CudaRuntime>,
}

impl Lane {
    fn open(device: &CudaDevice) -> Result<Self, CudaError> {
        super::make_current(device)?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking).map_err(CudaError)?;
        let event = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(CudaError)?;
        Ok(Self { stream, event, client: CudaRuntime::client(device) })
    }

    /// Waits until compute has run everything enqueued on `compute` so far.
    fn fence(&self, compute: StreamId) -> Result<(), String> {
        let mut on_compute = self.client.clone();
        // SAFETY: the client only selects which CubeCL stream the allocation
        // is ordered on; the device thread serialises all access.
        unsafe { on_compute.set_stream(compute) };
        let marker = on_compute.empty(1);
        self.client.get_resource(marker).map_err(|e| format!("{e:?}"))?;
        cubecl::future::block_on(self.client.sync()).map_err(|e| format!("{e:?}"))
    }

    fn finish_copies(&self) -> Result<(), String> {
        // SAFETY: the event and the stream belong to this lane.
        unsafe {
            result::event::record(self.event, self.stream).map_err(|e| CudaError(e).to_string())?;
            result::event::synchronize(self.event).map_err(|e| CudaError(e).to_string())
        }
    }
}

/// A copy's result: its own error, or the batch's.
fn outcome<T>(batch: &Result<(), String>, copy: Result<T, String>) -> Result<T, String> {
    match (batch, copy) {
        (Ok(()), copy) => copy,
        (Err(err), _) => Err(err.clone()),
    }
}

fn spawn<J: Send + 'static>(
    name: &str,
    device: CudaDevice,
    run: impl Fn(&Lane, Vec<J>) + Send + 'static,
) -> Result<Worker<J>, CudaError> {
    let (tx, rx): (Sender<J>, Receiver<J>) = channel();
    let (ready_tx, ready_rx) = channel();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let lane = match Lane::open(&device) {
                Ok(lane) => {
                    let _ = ready_tx.send(Ok(()));
                    lane
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            while let Ok(first) = rx.recv() {
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match rx.try_recv() {
                        Ok(job) => batch.push(job),
                        Err(_) => break,
                    }
                }
                run(&lane, batch);
            }
        })
        .map_err(|e| CudaError::other(format!("spawning {name}: {e}")))?;
    ready_rx.recv().map_err(|_| CudaError::other(format!("{name} did not start")))??;
    Ok(Worker { tx: Mutex::new(tx) })
}

pub(crate) fn spawn_download(device: CudaDevice) -> Result<Worker<Download>, CudaError> {
    spawn("burn-swap-d2h", device, |lane, batch: Vec<Download>| {
        let _span = tracing::trace_span!("d2h_batch", jobs = batch.len()).entered();
        let compute = batch.last().map(|j| j.compute);
        let fenced = compute.map_or(Ok(()), |c| lane.fence(c));
        if let Err(err) = fenced {
            tracing::warn!(%err, "download fence failed; tensors stay on the device");
            for job in batch {
                job.done.set(Err(job.tensor));
            }
            return;
        }
        let mut issued = Vec::with_capacity(batch.len());
        for job in batch {
            let copied = lane.client.get_resource(job.tensor.handle.clone()).map_err(|e| format!("{e:?}")).and_then(
                |resource| {
                    let size = resource.resource().size as usize;
                    if size != job.block.len() {
                        return Err(format!("buffer is {size} B, block {} B", job.block.len()));
                    }
                    // SAFETY: the resource stays alive until the event below
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
            );
            issued.push((job, copied));
        }
        let finished = lane.finish_copies();
        for (job, copied) in issued {
            match outcome(&finished, copied) {
                Ok(resource) => {
                    drop(resource);
                    drop(job.tensor);
                    job.done.set(Ok(()));
                }
                Err(err) => {
                    tracing::warn!(%err, "download failed; the tensor stays on the device");
                    job.done.set(Err(job.tensor));
                }
            }
        }
    })
}

pub(crate) fn spawn_upload(device: CudaDevice, usage: Arc<StreamUsage>) -> Result<Worker<Upload>, CudaError> {
    spawn("burn-swap-h2d", device, move |lane, batch: Vec<Upload>| {
        let _span = tracing::trace_span!("h2d_batch", jobs = batch.len()).entered();
        // Destinations first, then the fence: compute must have passed every
        // kernel that used their memory before it was freed.
        let dsts: Vec<Handle> = batch.iter().map(|j| lane.client.empty(j.block.len())).collect();
        let compute = batch.last().map(|j| j.compute);
        if let Err(err) = compute.map_or(Ok(()), |c| lane.fence(c)) {
            for job in batch {
                job.done.set(Err(format!("upload fence: {err}")));
            }
            return;
        }
        let mut issued = Vec::with_capacity(batch.len());
        for (job, dst) in batch.into_iter().zip(dsts) {
            let copied = lane.client.get_resource(dst.clone()).map_err(|e| format!("{e:?}")).and_then(|resource| {
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
            });
            issued.push((job, dst, copied));
        }
        let finished = lane.finish_copies();
        if let Ok(u) = lane.client.memory_usage() {
            usage.in_use.store(u.bytes_in_use, Ordering::Relaxed);
            usage.reserved.store(u.bytes_reserved, Ordering::Relaxed);
        }
        for (job, dst, copied) in issued {
            match outcome(&finished, copied) {
                Ok(resource) => {
                    drop(resource);
                    job.done.set(Ok(dst));
                }
                Err(err) => job.done.set(Err(err)),
            }
        }
    })
}
