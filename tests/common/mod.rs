//! Shared test helpers: run tests that seed the CPU backends one at a time;
//! a model's gradients and parameters as raw bytes, compared bit for bit.
#![allow(dead_code, unused_imports)]

use std::sync::{Mutex, MutexGuard};

pub mod mlp;

pub use burn_swap_models::bytes::{
    grad_bytes, gradients_per_iteration, param_bytes, params_after_training,
};

/// The CPU backends seed one global RNG: tests that seed run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// `SwapAll` over every saved tensor (no minimum size) under `budget` bytes:
/// the configuration most tests start from.
pub fn swap_every_tensor(budget: u64) -> burn_swap::SwapConfigBuilder {
    burn_swap::SwapConfig::builder()
        .policy(burn_swap::SwapAll)
        .min_swap_bytes(0)
        .budget_bytes(budget)
}
