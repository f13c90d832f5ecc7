//! Tensors of burn's fusion backend (`Fusion<CubeBackend<R>>`: burn-cuda's
//! `Cuda`, burn-wgpu's `Wgpu`), moved without changing what fusion does.
//!
//! Fusion queues ops and fuses runs of them into one kernel; where a run ends
//! depends on the ops registered. Reading a tensor through fusion's client
//! executes its queue at that point, and registering an op (an `Init` for a
//! tensor coming back) ends a run: either changes fusion's kernels, and with
//! them results in the last bits. So burn-swap never adds an op to the
//! compute stream and never drains it:
//! - Offload asks, on a fusion stream of its own, with an op that has no
//!   tensors (fusion runs it at once, fusing nothing) and looks into fusion's
//!   handle container. Fusion runs a stream's ops in the order they were
//!   registered, and an op's outputs get handles only when it runs. Once a
//!   *witness*, a tensor the training thread made after the offload was asked
//!   for, has a handle, every op that read the tensor before has run, and its
//!   handle can be taken out of the container. Until then the request is
//!   asked again after each op: nothing waits.
//! - The taken buffer is copied by [`super::cube`] (CUDA: pinned and
//!   asynchronous).
//! - Coming back, a buffer with the same strides is put back under the same
//!   tensor id, from the same thread and so before any later op that reads
//!   it reaches fusion's server. Fusion sees the same ops, tensor ids and
//!   statuses as without burn-swap.
//!
//! - Freed for a rebuild, a tensor stays live for fusion as it would without
//!   burn-swap: its buffer is taken the same way and freed. Its op runs again
//!   on a fusion stream of burn-swap's own, on aliases of the inputs'
//!   buffers, and the result is put back under the tensor's id; a stand-in's
//!   buffer is aliased when the freed tensor's is taken (the alias leaves the
//!   device with the stand-in, if that is swapped). Dropping the tensor
//!   or holding its stand-in to the rebuild would change fusion's blocks, and
//!   the kernels autotune picks for them.
//!
//! A tensor id two live handles share (an op that returns its input) is never
//! moved: the other handle would still reach the same fusion tensor.

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use burn_backend::{Shape, StreamId, TensorMetadata};
use burn_cubecl::fusion::FusionCubeRuntime;
use burn_cubecl::tensor::CubeTensor;
use burn_cubecl::{CubeBackend, CubeRuntime};
use burn_fusion::stream::{Operation, OperationStreams};
use burn_fusion::{FusionRuntime, FusionTensor};
use burn_ir::{CustomOpIr, HandleContainer, OperationIr, TensorId, TensorIr, TensorStatus};

use super::cube::{self, CubeCopy, CubeLoad};
use super::{DeviceCopy, DeviceLoad, PinnedLimits, TransferError, ZeroCounter};
use crate::policy::Codec;

/// The backend that names fusion's handle conversions (they do not depend
/// on the element types).
type Inner<R> = CubeBackend<R, f32, i32, u8>;
/// The float primitive of `Fusion<CubeBackend<R, ..>>`.
pub(crate) type FusedTensor<R> = FusionTensor<FusionCubeRuntime<R>>;
type Handles<R> = HandleContainer<<FusionCubeRuntime<R> as FusionRuntime>::FusionHandle>;

/// burn-swap's own fusion stream. Threads are numbered up from 0, so no
/// thread has it; nothing runs on the device under it.
const OWN_STREAM: StreamId = StreamId {
    value: u64::MAX - 0x5357,
};

/// Fresh tensors of the latest ops: the witnesses. A few dozen cover the
/// ops between an offload and the moment fusion runs them.
const WITNESSES: usize = 64;

#[derive(Debug, Clone, Copy)]
struct Witness {
    /// Order in which it was made, over all threads.
    seq: u64,
    id: TensorId,
    stream: StreamId,
}

#[derive(Default)]
struct Registry {
    next_seq: u64,
    /// Highest tensor id seen: fusion's ids only grow, so a tensor with a
    /// higher one was made by the op that returned it, not handed through.
    newest: Option<TensorId>,
    witnesses: VecDeque<Witness>,
    /// Live handles per fusion tensor id.
    holders: HashMap<TensorId, u32>,
    /// Offloads still waiting for their witness, or taken and not yet copied.
    pending: Vec<Weak<dyn Pending>>,
}

/// The process-wide value in `cell`, locked (a poisoned lock as it is).
fn locked<T: Default>(cell: &'static OnceLock<Mutex<T>>) -> MutexGuard<'static, T> {
    cell.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

fn registry() -> MutexGuard<'static, Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    locked(&REGISTRY)
}

/// Counts a handle of a fusion tensor until dropped.
pub(crate) struct Holder(TensorId);

impl Drop for Holder {
    fn drop(&mut self) {
        let mut registry = registry();
        if let Some(count) = registry.holders.get_mut(&self.0) {
            *count -= 1;
            if *count == 0 {
                registry.holders.remove(&self.0);
            }
        }
    }
}

/// A new handle holds `tensor`: counted, and a witness when it is fresh.
pub(crate) fn note_new<R: CubeRuntime>(tensor: &FusedTensor<R>) -> Holder {
    let mut registry = registry();
    *registry.holders.entry(tensor.id).or_insert(0) += 1;
    let fresh = registry.newest.is_none_or(|newest| tensor.id > newest);
    if fresh {
        registry.newest = Some(tensor.id);
        let seq = registry.next_seq;
        registry.next_seq += 1;
        if registry.witnesses.len() == WITNESSES {
            registry.witnesses.pop_front();
        }
        registry.witnesses.push_back(Witness {
            seq,
            id: tensor.id,
            stream: tensor.stream,
        });
    }
    Holder(tensor.id)
}

/// What the offloads of fusion tensors did, since the process started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FusionSwapStats {
    /// Buffers taken out of fusion and copied to the host.
    pub moved: u64,
    /// Their bytes.
    pub moved_bytes: u64,
    /// Offloads that ended with the buffer still in fusion: asked back
    /// before the ops reading it had run, or the copy failed.
    pub kept: u64,
    /// Ops the training thread registered between asking for an offload and
    /// fusion handing its buffer over, summed over the buffers taken: fusion
    /// runs ops later than they are called, and until then the buffer stays.
    pub take_lag_ops: u64,
    /// The longest of those lags.
    pub take_lag_ops_max: u64,
    /// Polls registered on fusion's server for buffers still waiting for
    /// their ops (at most one per waiting offload after each op).
    pub polls: u64,
    /// Training-thread time spent moving pending offloads on after ops
    /// (polls, the copies' launches, waits to keep pace), in nanoseconds.
    pub progress_ns: u64,
    /// Of it, launching the copies of taken buffers (a pinned block, the
    /// job handed to CubeCL's device thread), in nanoseconds.
    pub copy_launch_ns: u64,
    /// Of it, registering polls on fusion's server, in nanoseconds.
    pub poll_ns: u64,
    /// Buffers taken out of fusion and freed: their tensors are rebuilt.
    pub freed: u64,
    /// Tensors rebuilt on burn-swap's rebuild stream and put back under
    /// their own ids.
    pub rebuilt: u64,
    /// Tensors freed for a rebuild whose buffer was still in fusion when
    /// backward needed them: nothing to rebuild.
    pub rebuilds_not_needed: u64,
    /// Stand-ins' aliases taken out of fusion with their source's buffer
    /// when it was copied to the host (made again when it came back).
    pub aliases_moved: u64,
}

