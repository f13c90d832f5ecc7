//! The device memory an iteration really used, as the runtime reported it.

use serde::{Deserialize, Serialize};

/// Device memory in use, as the backend's runtime reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceUsage {
    /// Bytes in live allocations, over every stream burn-swap uses.
    pub in_use: u64,
    /// Bytes the runtime's pools hold from the driver, same streams.
    pub reserved: u64,
    /// Device memory used as the driver sees it (all processes), if known.
    pub driver_used: Option<u64>,
}

/// The device memory an iteration really used, sampled from the runtime.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceReport {
    /// `(op, usage)` samples, in op order (every `device_sample_ops` ops and
    /// at the phase boundaries).
    pub samples: Vec<(u32, DeviceUsage)>,
    /// Bytes in use at the first sample of the iteration.
    pub start_in_use: u64,
    /// Highest bytes in use sampled.
    pub peak_in_use: u64,
    /// Op of that sample.
    pub peak_op: u32,
    /// Highest bytes the runtime's pools held.
    pub peak_reserved: u64,
    /// Highest device memory used as the driver sees it, if known.
    pub peak_driver_used: Option<u64>,
    /// Bytes in the driver's allocator's buffers at the iteration's start,
    /// where the allocator keeps a high-water mark (CUDA's memory pool).
    #[serde(default)]
    pub allocator_start: Option<u64>,
    /// The most bytes in its buffers during the iteration: its high-water
    /// mark, which sees every buffer at the moment it was allocated (op
    /// workspaces and fused kernels' buffers included), where the samples
    /// see a few moments.
    #[serde(default)]
    pub allocator_peak: Option<u64>,
}

impl DeviceReport {
    /// A report from samples; `None` when there are none.
    pub fn from_samples(samples: Vec<(u32, DeviceUsage)>) -> Option<Self> {
        let (first, _) = samples.split_first()?;
        let (peak_op, peak) = samples
            .iter()
            .max_by_key(|(_, u)| u.in_use)
            .map(|(op, u)| (*op, *u))?;
        Some(Self {
            start_in_use: first.1.in_use,
            peak_in_use: peak.in_use,
            peak_op,
            peak_reserved: samples.iter().map(|(_, u)| u.reserved).max().unwrap_or(0),
            peak_driver_used: samples.iter().filter_map(|(_, u)| u.driver_used).max(),
            samples,
            allocator_start: None,
            allocator_peak: None,
        })
    }

    /// Peak growth over the start of the iteration: what the iteration's
    /// activations (and workspaces) really took.
    pub fn peak_growth(&self) -> u64 {
        self.peak_in_use.saturating_sub(self.start_in_use)
    }

    /// Peak growth over the start of the iteration in the driver's
    /// allocator's buffers, from its high-water mark, if known.
    pub fn allocator_growth(&self) -> Option<u64> {
        Some(self.allocator_peak?.saturating_sub(self.allocator_start?))
    }

    /// The best measure of the iteration's peak growth: the allocator's
    /// high-water mark where known, else the highest sample.
    pub fn measured_growth(&self) -> u64 {
        self.allocator_growth()
            .unwrap_or_else(|| self.peak_growth())
    }
}
