//! Failures inside the device runtime's own threads, raised on the training
//! thread.
//!
//! CubeCL 0.10 runs each device's work on a thread of its own. When an
//! allocation fails there (the device is out of memory), that task panics
//! and the runtime carries on without the buffer: later kernels use memory
//! that is not there, and training goes on with wrong numbers and no error
//! where the user looks. burn-swap watches for panics raised in CubeCL's
//! code on other threads and fails the training thread's next op with the
//! first one's message.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

/// The first failure seen, if any.
struct Watch {
    failed: AtomicBool,
    first: Mutex<Option<String>>,
}

impl Watch {
    const fn new() -> Self {
        Self {
            failed: AtomicBool::new(false),
            first: Mutex::new(None),
        }
    }

    fn record(&self, message: &str) {
        let mut first = self.first.lock().unwrap_or_else(|p| p.into_inner());
        if first.is_none() {
            *first = Some(message.to_string());
        }
        self.failed.store(true, Ordering::Release);
    }

    /// One atomic load when nothing failed.
    fn failure(&self) -> Option<String> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.first.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// `memory`: what the device and burn-swap had, said with an
    /// out-of-memory failure.
    fn raise_if_failed_with(&self, memory: impl FnOnce() -> Option<String>) {
        if let Some(message) = self.failure() {
            let hint = if message.contains("allocate") {
                let memory = memory().map(|m| format!("{m}; ")).unwrap_or_default();
                format!(
                    "the device ran out of memory; {memory}lower the budget (it must leave room \
                     for the parameters, optimizer state and the ops' own workspaces) or the batch"
                )
            } else {
                "results computed since are not valid".to_string()
            };
            panic!("burn-swap: the device runtime failed on its own thread: {message} ({hint})");
        }
    }
}

static WATCH: Watch = Watch::new();

/// Installs the watch once per process (the previous panic hook still runs).
pub(crate) fn watch() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_runtime = info.location().is_some_and(|l| l.file().contains("cubecl"));
            if in_runtime {
                WATCH.record(&panic_text(info.payload()));
            }
            previous(info);
        }));
    });
}

fn panic_text(payload: &dyn std::any::Any) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-text payload".into())
}

/// Panics on the calling (training) thread if the runtime failed; `memory`
/// says how much of the device was free, for an out-of-memory failure.
pub(crate) fn raise_if_failed(memory: impl FnOnce() -> Option<String>) {
    WATCH.raise_if_failed_with(memory);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_panics_in_runtime_code_count() {
        watch();
        // A panic located in our own code is not the runtime's.
        let _ = std::thread::spawn(|| panic!("not the runtime")).join();
        assert!(WATCH.failure().is_none());
    }

    #[test]
    fn a_runtime_failure_is_raised_with_its_message() {
        let watch = Watch::new();
        let memory = || Some("1.5 GiB of 12.0 GiB free, budget 8.0 GiB".to_string());
        watch.raise_if_failed_with(memory);
        watch.record("can't allocate buffer of size: 3221225472");
        watch.record("a later failure");
        let raised = std::panic::catch_unwind(|| watch.raise_if_failed_with(memory)).unwrap_err();
        let text = panic_text(raised.as_ref());
        assert!(
            text.contains("can't allocate buffer of size: 3221225472"),
            "{text}"
        );
        assert!(text.contains("out of memory"), "{text}");
        assert!(
            text.contains("1.5 GiB of 12.0 GiB free, budget 8.0 GiB"),
            "{text}"
        );
    }
}