static MOVED: AtomicU64 = AtomicU64::new(0);
static MOVED_BYTES: AtomicU64 = AtomicU64::new(0);
static KEPT: AtomicU64 = AtomicU64::new(0);
static TAKE_LAG: AtomicU64 = AtomicU64::new(0);
static TAKE_LAG_MAX: AtomicU64 = AtomicU64::new(0);
static POLLS: AtomicU64 = AtomicU64::new(0);
static PROGRESS_NS: AtomicU64 = AtomicU64::new(0);
static COPY_LAUNCH_NS: AtomicU64 = AtomicU64::new(0);
static POLL_NS: AtomicU64 = AtomicU64::new(0);
static FREED: AtomicU64 = AtomicU64::new(0);
static REBUILT: AtomicU64 = AtomicU64::new(0);
static REBUILDS_NOT_NEEDED: AtomicU64 = AtomicU64::new(0);
static ALIASES_MOVED: AtomicU64 = AtomicU64::new(0);
/// Ops finished on any thread: the clock take lags are counted in.
static OPS: AtomicU64 = AtomicU64::new(0);

/// The counters of [`FusionSwapStats`].
pub fn stats() -> FusionSwapStats {
    FusionSwapStats {
        moved: MOVED.load(Ordering::Relaxed),
        moved_bytes: MOVED_BYTES.load(Ordering::Relaxed),
        kept: KEPT.load(Ordering::Relaxed),
        take_lag_ops: TAKE_LAG.load(Ordering::Relaxed),
        take_lag_ops_max: TAKE_LAG_MAX.load(Ordering::Relaxed),
        polls: POLLS.load(Ordering::Relaxed),
        progress_ns: PROGRESS_NS.load(Ordering::Relaxed),
        copy_launch_ns: COPY_LAUNCH_NS.load(Ordering::Relaxed),
        poll_ns: POLL_NS.load(Ordering::Relaxed),
        freed: FREED.load(Ordering::Relaxed),
        rebuilt: REBUILT.load(Ordering::Relaxed),
        rebuilds_not_needed: REBUILDS_NOT_NEEDED.load(Ordering::Relaxed),
        aliases_moved: ALIASES_MOVED.load(Ordering::Relaxed),
    }
}

/// Where a tensor's buffer is.
enum Take<R: CubeRuntime> {
    /// Still in fusion, waiting for a witness.
    Waiting,
    /// Out of fusion's container, not yet copied.
    Taken(CubeTensor<R>),
    /// Copied (or being copied) to the host.
    Moved(CubeCopy<R>),
    /// Left in fusion (asked back before it could be taken, or the copy
    /// failed and the buffer went back).
    Kept,
    /// Freed: the tensor is to be rebuilt.
    Freed,
    /// Kept aside on the device, to be compared with its rebuild.
    Aside(CubeTensor<R>),
}

/// What becomes of a buffer once it is taken out of fusion.
#[derive(Debug, Clone, Copy)]
enum AfterTake {
    /// Copied to the host, within the asking thread's pinned pool limits,
    /// compressed with the codec first where one is given.
    Copy {
        pinned: PinnedLimits,
        codec: Option<Codec>,
    },
    /// Freed: the tensor is rebuilt in backward.
    Free,
    /// Kept aside, to be compared with its rebuild.
    KeepAside,
}

/// One offload's state, shared with the ops on burn-swap's stream.
struct TakeCell<R: CubeRuntime> {
    id: TensorId,
    shape: Shape,
    dtype: burn_backend::DType,
    /// The stream of the thread that asked: its ops read the tensor.
    stream: StreamId,
    /// Copied, freed or kept aside once taken.
    after_take: AfterTake,
    /// Counts the zeros of the copy (dropped with the cell if never taken).
    zeros: Mutex<Option<ZeroCounter>>,
    /// Witnesses from this sequence number on were made after the request.
    after: u64,
    state: Mutex<Take<R>>,
    /// A poll for it is queued on fusion's server.
    polling: AtomicBool,
    /// [`OPS`] when it was asked for.
    asked_at: u64,
    /// A freed tensor another tensor stands in for: that one's buffer is
    /// aliased when this one is taken.
    stand_in: Option<StandInAlias>,
}

/// The tensor that stands in for a freed one, and the alias its buffer
/// gets in fusion's container when the freed one's buffer is taken.
struct StandInAlias {
    link: Arc<AliasLink>,
    /// Keeps the source alive until its buffer is aliased (or the freed
    /// tensor stays); dropped on the training thread, since dropping a
    /// fusion tensor registers its drop on the dropping thread's stream.
    keep: Mutex<Option<Box<dyn Any + Send>>>,
}

