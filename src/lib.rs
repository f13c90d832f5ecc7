#![warn(missing_docs)]
//! # burn-swap
//!
//! Train Burn models that need more GPU memory than the GPU has. Replace
//! `Autodiff<B>` by [`SwapAutodiff<B>`]: the model's saved activations are
//! then kept on the device or swapped to host memory, tensor by tensor, by a
//! plan made from a profile of a previous iteration. Gradients are
//! bit-identical to `Autodiff<B>`.
//!
//! The parts, by module:
//! - [`decorator`]: `Swapping<B>`, the backend whose float primitive is a
//!   residency [`handle`]; its op forwarding is generated (`forwarding.rs`).
//! - [`autodiff`]: `SwapAutodiff<B>`, the user-facing backend.
//! - [`profiler`]: what an iteration did, per op and per tensor.
//! - [`policy`]: from a profile to a plan (`KeepAll`, `SwapAll`).
//! - `executor`: applies the plan on the per-op path.
//! - `transfer`: moves data between device and host.
//! - [`config`]: the builder and the `BURN_SWAP_*` variables.

pub mod autodiff;
pub mod config;
mod convert;
pub mod decorator;
pub mod error;
mod executor;
mod forwarding;
pub mod handle;
pub mod policy;
pub mod profiler;
pub mod transfer;

use std::sync::Arc;

#[cfg(feature = "recompute")]
compile_error!("burn-swap: the `recompute` feature is declared, but recomputation is not built yet; build without it");

/// The GPU compression codecs (feature `compression`).
#[cfg(feature = "compression")]
pub use cube_kernels as codecs;

pub use autodiff::SwapAutodiff;
pub use config::{OnBudgetError, SwapConfig, SwapConfigBuilder};
pub use decorator::Swapping;
pub use error::SwapError;
pub use handle::{Residency, SwapTensor};
pub use policy::{Action, KeepAll, Plan, Policy, SwapAll};
pub use profiler::{Profile, TensorKey};
pub use transfer::TransferError;

/// Sets the configuration for the current thread, forgetting any plan and
/// profile made so far. Without a call, the thread uses
/// [`SwapConfig::from_env`].
pub fn configure(config: SwapConfig) {
    executor::with(|e| e.configure(config));
}

/// The current thread's configuration.
pub fn config() -> SwapConfig {
    executor::with(|e| e.config().clone())
}

/// `Err` when the last planning failed (no plan fits the budget) and the
/// configuration chose to continue with every tensor kept.
pub fn status() -> Result<(), SwapError> {
    executor::with(|e| e.status())
}

/// The profile of the last completed iteration on this thread.
pub fn last_profile() -> Option<Arc<Profile>> {
    executor::with(|e| e.last_profile())
}

/// The plan being applied on this thread, if any.
pub fn current_plan() -> Option<Arc<Plan>> {
    executor::with(|e| e.plan())
}

/// Completed iterations on this thread.
pub fn iterations() -> u64 {
    executor::with(|e| e.iteration())
}
