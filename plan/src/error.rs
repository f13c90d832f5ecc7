//! Why planning failed, with the numbers that explain it.

use serde::Serialize;

use crate::human_bytes;

/// Why no plan was made.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
pub enum PlanError {
    /// No plan keeps the iteration's device memory under the budget.
    #[error(
        "burn-swap: no plan keeps the iteration's device memory under the budget of {}: policy {policy} needs {} (at op {op} of iteration {iteration}); tried: {tried}",
        human_bytes(*.budget), human_bytes(*.need)
    )]
    BudgetTooSmall {
        /// The configured budget in bytes.
        budget: u64,
        /// The smallest device peak the policy could reach, in bytes.
        need: u64,
        /// The op at which that peak occurs.
        op: u32,
        /// The profiled iteration the plan was made from.
        iteration: u64,
        /// The policy's name.
        policy: String,
        /// What the policy tried, in words.
        tried: String,
    },
    /// The plan's swapped tensors would need more host memory at once than
    /// the transfer engine's pinned pool can take.
    #[error(
        "burn-swap: no plan keeps the swapped tensors within the {} of host memory the pinned pool can take: policy {policy} needs {} (iteration {iteration}); tried: {tried}; raise BURN_SWAP_PINNED_POOL or lower BURN_SWAP_HOST_RESERVE where the host has the RAM, or rebuild tensors instead (`home` with the `recompute` feature)",
        human_bytes(*.host_budget), human_bytes(*.need)
    )]
    HostTooSmall {
        /// The host bytes the pool can take.
        host_budget: u64,
        /// The host bytes the plan would hold at once.
        need: u64,
        /// The profiled iteration the plan was made from.
        iteration: u64,
        /// The policy's name.
        policy: String,
        /// What the policy tried, in words.
        tried: String,
    },
    /// The policy prices its choices with a cost model the device has not
    /// measured.
    #[error("burn-swap: policy {policy} needs {missing}, measured on this device; none was given")]
    NoCostModel {
        /// The policy's name.
        policy: String,
        /// What is missing, in words.
        missing: String,
    },
    /// The policy prices its choices with the ops' times, and the profile
    /// has none.
    #[error("burn-swap: policy {policy} prices its choices with the ops' times, and iteration {iteration} was profiled without them (time it op by op: BURN_SWAP_TIMING=1)")]
    NoOpTimes {
        /// The policy's name.
        policy: String,
        /// The profiled iteration.
        iteration: u64,
    },
}