/// A stand-in's alias, which follows its source through a copy to the
/// host: the alias is taken out of fusion's container when the source's
/// buffer is taken for the copy (or the copy would free no device memory:
/// ResNet-50's swapped ReLU outputs stood in for their inputs, and stayed),
/// and made again from the buffer put back.
struct AliasLink {
    source: TensorId,
    alias: TensorId,
    /// Listed in [`Follow`]: the alias is in fusion's container, or is made
    /// when the source is put back.
    linked: AtomicBool,
    /// The source's buffer was taken for a copy (the alias with it) and
    /// its put-back is not yet asked for: until it is, no alias can be read.
    away: AtomicBool,
    /// The freed tensor was made again from the alias (or died): the alias
    /// is not needed any more.
    done: AtomicBool,
}

/// The stand-ins' aliases of each source's buffer, on fusion's server.
#[derive(Default)]
struct Follow {
    aliases: HashMap<TensorId, Vec<Arc<AliasLink>>>,
}

fn follow() -> MutexGuard<'static, Follow> {
    static FOLLOW: OnceLock<Mutex<Follow>> = OnceLock::new();
    locked(&FOLLOW)
}

impl Follow {
    /// The aliases of `source`'s buffer.
    fn of(&self, source: &TensorId) -> &[Arc<AliasLink>] {
        self.aliases.get(source).map_or(&[], Vec::as_slice)
    }

    /// `link` is not needed any more.
    fn unlink(&mut self, link: &AliasLink) {
        if let Some(links) = self.aliases.get_mut(&link.source) {
            links.retain(|l| !std::ptr::eq(l.as_ref(), link));
            if links.is_empty() {
                self.aliases.remove(&link.source);
            }
        }
    }
}

impl StandInAlias {
    /// Lets the source go, once it is no longer needed for the alias.
    fn settle(&self) {
        drop(self.keep.lock().unwrap_or_else(|p| p.into_inner()).take());
    }
}

impl<R: CubeRuntime> fmt::Debug for TakeCell<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TakeCell({})", self.id)
    }
}

impl<R: CubeRuntime> TakeCell<R> {
    fn lock(&self) -> MutexGuard<'_, Take<R>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// On the training thread, once the take is decided: the tensor that
    /// stands in is no longer held for its alias.
    fn settle(&self) {
        if let Some(stand_in) = &self.stand_in {
            stand_in.settle();
        }
    }

    /// On fusion's server: takes the buffer once a witness ran.
    fn try_take(&self, handles: &mut Handles<R>, witnesses: &[Witness]) {
        self.polling.store(false, Ordering::Release);
        // Never block fusion's server: a cell held by the training thread is
        // not waiting any more, or is polled again after the next op.
        let Ok(mut state) = self.state.try_lock() else {
            return;
        };
        if !matches!(*state, Take::Waiting) {
            return;
        }
        let ran = witnesses
            .iter()
            .any(|w| w.seq >= self.after && w.stream == self.stream && handles.has_handle(&w.id));
        if !ran {
            return;
        }
        if !handles.has_handle(&self.id) {
            // Not expected (this handle keeps the tensor alive): leave it.
            KEPT.fetch_add(1, Ordering::Relaxed);
            *state = Take::Kept;
            return;
        }
        if let Some(stand_in) = &self.stand_in {
            let link = &stand_in.link;
            let mut follow = follow();
            match handles.get_handle_ref(&link.source).cloned() {
                Some(handle) => handles.register_handle(link.alias, handle),
                // Copied to the host (another freed tensor's alias follows
                // it): aliased when it is put back.
                None if follow
                    .of(&link.source)
                    .iter()
                    .any(|l| l.away.load(Ordering::Acquire)) =>
                {
                    link.away.store(true, Ordering::Release)
                }
                // Gone otherwise: this one stays.
                None => {
                    *state = Take::Kept;
                    return;
                }
            }
            link.linked.store(true, Ordering::Release);
            follow
                .aliases
                .entry(link.source)
                .or_default()
                .push(link.clone());
        }
        if matches!(self.after_take, AfterTake::Copy { .. }) {
            // Aliases of this buffer would keep it on the device: they
            // leave fusion's container with it and come back with it.
            for link in follow().of(&self.id) {
                handles.remove_handle(link.alias);
                link.away.store(true, Ordering::Release);
                ALIASES_MOVED.fetch_add(1, Ordering::Relaxed);
            }
        }
        let ir = TensorIr {
            id: self.id,
            shape: self.shape.clone(),
            status: TensorStatus::ReadWrite,
            dtype: self.dtype,
        };
        *state = Take::Taken(handles.get_float_tensor::<Inner<R>>(&ir));
        let lag = OPS.load(Ordering::Relaxed).saturating_sub(self.asked_at);
        TAKE_LAG.fetch_add(lag, Ordering::Relaxed);
        TAKE_LAG_MAX.fetch_max(lag, Ordering::Relaxed);
    }

    /// On the training thread: copies a taken buffer. A failed copy puts
    /// the buffer back in fusion.
    fn start_copy(&self, client: &burn_fusion::client::GlobalFusionClient<FusionCubeRuntime<R>>) {
        let mut state = self.lock();
        if !matches!(*state, Take::Taken(_)) {
            return;
        }
        let Take::Taken(tensor) = std::mem::replace(&mut *state, Take::Kept) else {
            unreachable!()
        };
        let (pinned, codec) = match self.after_take {
            AfterTake::Copy { pinned, codec } => (pinned, codec),
            AfterTake::Free => {
                FREED.fetch_add(1, Ordering::Relaxed);
                *state = Take::Freed;
                return;
            }
            AfterTake::KeepAside => {
                *state = Take::Aside(tensor);
                return;
            }
        };
        let bytes = tensor.handle.size_in_used();
        let zeros = self.zeros.lock().unwrap_or_else(|p| p.into_inner()).take();
        let launched = std::time::Instant::now();
        let copy = cube::offload(tensor, &pinned, codec, zeros);
        COPY_LAUNCH_NS.fetch_add(launched.elapsed().as_nanos() as u64, Ordering::Relaxed);
        *state = match copy {
            Ok(copy) => {
                MOVED.fetch_add(1, Ordering::Relaxed);
                MOVED_BYTES.fetch_add(bytes, Ordering::Relaxed);
                Take::Moved(copy)
            }
            Err((err, tensor)) => {
                tracing::warn!(%err, "copy of a fusion tensor failed; it stays on the device");
                put_back(client, self.id, tensor);
                KEPT.fetch_add(1, Ordering::Relaxed);
                Take::Kept
            }
        };
    }
}

