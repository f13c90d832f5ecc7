//! A bounded pool of page-locked host memory.
//!
//! Allocating pinned memory costs about half a second per GiB and stalls the
//! driver, so the pool takes it in chunks, once, and never gives it back
//! while the process runs; blocks are carved out of the chunks best-fit and
//! returned on drop. The pool never grows past its limit, and a chunk is only
//! taken while the host keeps `host_reserve_bytes` available: when a block
//! does not fit, the caller falls back (the tensor stays on the device).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::sys;

use super::CudaError;

/// Alignment of every block (the copy engines prefer 256 B or more).
const ALIGN: usize = 256;

/// Why a block could not be had.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PoolError {
    /// The pool is at its limit.
    #[error("pinned pool exhausted: need {need} B, {in_use} B of {limit} B in use")]
    Exhausted {
        /// Bytes asked for.
        need: u64,
        /// Bytes in blocks now.
        in_use: u64,
        /// The pool's limit.
        limit: u64,
    },
    /// Growing the pool would leave the host with less available RAM than the reserve.
    #[error("host RAM guard: growing the pinned pool by {grow} B would leave {available} B - {grow} B, under the reserve of {reserve} B")]
    HostRam {
        /// Bytes the pool would grow by.
        grow: u64,
        /// MemAvailable now.
        available: u64,
        /// The configured reserve.
        reserve: u64,
    },
    /// The driver refused the allocation.
    #[error("cuMemHostAlloc of {0} B failed: {1}")]
    Driver(u64, CudaError),
}

/// Pool counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PoolStats {
    /// Pinned bytes taken from the driver (never shrinks).
    pub reserved: u64,
    /// Bytes in live blocks.
    pub in_use: u64,
    /// Highest `in_use` so far.
    pub peak_in_use: u64,
    /// The limit.
    pub limit: u64,
    /// Blocks refused (exhausted or host guard).
    pub refusals: u64,
}

struct Chunk {
    ptr: *mut u8,
    len: usize,
    /// Free ranges: offset -> length, coalesced.
    free: BTreeMap<usize, usize>,
}

struct State {
    chunks: Vec<Chunk>,
    stats: PoolStats,
}

// The raw pointers are owned by the pool and only handed out as disjoint blocks.
unsafe impl Send for State {}

pub(crate) struct PinnedPool {
    state: Mutex<State>,
    chunk_bytes: usize,
    host_reserve: u64,
}

/// A block of pinned memory; returned to its pool on drop.
pub(crate) struct PinnedBlock {
    pool: Arc<PinnedPool>,
    chunk: usize,
    offset: usize,
    /// Rounded length held in the pool (less after [`PinnedBlock::shrink`]).
    held: AtomicUsize,
    /// Bytes the caller asked for (or shrank it to).
    len: AtomicUsize,
    ptr: *mut u8,
}

// A block is exclusively owned; the copy engine reads or writes it while it
// holds an `Arc` to it.
unsafe impl Send for PinnedBlock {}
unsafe impl Sync for PinnedBlock {}

impl PinnedPool {
    pub(crate) fn new(limit: u64, chunk_bytes: u64, host_reserve: u64) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                chunks: Vec::new(),
                stats: PoolStats {
                    limit,
                    ..Default::default()
                },
            }),
            chunk_bytes: chunk_bytes.max(ALIGN as u64) as usize,
            host_reserve,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn stats(&self) -> PoolStats {
        self.lock().stats
    }

    /// The most bytes the pool could hold in blocks: its limit, or what it
    /// holds plus what it could still take without leaving the host less
    /// available RAM than its reserve, whichever is less.
    pub(crate) fn capacity(&self) -> u64 {
        let stats = self.stats();
        capacity_of(stats.limit, stats.reserved, self.host_reserve)
    }

    /// A block of `len` bytes, from a free range or a new chunk.
    /// The driver must be current on this thread when a chunk is taken.
    pub(crate) fn alloc(self: &Arc<Self>, len: usize) -> Result<PinnedBlock, PoolError> {
        let held = len.max(1).div_ceil(ALIGN) * ALIGN;
        let mut state = self.lock();
        let found = best_fit(state.chunks.iter().map(|chunk| &chunk.free), held);
        let (chunk, offset) = match found {
            Some((c, off, l)) => {
                let free = &mut state.chunks[c].free;
                free.remove(&off);
                if l > held {
                    free.insert(off + held, l - held);
                }
                (c, off)
            }
            None => {
                let grow = held.max(
                    self.chunk_bytes
                        .min(state.stats.limit.saturating_sub(state.stats.reserved) as usize),
                );
                if state.stats.reserved + grow as u64 > state.stats.limit {
                    state.stats.refusals += 1;
                    return Err(PoolError::Exhausted {
                        need: len as u64,
                        in_use: state.stats.in_use,
                        limit: state.stats.limit,
                    });
                }
                if let Some(available) = mem_available() {
                    if available.saturating_sub(grow as u64) < self.host_reserve {
                        state.stats.refusals += 1;
                        return Err(PoolError::HostRam {
                            grow: grow as u64,
                            available,
                            reserve: self.host_reserve,
                        });
                    }
                }
                let _span = tracing::info_span!("pinned_chunk", bytes = grow).entered();
                // SAFETY: a plain allocation; the memory is only read after a copy wrote it.
                let ptr = unsafe {
                    cudarc::driver::result::malloc_host(grow, sys::CU_MEMHOSTALLOC_PORTABLE)
                }
                .map_err(|e| PoolError::Driver(grow as u64, CudaError(e)))?
                    as *mut u8;
                let mut free = BTreeMap::new();
                if grow > held {
                    free.insert(held, grow - held);
                }
                state.chunks.push(Chunk {
                    ptr,
                    len: grow,
                    free,
                });
                state.stats.reserved += grow as u64;
                tracing::debug!(
                    chunk = grow,
                    reserved = state.stats.reserved,
                    "pinned pool grew"
                );
                (state.chunks.len() - 1, 0)
            }
        };
        state.stats.in_use += held as u64;
        state.stats.peak_in_use = state.stats.peak_in_use.max(state.stats.in_use);
        // SAFETY: offset + held is inside the chunk.
        let ptr = unsafe { state.chunks[chunk].ptr.add(offset) };
        Ok(PinnedBlock {
            pool: self.clone(),
            chunk,
            offset,
            held: AtomicUsize::new(held),
            len: AtomicUsize::new(len),
            ptr,
        })
    }

    fn release(&self, chunk: usize, offset: usize, held: usize) {
        let mut state = self.lock();
        state.stats.in_use -= held as u64;
        let free = &mut state.chunks[chunk].free;
        let (mut start, mut len) = (offset, held);
        if let Some((&prev, &plen)) = free.range(..offset).next_back() {
            if prev + plen == offset {
                free.remove(&prev);
                start = prev;
                len += plen;
            }
        }
        if let Some(&next_len) = free.get(&(offset + held)) {
            free.remove(&(offset + held));
            len += next_len;
        }
        free.insert(start, len);
    }
}

