//! The look-back state of single-pass compress, kept between launches.
//!
//! A single-pass compress needs its done counter, ticket counter and
//! look-back words at zero when it starts. Zeroing fresh memory would take
//! a launch of its own before every compress (and copying the checksum into
//! the header another after it), a sizeable share of a call at tens of
//! megabytes. Instead each stream keeps two state buffers and alternates:
//! a launch uses one and, one word per unit, zeroes the other, which the
//! previous launch used (`compact::finish_single_pass`). Launches on one
//! stream run in order, so the next launch finds its buffer zero. When the
//! previous launch used more words than this one has units, a zeroing
//! launch clears it instead.
//!
//! A buffer is `[done (u64), ticket, look-back words...]` as `u32` words;
//! the kernels bind its first two words as the `u64` done counter and the
//! rest, 8 bytes on, as their state.
//!
//! Buffers are keyed by device and by CubeCL stream, the one a launch from
//! this thread goes on (`StreamId::current()`): two streams never share
//! one.

use std::any::Any;
use std::sync::Mutex;

use cubecl::prelude::*;
use cubecl::server::Handle;
use cubecl::stream_id::StreamId;

use crate::gpu::{zero, zeroed};

/// Words before the kernels' state: the `u64` done counter.
const DONE_WORDS: usize = 2;

/// One state buffer.
struct Buffer {
    handle: Handle,
    /// Words it holds.
    capacity: usize,
    /// Words the last launch that used it may have written (0: all zero).
    dirty: usize,
}

impl Buffer {
    fn zeroed<R: Runtime>(client: &ComputeClient<R>, capacity: usize) -> Self {
        Buffer {
            handle: zeroed(client, capacity),
            capacity,
            dirty: 0,
        }
    }
}

/// One stream's state on one device.
struct State<R: Runtime> {
    /// Held so that the device's server, whose properties' address
    /// identifies the device below, outlives the entry.
    client: ComputeClient<R>,
    stream: StreamId,
    buffers: [Buffer; 2],
    /// The buffer the next launch uses.
    next: usize,
}

/// States of every (device, stream) that ran a single-pass compress; the
/// oldest is dropped past `MAX_STATES` (a later launch on its stream gets
/// fresh buffers).
static STATES: Mutex<Vec<Box<dyn Any + Send>>> = Mutex::new(Vec::new());
const MAX_STATES: usize = 64;

/// What one single-pass launch binds.
pub(crate) struct Binding<'a> {
    /// The done counter (`u64`, 2 words).
    pub done: &'a Handle,
    /// Ticket counter, then the look-back words (all zero).
    pub state: &'a Handle,
    /// The buffer to clear, and how many words of it (at most one per
    /// unit of the launch).
    pub clear: &'a Handle,
    pub clear_words: u32,
}

impl<'a> Binding<'a> {
    /// What passes other than `PASS_SINGLE` bind: `counts` (their tile or
    /// chunk counts) in every place, nothing to clear.
    pub fn unused(counts: &'a Handle) -> Self {
        Binding {
            done: counts,
            state: counts,
            clear: counts,
            clear_words: 0,
        }
    }
}

/// Runs `launch` with this stream's state on `client`'s device: `words`
/// zero words (ticket and look-back) and the done counter, for a launch of
/// `units` units in all. `launch` must queue the kernel; the lock is held
/// meanwhile.
pub(crate) fn with_state<R: Runtime, T>(
    client: &ComputeClient<R>,
    words: usize,
    units: usize,
    launch: impl FnOnce(&Binding) -> T,
) -> T {
    let need = DONE_WORDS + words;
    let stream = StreamId::current();
    // a panic while holding the lock leaves the marks below true (see
    // there), so a poisoned lock is still usable
    let mut states = STATES.lock().unwrap_or_else(|e| e.into_inner());
    let found = states.iter().position(|s| {
        s.downcast_ref::<State<R>>().is_some_and(|s| {
            s.stream == stream && std::ptr::eq(s.client.properties(), client.properties())
        })
    });
    let index = match found {
        Some(i) => i,
        None => {
            if states.len() >= MAX_STATES {
                states.remove(0);
            }
            states.push(Box::new(State::<R> {
                client: client.clone(),
                stream,
                buffers: [Buffer::zeroed(client, need), Buffer::zeroed(client, need)],
                next: 0,
            }));
            states.len() - 1
        }
    };
    let s = states[index]
        .downcast_mut::<State<R>>()
        .expect("found as this type");
    let (cur, other) = (s.next, 1 - s.next);
    s.next = other;
    if s.buffers[cur].capacity < need {
        s.buffers[cur] = Buffer::zeroed(client, need.max(2 * s.buffers[cur].capacity));
    }
    let mut clear_words = s.buffers[other].dirty;
    if clear_words > units {
        // more than one word a unit: a launch of its own
        zero(client, &s.buffers[other].handle, clear_words);
        clear_words = 0;
    }
    s.buffers[cur].dirty = need;
    let state = s.buffers[cur]
        .handle
        .clone()
        .offset_start((DONE_WORDS * 4) as u64);
    let result = launch(&Binding {
        done: &s.buffers[cur].handle,
        state: &state,
        clear: &s.buffers[other].handle,
        clear_words: clear_words as u32,
    });
    // marked clean once the launch (or the zeroing) that clears it is
    // queued: a panic before leaves it marked dirty, cleared again, never
    // used dirty
    s.buffers[other].dirty = 0;
    result
}