/// An offload or a release in progress, seen without its runtime type.
trait Pending: Send + Sync {
    /// Moves it on.
    fn progress(&self, witnesses: &VecDeque<Witness>) -> Step;
    /// Its cell, to be polled with others of its runtime.
    fn cell(&self) -> Arc<dyn Any + Send + Sync>;
    /// A copy to the host waits on its take (a release only frees).
    fn copies(&self) -> bool;
    /// Asks fusion's server, in one op, to take the buffers of `pending`
    /// (of this one's runtime) whose ops ran, as `witnesses` tell.
    fn poll(&self, pending: &[Arc<dyn Pending>], witnesses: Vec<Witness>);
    /// Its bytes while its buffer is still on the device waiting for fusion
    /// (not taken, or taken and not yet copied).
    fn bytes_on_device(&self) -> u64;
    /// Blocks until fusion's server has taken every op registered so far
    /// (the polls included), without running any of them: a sync of
    /// burn-swap's own stream, which holds no op.
    fn catch_up(&self);
}

/// Where a pending take stands after [`Pending::progress`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Nothing more to do for it.
    Done,
    /// Waiting for its ops (a poll for it is queued, or no witness yet).
    Waiting,
    /// A witness made after it may have run: worth a poll.
    WantsPoll,
}

struct PendingTake<R: CubeRuntime> {
    cell: Arc<TakeCell<R>>,
    client: burn_fusion::client::GlobalFusionClient<FusionCubeRuntime<R>>,
}

impl<R: CubeRuntime> Pending for PendingTake<R> {
    fn progress(&self, witnesses: &VecDeque<Witness>) -> Step {
        let (waiting, taken) = match &*self.cell.lock() {
            Take::Waiting => (true, false),
            Take::Taken(_) => (false, true),
            Take::Moved(_) | Take::Kept | Take::Freed | Take::Aside(_) => (false, false),
        };
        if taken {
            self.cell.start_copy(&self.client);
        }
        if !waiting {
            self.cell.settle();
            return Step::Done;
        }
        let witnessed = witnesses
            .iter()
            .any(|w| w.seq >= self.cell.after && w.stream == self.cell.stream);
        match witnessed && !self.cell.polling.load(Ordering::Acquire) {
            true => Step::WantsPoll,
            false => Step::Waiting,
        }
    }

    fn cell(&self) -> Arc<dyn Any + Send + Sync> {
        self.cell.clone()
    }

    fn copies(&self) -> bool {
        matches!(self.cell.after_take, AfterTake::Copy { .. })
    }

    fn poll(&self, pending: &[Arc<dyn Pending>], witnesses: Vec<Witness>) {
        let cells: Vec<Arc<TakeCell<R>>> = pending
            .iter()
            .filter_map(|p| p.cell().downcast::<TakeCell<R>>().ok())
            .filter(|cell| !cell.polling.swap(true, Ordering::AcqRel))
            .collect();
        if cells.is_empty() {
            return;
        }
        POLLS.fetch_add(1, Ordering::Relaxed);
        let started = std::time::Instant::now();
        submit(&self.client, Poll { cells, witnesses });
        POLL_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    fn catch_up(&self) {
        OWN_STREAM.executes(|| self.client.sync(|| ()));
    }

    fn bytes_on_device(&self) -> u64 {
        match &*self.cell.lock() {
            Take::Waiting | Take::Taken(_) => {
                self.cell.shape.num_elements() as u64 * self.cell.dtype.size() as u64
            }
            Take::Moved(_) | Take::Kept | Take::Freed | Take::Aside(_) => 0,
        }
    }
}

/// Asks fusion's server to take waiting buffers.
#[derive(Debug)]
struct Poll<R: CubeRuntime> {
    cells: Vec<Arc<TakeCell<R>>>,
    witnesses: Vec<Witness>,
}

impl<R: CubeRuntime> Operation<FusionCubeRuntime<R>> for Poll<R> {
    fn execute(&self, handles: &mut Handles<R>) {
        for cell in &self.cells {
            cell.try_take(handles, &self.witnesses);
        }
    }
}

/// Puts a buffer back under its tensor id.
struct PutBack<R: CubeRuntime> {
    id: TensorId,
    tensor: Mutex<Option<CubeTensor<R>>>,
}

impl<R: CubeRuntime> fmt::Debug for PutBack<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PutBack({})", self.id)
    }
}

impl<R: CubeRuntime> Operation<FusionCubeRuntime<R>> for PutBack<R> {
    fn execute(&self, handles: &mut Handles<R>) {
        let tensor = self.tensor.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(tensor) = tensor {
            handles.register_float_tensor::<Inner<R>>(&self.id, tensor);
        }
        // Aliases that left with the buffer come back with it.
        for link in follow().of(&self.id) {
            if !handles.has_handle(&link.alias) {
                let handle = handles.get_handle(&self.id, &TensorStatus::ReadOnly);
                handles.register_handle(link.alias, handle);
                link.away.store(false, Ordering::Release);
            }
        }
    }
}

/// Registers `op` on burn-swap's own fusion stream, where it runs at once
/// (it has no tensors, so there is nothing to fuse it with).
fn submit<R: CubeRuntime, O: Operation<FusionCubeRuntime<R>> + 'static>(
    client: &burn_fusion::client::GlobalFusionClient<FusionCubeRuntime<R>>,
    op: O,
) {
    OWN_STREAM.executes(|| {
        let desc = CustomOpIr::new("burn-swap", &[], &[]);
        client.register(OperationStreams::default(), OperationIr::Custom(desc), op);
    });
    // Fusion's server takes its queue in batches: without a flush, the op
    // could wait there for the next op of the compute thread.
    client.flush_queue();
}

fn put_back<R: CubeRuntime>(
    client: &burn_fusion::client::GlobalFusionClient<FusionCubeRuntime<R>>,
    id: TensorId,
    tensor: CubeTensor<R>,
) {
    // Aliases of it can be read by any op sent from now on: this one
    // makes them again first.
    for link in follow().of(&id) {
        link.away.store(false, Ordering::Release);
    }
    submit(
        client,
        PutBack {
            id,
            tensor: Mutex::new(Some(tensor)),
        },
    );
}

