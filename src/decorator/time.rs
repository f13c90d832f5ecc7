//! Where the training thread's time in the ops of training iterations goes:
//! burn-swap's own work around each op, by part, and the inner backend's op
//! calls. Under fusion a backend op registers the op and waits for fusion's
//! and the device's threads whenever their queues are full, so a step whose
//! backend time grows is held back by those threads, not by burn-swap.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A part of burn-swap's own work on the training thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Starting the copies of tensors to the host (under fusion: asking
    /// for their buffers).
    SwapOut,
    /// Starting the copies of tensors back.
    Prefetch,
    /// Taking tensors back when an op reads them: waiting for copies that
    /// have not landed, putting the buffers back, decompressing.
    SwapIn,
    /// Running the ops that rebuild freed tensors.
    Rebuild,
    /// Waiting for downloads that hold memory the budget needs back.
    BudgetWait,
    /// Moving started offloads on (under fusion: polls, and the copies of
    /// buffers fusion handed over).
    Progress,
    /// Giving free device buffers back.
    Release,
    /// Reading the device's memory from the driver.
    DriverRead,
}

const PARTS: usize = 8;

static PART_NS: [AtomicU64; PARTS] = [const { AtomicU64::new(0) }; PARTS];
static OWN_NS: AtomicU64 = AtomicU64::new(0);
static BACKEND_NS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Time of the parts run inside the part running now on this thread:
    /// each part counts its time less theirs, so the parts add up.
    static INNER_PARTS_NS: Cell<u64> = const { Cell::new(0) };
    /// Nesting of [`timed`] on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Time in outermost parts on this thread so far.
    static IN_PARTS_NS: Cell<u64> = const { Cell::new(0) };
}

/// Training-thread time in the ops of training iterations since the process
/// started, in nanoseconds (all training threads together).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpThreadTime {
    /// In burn-swap's own work around the ops, all parts included.
    pub own_ns: u64,
    /// In the inner backend's op calls, the loads and rebuilds of their
    /// inputs left out.
    pub backend_ns: u64,
    /// Of the own time: starting copies to the host.
    pub swap_out_ns: u64,
    /// Starting copies back.
    pub prefetch_ns: u64,
    /// Taking tensors back when read (waits for late copies included).
    pub swap_in_ns: u64,
    /// Rebuilding freed tensors.
    pub rebuild_ns: u64,
    /// Waiting for downloads the budget needs back.
    pub budget_wait_ns: u64,
    /// Moving started offloads on.
    pub progress_ns: u64,
    /// Giving free device buffers back.
    pub release_ns: u64,
    /// Reading the device's memory from the driver.
    pub driver_read_ns: u64,
}

impl OpThreadTime {
    /// The time since `earlier`, a reading of the same counters.
    pub fn since(&self, earlier: &OpThreadTime) -> OpThreadTime {
        let d = |now: u64, then: u64| now.saturating_sub(then);
        OpThreadTime {
            own_ns: d(self.own_ns, earlier.own_ns),
            backend_ns: d(self.backend_ns, earlier.backend_ns),
            swap_out_ns: d(self.swap_out_ns, earlier.swap_out_ns),
            prefetch_ns: d(self.prefetch_ns, earlier.prefetch_ns),
            swap_in_ns: d(self.swap_in_ns, earlier.swap_in_ns),
            rebuild_ns: d(self.rebuild_ns, earlier.rebuild_ns),
            budget_wait_ns: d(self.budget_wait_ns, earlier.budget_wait_ns),
            progress_ns: d(self.progress_ns, earlier.progress_ns),
            release_ns: d(self.release_ns, earlier.release_ns),
            driver_read_ns: d(self.driver_read_ns, earlier.driver_read_ns),
        }
    }

    /// The parts of the own time, each with what it is, largest first.
    pub fn parts(&self) -> Vec<(&'static str, u64)> {
        let mut parts = vec![
            ("swapping out", self.swap_out_ns),
            ("prefetching", self.prefetch_ns),
            ("swapping in", self.swap_in_ns),
            ("rebuilding", self.rebuild_ns),
            ("waiting for room", self.budget_wait_ns),
            ("moving offloads on", self.progress_ns),
            ("giving memory back", self.release_ns),
            ("reading the driver", self.driver_read_ns),
        ];
        parts.sort_by_key(|&(_, ns)| std::cmp::Reverse(ns));
        parts
    }
}

impl std::fmt::Display for OpThreadTime {
    /// In milliseconds: the backend's time, burn-swap's own and its three
    /// largest parts.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |ns: u64| ns as f64 / 1e6;
        write!(
            f,
            "{:.1} ms in the backend's ops, {:.1} ms in burn-swap's own work",
            ms(self.backend_ns),
            ms(self.own_ns)
        )?;
        let largest: Vec<String> = self
            .parts()
            .into_iter()
            .filter(|&(_, ns)| ns >= 100_000)
            .take(3)
            .map(|(what, ns)| format!("{:.1} {what}", ms(ns)))
            .collect();
        if !largest.is_empty() {
            write!(f, " ({})", largest.join(", "))?;
        }
        Ok(())
    }
}

/// The counters of [`OpThreadTime`].
pub fn op_thread_time() -> OpThreadTime {
    let part = |p: Part| PART_NS[p as usize].load(Ordering::Relaxed);
    OpThreadTime {
        own_ns: OWN_NS.load(Ordering::Relaxed),
        backend_ns: BACKEND_NS.load(Ordering::Relaxed),
        swap_out_ns: part(Part::SwapOut),
        prefetch_ns: part(Part::Prefetch),
        swap_in_ns: part(Part::SwapIn),
        rebuild_ns: part(Part::Rebuild),
        budget_wait_ns: part(Part::BudgetWait),
        progress_ns: part(Part::Progress),
        release_ns: part(Part::Release),
        driver_read_ns: part(Part::DriverRead),
    }
}