impl Drop for PinnedPool {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        for chunk in state.chunks.drain(..) {
            // SAFETY: every block holds an Arc to the pool, so none is alive.
            let _ = unsafe { cudarc::driver::result::free_host(chunk.ptr as *mut _) };
            let _ = chunk.len;
        }
    }
}

impl PinnedBlock {
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }
    /// Gives all but the first `len` bytes back to the pool (a compressed
    /// copy, whose block was taken for the worst case). Called once, by the
    /// copy thread, before anything reads the block.
    pub(crate) fn shrink(&self, len: usize) -> Result<(), String> {
        let old = self.len();
        if len > old {
            return Err(format!("{len} B do not fit a block of {old} B"));
        }
        let held = len.max(1).div_ceil(ALIGN) * ALIGN;
        let old_held = self.held.swap(held, Ordering::AcqRel);
        self.len.store(len, Ordering::Release);
        if old_held > held {
            self.pool
                .release(self.chunk, self.offset + held, old_held - held);
        }
        Ok(())
    }
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    /// The bytes, once a completed copy has written them.
    pub(crate) fn as_slice(&self) -> &[u8] {
        // SAFETY: the block is `len` bytes of the pool's memory, owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len()) }
    }
    #[cfg(feature = "compression")]
    /// The bytes as 32-bit words (a compressed copy), once a completed copy
    /// has written them; `None` if the length is not whole words.
    pub(crate) fn as_words(&self) -> Option<&[u32]> {
        let len = self.len();
        // Blocks start at multiples of ALIGN in page-aligned chunks.
        (len.is_multiple_of(4) && (self.ptr as usize).is_multiple_of(4)).then(|| {
            // SAFETY: as `as_slice`, and the start is aligned for u32.
            unsafe { std::slice::from_raw_parts(self.ptr.cast::<u32>(), len / 4) }
        })
    }
}

impl Drop for PinnedBlock {
    fn drop(&mut self) {
        self.pool
            .release(self.chunk, self.offset, self.held.load(Ordering::Acquire));
    }
}

/// The smallest free range of at least `held` bytes over the chunks' free
/// ranges (offset to length, per chunk): `(chunk, offset, length)`. The
/// smallest, not the first: blocks of a step come in many sizes, and a
/// small one carved from the first large range splits it for the large
/// block that needs it next (the pool then refuses with most of it free).
fn best_fit<'a>(
    chunks: impl Iterator<Item = &'a BTreeMap<usize, usize>>,
    held: usize,
) -> Option<(usize, usize, usize)> {
    chunks
        .enumerate()
        .flat_map(|(c, free)| free.iter().map(move |(&off, &len)| (c, off, len)))
        .filter(|&(_, _, len)| len >= held)
        .min_by_key(|&(c, off, len)| (len, c, off))
}

/// The most a pool limited to `limit` bytes, holding `reserved` of them,
/// could hold while the host keeps `host_reserve` bytes of RAM available.
pub(crate) fn capacity_of(limit: u64, reserved: u64, host_reserve: u64) -> u64 {
    match mem_available() {
        Some(available) => limit.min(reserved + available.saturating_sub(host_reserve)),
        None => limit,
    }
}

/// `MemAvailable` from `/proc/meminfo`, in bytes (Linux only).
pub(crate) fn mem_available() -> Option<u64> {
    crate::host::meminfo("MemAvailable")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_takes_the_smallest_free_range_it_fits() {
        let chunks = [
            BTreeMap::from([(0, 600), (1000, 300)]),
            BTreeMap::from([(256, 256), (768, 1024)]),
        ];
        assert_eq!(best_fit(chunks.iter(), 256), Some((1, 256, 256)));
        assert_eq!(best_fit(chunks.iter(), 257), Some((0, 1000, 300)));
        assert_eq!(best_fit(chunks.iter(), 700), Some((1, 768, 1024)));
        assert_eq!(best_fit(chunks.iter(), 2048), None);
    }
}