/// Moves every pending offload on: takes are asked again, taken buffers
/// are copied. Called by the training thread after each op.
///
/// `keep_pace`: fusion's server runs ops later than the training thread
/// calls them, and while it autotunes new shapes (the first iterations)
/// the training thread can run far ahead; the buffers it asked to move off
/// then stay while later ops allocate. With `keep_pace`, the training thread
/// waits until the server has taken what was asked so far, and copies what
/// the polls took before going on. Waiting changes no op fusion sees.
pub(crate) fn progress(keep_pace: bool) {
    OPS.fetch_add(1, Ordering::Relaxed);
    // Every op calls this: no lock while nothing is pending.
    if !ANY_PENDING.load(Ordering::Acquire) {
        return;
    }
    let ((), nanos) = crate::decorator::timed_ns(crate::decorator::Part::Progress, || {
        let first = progress_pending();
        if keep_pace {
            if let Some(pending) = first {
                pending.catch_up();
                progress_pending();
            }
        }
    });
    PROGRESS_NS.fetch_add(nanos, Ordering::Relaxed);
}

/// Ops between polls while only releases wait: a poll is an op of fusion's
/// server, and a release taken a few ops later only frees a little later.
/// A waiting copy is polled for after every op, releases with it.
const RELEASE_POLL_EVERY: u64 = 8;

/// [`OPS`] at the last poll.
static LAST_POLL: AtomicU64 = AtomicU64::new(0);

/// One pass over the pending offloads; the first still waiting, if any.
fn progress_pending() -> Option<Arc<dyn Pending>> {
    let (pending, witnesses) = {
        let mut registry = registry();
        let pending: Vec<_> = registry.pending.drain(..).collect();
        (pending, registry.witnesses.clone())
    };
    let mut first = None;
    let mut wanting: Vec<Arc<dyn Pending>> = Vec::new();
    let still: Vec<_> = pending
        .into_iter()
        .filter(|p| {
            let Some(p) = p.upgrade() else { return false };
            let step = p.progress(&witnesses);
            if step == Step::WantsPoll {
                wanting.push(p.clone());
            }
            let waits = step != Step::Done;
            if waits && first.is_none() {
                first = Some(p);
            }
            waits
        })
        .collect();
    let ops = OPS.load(Ordering::Relaxed);
    let due = wanting.iter().any(|p| p.copies())
        || ops.saturating_sub(LAST_POLL.load(Ordering::Relaxed)) >= RELEASE_POLL_EVERY;
    if due && !wanting.is_empty() {
        LAST_POLL.store(ops, Ordering::Relaxed);
        wanting[0].poll(&wanting, witnesses.iter().copied().collect());
        // The poll ran at once: buffers it took are copied (or freed) now,
        // not after the next op.
        for p in &wanting {
            p.progress(&witnesses);
        }
    }
    let mut registry = registry();
    registry.pending.extend(still);
    ANY_PENDING.store(!registry.pending.is_empty(), Ordering::Release);
    first
}

/// The offloads still waiting for fusion to run the ops before them, and
/// their bytes (for an out-of-memory report: fusion runs ops later than
/// they are called, so these buffers are still on the device).
pub(crate) fn waiting() -> (usize, u64) {
    let pending: Vec<_> = registry()
        .pending
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    pending
        .iter()
        .map(|p| p.bytes_on_device())
        .filter(|&b| b > 0)
        .fold((0, 0), |(n, total), b| (n + 1, total + b))
}

/// Whether the registry's pending list may hold something (set with the
/// registry locked, so it is never false while the list holds an entry).
static ANY_PENDING: AtomicBool = AtomicBool::new(false);

/// A fusion tensor whose buffer is leaving the device (or has left): the
/// tensor itself is kept, with its id, for fusion to find again.
pub(crate) struct FusedCopy<R: CubeRuntime> {
    tensor: FusedTensor<R>,
    cell: Arc<TakeCell<R>>,
    /// Keeps the offload in the pending list. Dropped with it (the tensor
    /// died on the host): no poll is asked any more, and a buffer a queued
    /// one still takes is freed with the last reference to its cell.
    _pending: Arc<dyn Pending>,
}

/// A fusion tensor coming back.
pub(crate) struct FusedLoad<R: CubeRuntime> {
    tensor: FusedTensor<R>,
    load: Option<CubeLoad<R>>,
}

/// Asks for `tensor`'s buffer to leave the device (compressed with `codec`
/// once taken, if given); `Err` gives it back.
#[allow(clippy::result_large_err)] // the tensor itself comes back on failure
pub(crate) fn offload<R: CubeRuntime>(
    tensor: FusedTensor<R>,
    pinned: PinnedLimits,
    codec: Option<Codec>,
    zeros: Option<ZeroCounter>,
) -> Result<FusedCopy<R>, (TransferError, FusedTensor<R>)> {
    let (tensor, cell, pending) = ask(tensor, zeros, AfterTake::Copy { pinned, codec }, None)?;
    Ok(FusedCopy {
        tensor,
        cell,
        _pending: pending,
    })
}

/// Asks for `tensor`'s buffer to be taken out of fusion once the ops
/// before have run, then dealt with as `after_take` says.
#[allow(clippy::result_large_err, clippy::type_complexity)]
fn ask<R: CubeRuntime>(
    tensor: FusedTensor<R>,
    zeros: Option<ZeroCounter>,
    after_take: AfterTake,
    stand_in: Option<StandInAlias>,
) -> Result<(FusedTensor<R>, Arc<TakeCell<R>>, Arc<dyn Pending>), (TransferError, FusedTensor<R>)> {
    let mut registry = registry();
    if registry.holders.get(&tensor.id).copied().unwrap_or(0) > 1 {
        return Err((
            TransferError::Unsupported(
                "another live tensor shares this fusion tensor (an op returned its input)".into(),
            ),
            tensor,
        ));
    }
    let cell = Arc::new(TakeCell {
        id: tensor.id,
        shape: tensor.shape(),
        dtype: tensor.dtype,
        stream: StreamId::current(),
        after_take,
        zeros: Mutex::new(zeros),
        after: registry.next_seq,
        state: Mutex::new(Take::Waiting),
        polling: AtomicBool::new(false),
        asked_at: OPS.load(Ordering::Relaxed),
        stand_in,
    });
    let pending: Arc<dyn Pending> = Arc::new(PendingTake {
        cell: cell.clone(),
        client: tensor.client.clone(),
    });
    registry.pending.push(Arc::downgrade(&pending));
    ANY_PENDING.store(true, Ordering::Release);
    Ok((tensor, cell, pending))
}

