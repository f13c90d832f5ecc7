//! What a user must see reaches the terminal: an application (burn-train's
//! `Learner`, for one) may install its own `tracing` subscriber that writes
//! to a file, and a budget no plan meets would then show only as a panic.
//! Each cause is written to standard error once per process, besides the
//! `tracing` event; `BURN_SWAP_QUIET=1` silences these lines.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

fn quiet() -> bool {
    static QUIET: OnceLock<bool> = OnceLock::new();
    *QUIET.get_or_init(|| std::env::var("BURN_SWAP_QUIET").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Writes `message` to standard error the first time `cause` comes up.
pub(crate) fn once(cause: &'static str, message: impl FnOnce() -> String) {
    static SEEN: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    if quiet() {
        return;
    }
    let first = SEEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(cause);
    if first {
        eprintln!("burn-swap: {}", message());
    }
}

/// Writes `message` to standard error (the caller says each cause once).
pub(crate) fn say(message: impl FnOnce() -> String) {
    if !quiet() {
        eprintln!("burn-swap: {}", message());
    }
}