/// Runs `f`, counting its time in `part`, less that of the parts it runs
/// (a rebuild that brings its input back counts the wait as swapping in).
pub(crate) fn timed<R>(part: Part, f: impl FnOnce() -> R) -> R {
    timed_ns(part, f).0
}

/// [`timed`], also returning how long `f` took, in nanoseconds.
pub(crate) fn timed_ns<R>(part: Part, f: impl FnOnce() -> R) -> (R, u64) {
    let started = Instant::now();
    let depth = DEPTH.with(|d| d.replace(d.get() + 1));
    let outer_inner = INNER_PARTS_NS.with(|t| t.replace(0));
    let out = f();
    let nanos = started.elapsed().as_nanos() as u64;
    let inner = INNER_PARTS_NS.with(|t| t.replace(outer_inner + nanos));
    DEPTH.with(|d| d.set(depth));
    PART_NS[part as usize].fetch_add(nanos.saturating_sub(inner), Ordering::Relaxed);
    if depth == 0 {
        IN_PARTS_NS.with(|t| t.set(t.get() + nanos));
    }
    (out, nanos)
}

/// Where an op's `begin` handed over to the backend's op.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HandedOver {
    at: Instant,
    in_parts_ns: u64,
}

/// `begin`, entered at `entered`, hands over to the backend's op now.
pub(crate) fn handed_over(entered: Instant) -> HandedOver {
    let at = Instant::now();
    OWN_NS.fetch_add((at - entered).as_nanos() as u64, Ordering::Relaxed);
    HandedOver {
        at,
        in_parts_ns: IN_PARTS_NS.with(Cell::get),
    }
}

/// The backend's op returned: its time, less the parts run while it read
/// its inputs, is the backend's. Returns when `finish` was entered.
pub(crate) fn taken_back(handed: HandedOver) -> Instant {
    let now = Instant::now();
    let window = (now - handed.at).as_nanos() as u64;
    let (backend, own) = split(window, IN_PARTS_NS.with(Cell::get) - handed.in_parts_ns);
    BACKEND_NS.fetch_add(backend, Ordering::Relaxed);
    OWN_NS.fetch_add(own, Ordering::Relaxed);
    now
}

/// A backend op's window of `window_ns`, `in_parts_ns` of it in parts:
/// the backend's time and burn-swap's own.
fn split(window_ns: u64, in_parts_ns: u64) -> (u64, u64) {
    let own = in_parts_ns.min(window_ns);
    (window_ns - own, own)
}

/// Counts the time since `entered` as burn-swap's own.
pub(crate) fn own_since(entered: Instant) {
    OWN_NS.fetch_add(entered.elapsed().as_nanos() as u64, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn since(before: OpThreadTime) -> [u64; 2] {
        let after = op_thread_time();
        [
            after.swap_in_ns - before.swap_in_ns,
            after.rebuild_ns - before.rebuild_ns,
        ]
    }

    #[test]
    fn a_part_run_inside_another_counts_once() {
        let before = op_thread_time();
        let outer_parts = IN_PARTS_NS.with(Cell::get);
        timed(Part::Rebuild, || {
            std::thread::sleep(Duration::from_millis(20));
            timed(Part::SwapIn, || {
                std::thread::sleep(Duration::from_millis(30))
            });
        });
        let [swap_in, rebuild] = since(before);
        // Other tests may time parts on their own threads at the same time:
        // the counters are global, so only lower bounds hold for them.
        assert!(swap_in >= 30_000_000, "{swap_in}");
        assert!(rebuild >= 20_000_000, "{rebuild}");
        // This thread's own total counts the outer part once.
        let total = IN_PARTS_NS.with(Cell::get) - outer_parts;
        assert!((50_000_000..150_000_000).contains(&total), "{total}");
    }

    #[test]
    fn an_iteration_reads_its_own_share_and_names_its_largest_parts() {
        let earlier = OpThreadTime {
            own_ns: 10,
            backend_ns: 5,
            ..OpThreadTime::default()
        };
        let now = OpThreadTime {
            own_ns: 30_000_010,
            backend_ns: 2_000_005,
            rebuild_ns: 20_000_000,
            release_ns: 9_000_000,
            prefetch_ns: 1_000_000,
            swap_in_ns: 50_000,
            ..OpThreadTime::default()
        };
        let iteration = now.since(&earlier);
        assert_eq!(
            (iteration.own_ns, iteration.backend_ns),
            (30_000_000, 2_000_000)
        );
        assert_eq!(iteration.parts()[0], ("rebuilding", 20_000_000));
        assert_eq!(
            iteration.to_string(),
            "2.0 ms in the backend's ops, 30.0 ms in burn-swap's own work (20.0 rebuilding, 9.0 giving memory back, 1.0 prefetching)"
        );
    }

    #[test]
    fn the_backend_op_leaves_out_the_parts_run_while_it_read_its_inputs() {
        let handed = handed_over(Instant::now());
        timed(Part::SwapIn, || {
            std::thread::sleep(Duration::from_millis(30))
        });
        let in_parts = IN_PARTS_NS.with(Cell::get) - handed.in_parts_ns;
        assert!(in_parts >= 30_000_000, "{in_parts}");
        assert_eq!(split(50, 30), (20, 30));
        assert_eq!(split(50, 0), (50, 0));
        // Clocks read apart can put a part a little over its window.
        assert_eq!(split(50, 60), (0, 50));
    }
}