impl<R: CubeRuntime> FusedCopy<R> {
    /// Starts bringing it back: a buffer never taken is simply kept.
    fn prefetch(self) -> FusedLoad<R> {
        let state = std::mem::replace(&mut *self.cell.lock(), Take::Kept);
        // Never copied now: nothing to count.
        drop(
            self.cell
                .zeros
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take(),
        );
        let load = match state {
            Take::Waiting => {
                KEPT.fetch_add(1, Ordering::Relaxed);
                None
            }
            Take::Kept => None,
            Take::Freed | Take::Aside(_) => {
                unreachable!(
                    "only a tensor freed for its rebuild has its buffer freed or kept aside"
                )
            }
            Take::Taken(tensor) => Some(CubeLoad::Ready(tensor)),
            Take::Moved(copy) => Some(copy.prefetch()),
        };
        FusedLoad {
            tensor: self.tensor,
            load,
        }
    }

    fn in_flight(&self) -> bool {
        match &*self.cell.lock() {
            Take::Waiting | Take::Taken(_) => true,
            Take::Moved(copy) => copy.in_flight(),
            Take::Kept | Take::Freed | Take::Aside(_) => false,
        }
    }

    /// Blocks until the buffer has left the device. One still waiting for
    /// its witness cannot be waited for (fusion runs the ops it waits for
    /// only when the training thread registers more).
    fn wait(&self) {
        self.cell.start_copy(&self.tensor.client);
        if let Take::Moved(copy) = &*self.cell.lock() {
            copy.wait();
        }
    }
}

impl<R: CubeRuntime> FusedLoad<R> {
    fn collect(self) -> FusedTensor<R> {
        if let Some(load) = self.load {
            put_back(&self.tensor.client, self.tensor.id, load.collect());
        }
        self.tensor
    }
}

impl<R: CubeRuntime> DeviceCopy for FusedCopy<R> {
    fn in_flight(&self) -> bool {
        FusedCopy::in_flight(self)
    }
    fn wait(&self) {
        FusedCopy::wait(self)
    }
    fn waitable(&self) -> bool {
        !matches!(&*self.cell.lock(), Take::Waiting)
    }
    fn prefetch(self: Box<Self>) -> Box<dyn DeviceLoad> {
        Box::new(FusedCopy::prefetch(*self))
    }
    fn load(self: Box<Self>) -> Box<dyn Any + Send> {
        Box::new(FusedCopy::prefetch(*self).collect())
    }
}

impl<R: CubeRuntime> DeviceLoad for FusedLoad<R> {
    fn landed(&self) -> bool {
        self.load.as_ref().is_none_or(CubeLoad::landed)
    }
    fn download_in_flight(&self) -> bool {
        self.load.as_ref().is_some_and(CubeLoad::download_in_flight)
    }
    fn wait_downloaded(&self) {
        if let Some(load) = &self.load {
            load.wait_downloaded();
        }
    }
    fn held_bytes(&self) -> Option<u64> {
        self.load.as_ref().and_then(CubeLoad::held_bytes)
    }
    fn collect(self: Box<Self>) -> Box<dyn Any + Send> {
        Box::new(FusedLoad::collect(*self))
    }
}

/// A fusion tensor freed for its rebuild: the tensor itself stays, with its
/// id, so fusion sees it live as without burn-swap; its buffer is taken out
/// once the ops before have run, and freed (or kept aside for a check).
pub(crate) struct FusedRelease<R: CubeRuntime> {
    tensor: FusedTensor<R>,
    cell: Arc<TakeCell<R>>,
    _pending: Arc<dyn Pending>,
    _alias: AliasGuard<R>,
}

/// Removes a stand-in's alias from fusion's container if its tensor is
/// never rebuilt (it died without backward).
struct AliasGuard<R: CubeRuntime> {
    cell: Arc<TakeCell<R>>,
    client: burn_fusion::client::GlobalFusionClient<FusionCubeRuntime<R>>,
}

impl<R: CubeRuntime> Drop for AliasGuard<R> {
    fn drop(&mut self) {
        if let Some(stand_in) = &self.cell.stand_in {
            let link = &stand_in.link;
            if link.linked.load(Ordering::Acquire) && !link.done.swap(true, Ordering::AcqRel) {
                submit(&self.client, Forget(link.clone()));
            }
        }
    }
}

/// Asks for `tensor`'s buffer to be freed once fusion ran the ops before
/// (kept aside instead with `keep_aside`); `Err` gives it back. With
/// `stand_in`, the fusion tensor (by id) whose buffer stands in for it,
/// and what keeps that tensor alive until the buffer is aliased.
#[allow(clippy::result_large_err)] // the tensor itself comes back on failure
pub(crate) fn release<R: CubeRuntime>(
    tensor: FusedTensor<R>,
    keep_aside: bool,
    stand_in: Option<(TensorId, Box<dyn Any + Send>)>,
) -> Result<FusedRelease<R>, (TransferError, FusedTensor<R>)> {
    let after_take = match keep_aside {
        true => AfterTake::KeepAside,
        false => AfterTake::Free,
    };
    let stand_in = stand_in.map(|(source, keep)| StandInAlias {
        link: Arc::new(AliasLink {
            source,
            alias: tensor.client.create_empty_handle(),
            linked: AtomicBool::new(false),
            away: AtomicBool::new(false),
            done: AtomicBool::new(false),
        }),
        keep: Mutex::new(Some(keep)),
    });
    let (tensor, cell, pending) = ask(tensor, None, after_take, stand_in)?;
    let client = tensor.client.clone();
    Ok(FusedRelease {
        tensor,
        _alias: AliasGuard {
            cell: cell.clone(),
            client,
        },
        cell,
        _pending: pending,
    })
}

/// A freed tensor made again.
pub(crate) struct FusedRebuild<R: CubeRuntime> {
    pub tensor: FusedTensor<R>,
    /// It was rebuilt (not found still in fusion).
    pub rebuilt: bool,
    /// The buffer kept aside and the rebuild, to compare.
    pub check: Option<SameBuffers<R>>,
}

impl<R: CubeRuntime> FusedRelease<R> {
    /// The tensor again, under its own id. A buffer fusion never handed
    /// over is still there. A stand-in's alias is put under its id.
    /// Otherwise `replay` runs on `inputs()` on a fusion stream of
    /// burn-swap's own, fed with aliases of the inputs' buffers, so the
    /// training stream gets no op and its blocks stay as without
    /// burn-swap; the result is put back under the tensor's id. `id` is
    /// burn-swap's id of the tensor (the check's).
    pub(crate) fn rebuild(
        self,
        id: crate::handle::TensorId,
        inputs: impl FnOnce() -> Vec<FusedTensor<R>>,
        replay: impl FnOnce(Vec<FusedTensor<R>>) -> FusedTensor<R>,
    ) -> FusedRebuild<R> {
        let state = std::mem::replace(&mut *self.cell.lock(), Take::Kept);
        self.cell.settle();
        let client = self.tensor.client.clone();
        let not_needed = |tensor| {
            REBUILDS_NOT_NEEDED.fetch_add(1, Ordering::Relaxed);
            FusedRebuild {
                tensor,
                rebuilt: false,
                check: None,
            }
        };
        let original = match state {
            Take::Waiting | Take::Kept => return not_needed(self.tensor),
            // Taken and not yet freed: it goes back as it is (an alias
            // made for it goes with the guard).
            Take::Taken(buffer) if matches!(self.cell.after_take, AfterTake::Free) => {
                put_back(&client, self.tensor.id, buffer);
                return not_needed(self.tensor);
            }
            Take::Taken(buffer) | Take::Aside(buffer) => Some(buffer),
            Take::Freed => None,
            Take::Moved(_) => unreachable!("a tensor freed for its rebuild is never copied"),
        };
        // The buffer to put under the tensor's id: a stand-in's alias (made
        // when this tensor was taken), or the op run again beside the
        // training stream on aliases of its inputs.
        let (from, closing, unlink) = match &self.cell.stand_in {
            Some(stand_in) => {
                let link = &stand_in.link;
                if link.away.load(Ordering::Acquire) {
                    // The source is on the host, and backward did not read
                    // it yet: reaching it brings it back, and its put-back,
                    // sent before the op below, makes the alias again.
                    let source = inputs();
                    assert!(
                        !source.is_empty(),
                        "burn-swap: the tensor that stands in for tensor {id} was dropped on the host before it was rebuilt"
                    );
                }
                link.done.store(true, Ordering::Release);
                let alias = TensorIr {
                    id: link.alias,
                    status: TensorStatus::ReadWrite,
                    ..self.tensor.to_ir_out()
                };
                (alias, None, Some(link.clone()))
            }
            None => {
                let inputs = inputs();
                let stream = rebuild_stream();
                let aliases = alias_on(&client, &inputs, stream);
                drop(inputs);
                let rebuilt = stream.executes(|| replay(aliases));
                let mut streams = stream.executes(OperationStreams::default);
                streams.tensor(&rebuilt);
                (rebuilt.into_ir(), Some(streams), None)
            }
        };
        // A tensor kept aside is handed to backward as it is, and the
        // rebuild compared with it later: backward never reads a rebuild
        // before one of its op gave the tensor's bits.
        let checked = original.map(|original| {
            put_back(&client, self.tensor.id, original.clone());
            (original, Arc::new(Mutex::new(None)))
        });
        let rename = Rename {
            to: checked.is_none().then_some(self.tensor.id),
            keep: checked.as_ref().map(|(_, keep)| keep.clone()),
            from,
            unlink,
        };
        match closing {
            None => submit(&client, rename),
            // The rebuild's ops wait on their stream (they fuse) until this
            // op closes them. It is sent from the training thread's stream
            // id, so fusion runs them all under it: on the training
            // thread's CubeCL stream and memory pool, and without the
            // training thread waiting for fusion's server. Not flushed: the
            // op that reads the tensor follows it in fusion's queue, and a
            // flush would hold the training thread's next op until fusion's
            // server has run the batch before.
            Some(streams) => {
                let desc = CustomOpIr::new("burn-swap", std::slice::from_ref(&rename.from), &[]);
                client.register(streams, OperationIr::Custom(desc), rename);
            }
        }
        REBUILT.fetch_add(1, Ordering::Relaxed);
        FusedRebuild {
            tensor: self.tensor,
            rebuilt: true,
            check: checked.map(|(original, rebuilt)| SameBuffers {
                id,
                original,
                rebuilt,
                client,
            }),
        }
    }
}

/// Moves the buffer of `from` under `to`, or takes it out of fusion's
/// container; a clone of it goes to `keep` where given. `from` may be a
/// stand-in's alias, which then no longer follows its source.
struct Rename<R: CubeRuntime> {
    from: TensorIr,
    to: Option<TensorId>,
    keep: Option<Arc<Mutex<Option<CubeTensor<R>>>>>,
    unlink: Option<Arc<AliasLink>>,
}

impl<R: CubeRuntime> fmt::Debug for Rename<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rename({})", self.from.id)
    }
}

impl<R: CubeRuntime> Operation<FusionCubeRuntime<R>> for Rename<R> {
    fn execute(&self, handles: &mut Handles<R>) {
        if let Some(link) = &self.unlink {
            follow().unlink(link);
        }
        let tensor = handles.get_float_tensor::<Inner<R>>(&self.from);
        if let Some(keep) = &self.keep {
            *keep.lock().unwrap_or_else(|p| p.into_inner()) = Some(tensor.clone());
        }
        if let Some(to) = self.to {
            handles.register_float_tensor::<Inner<R>>(&to, tensor);
        }
    }
}

/// Takes a stand-in's alias out of fusion's container (its freed tensor
/// died without backward), and out of [`Follow`].
struct Forget(Arc<AliasLink>);

impl fmt::Debug for Forget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Forget({})", self.0.alias)
    }
}

impl<R: CubeRuntime> Operation<FusionCubeRuntime<R>> for Forget {
    fn execute(&self, handles: &mut Handles<R>) {
        follow().unlink(&self.0);
        handles.remove_handle(self.0.alias);
    }
}

/// The fusion stream rebuilds run on: one per training thread, numbered so
/// that CubeCL maps it to the training thread's own stream (and memory
/// pool) should fusion run an op while it is registered.
fn rebuild_stream() -> StreamId {
    use cubecl::config::{CubeClRuntimeConfig, RuntimeConfig};
    let streams = u64::from(CubeClRuntimeConfig::get().streaming.max_streams.max(1));
    let offset = (1u64 << 40) / streams * streams;
    StreamId {
        value: StreamId::current().value + offset,
    }
}

/// `tensor` for an op of a rebuild, run where the rebuild runs (see
/// [`FusedRelease::rebuild`]): an alias of its buffer on the rebuild's
/// stream. Read there as it is, fusion would first run the training
/// stream's queued ops to hand it over, and the training stream's blocks
/// would differ from those without burn-swap (seen on fused `Wgpu` with an
/// attention mask).
pub(crate) fn for_rebuild<R: CubeRuntime>(tensor: FusedTensor<R>) -> FusedTensor<R> {
    let client = tensor.client.clone();
    alias_on(&client, std::slice::from_ref(&tensor), StreamId::current())
        .pop()
        .expect("one alias for one tensor")
}

/// New fusion tensors on `stream` sharing the buffers of `inputs`. Every
/// input's buffer is in fusion's container by the time the aliasing op
/// runs: the freed tensor's buffer was taken, so the ops that made its
/// inputs had run; an input brought back or rebuilt was put back by an op
/// sent before this one, and the device thread runs them in order.
fn alias_on<R: CubeRuntime>(
    client: &burn_fusion::client::GlobalFusionClient<FusionCubeRuntime<R>>,
    inputs: &[FusedTensor<R>],
    stream: StreamId,
) -> Vec<FusedTensor<R>> {
    let outputs: Vec<TensorIr> = inputs
        .iter()
        .map(|input| TensorIr {
            id: client.create_empty_handle(),
            shape: input.shape(),
            status: TensorStatus::NotInit,
            dtype: input.dtype,
        })
        .collect();
    let op = Alias {
        pairs: inputs
            .iter()
            .zip(&outputs)
            .map(|(i, o)| (i.id, o.id))
            .collect(),
    };
    let desc = CustomOpIr::new("burn-swap", &[], &outputs);
    // It has no inputs and fuses with nothing: fusion runs it at once. It
    // launches no kernel, so running under the rebuild stream's id is fine.
    stream.executes(|| client.register(OperationStreams::default(), OperationIr::Custom(desc), op))
}

/// Puts clones of the inputs' handles under the aliases' ids.
#[derive(Debug)]
struct Alias {
    pairs: Vec<(TensorId, TensorId)>,
}

impl<R: CubeRuntime> Operation<FusionCubeRuntime<R>> for Alias {
    fn execute(&self, handles: &mut Handles<R>) {
        for &(input, alias) in &self.pairs {
            let handle = handles.get_handle(&input, &TensorStatus::ReadOnly);
            handles.register_handle(alias, handle);
        }
    }
}

/// A buffer kept aside and its rebuild, compared outside fusion.
pub(crate) struct SameBuffers<R: CubeRuntime> {
    id: crate::handle::TensorId,
    original: CubeTensor<R>,
    /// Filled by the op that moves the rebuild, on fusion's server.
    rebuilt: Arc<Mutex<Option<CubeTensor<R>>>>,
    client: burn_fusion::client::GlobalFusionClient<FusionCubeRuntime<R>>,
}

impl<R: CubeRuntime> crate::rebuild_check::RebuildCheck for SameBuffers<R> {
    fn id(&self) -> crate::handle::TensorId {
        self.id
    }

    /// Reads both back through CubeCL: fusion never sees it.
    fn same_bits(self: Box<Self>) -> Result<bool, burn_backend::ExecutionError> {
        use burn_backend::ops::FloatTensorOps;
        let take = || {
            self.rebuilt
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
        };
        let rebuilt = match take() {
            Some(rebuilt) => rebuilt,
            None => {
                // Its op is still queued on fusion's server: wait for it.
                OWN_STREAM.executes(|| self.client.sync(|| ()));
                take().ok_or_else(|| burn_backend::ExecutionError::WithContext {
                    reason: "the rebuild to compare never came out of fusion".into(),
                })?
            }
        };
        let original = burn_backend::read_sync(Inner::<R>::float_into_data(self.original))?;
        let rebuilt = burn_backend::read_sync(Inner::<R>::float_into_data(rebuilt))?;
        Ok(original.as_bytes() == rebuilt.as_bytes())
    }
}

impl<R: CubeRuntime> super::Released for FusedRelease<R> {
    fn rebuild(
        self: Box<Self>,
        id: crate::handle::TensorId,
        inputs: Box<dyn FnOnce() -> Vec<super::AnyPrimitive> + '_>,
        replay: super::AnyReplay<'_>,
    ) -> super::RebuiltBy {
        let unbox = |tensor: super::AnyPrimitive| -> FusedTensor<R> {
            *tensor
                .downcast()
                .expect("a fusion tensor's rebuild takes and makes fusion tensors")
        };
        let done = FusedRelease::rebuild(
            *self,
            id,
            || inputs().into_iter().map(unbox).collect(),
            |aliases| {
                unbox(replay(
                    aliases
                        .into_iter()
                        .map(|t| Box::new(t) as super::AnyPrimitive)
                        .collect(),
                ))
            },
        );
        super::RebuiltBy {
            tensor: Box::new(done.tensor),
            rebuilt: done.rebuilt,
            check: done
                .check
                .map(|check| Box::new(check) as Box<dyn crate::rebuild_check::RebuildCheck>),
        }
    }
}
