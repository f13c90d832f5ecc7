//! What a plan's copies cost: the link each way, the codecs that can shrink
//! a tensor before it crosses it, and a replay of one iteration that says
//! how much of that the compute thread waits for.
//!
//! CSWAP's model per swapped tensor: swapped as it is, it costs the time its
//! two copies do not hide behind compute (T'); compressed, it costs the
//! compression and decompression kernels, which run on the compute stream
//! and hide behind nothing, plus what its smaller copies do not hide (T).
//! Tensors share the link, so what a copy hides behind depends on the
//! copies queued before it: [`replay`] runs the iteration's ops with one
//! copy queue per direction instead of pricing each tensor alone.

mod calibrate;
mod codec;
mod decisions;
mod replay;
pub mod work;

pub use calibrate::{calibrate, Calibration, MeasuredStep};
pub use codec::{
    every_other, BandFit, Codec, CodecCost, CodecFit, CodecSample, CodecTimeModel, FitError,
    Linear, ModelError, MAX_CODEC_ELEMENTS,
};
pub use decisions::{
    decision_accuracy, isolated_choice, isolated_swap_ns, Decision, DecisionAccuracy,
};
pub use replay::{replay, CodecTime, SwapReplay};

use serde::{Deserialize, Serialize};

/// The host link's bandwidth, measured on the device.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinkModel {
    /// Device to host, alone on the link (bytes per second).
    pub to_host_bytes_per_s: f64,
    /// Host to device, alone on the link.
    pub to_device_bytes_per_s: f64,
    /// Device to host while a host-to-device copy runs too.
    pub duplex_to_host_bytes_per_s: f64,
    /// Host to device while a device-to-host copy runs too.
    pub duplex_to_device_bytes_per_s: f64,
    /// Fixed cost of one copy (ns).
    pub latency_ns: f64,
}

impl LinkModel {
    /// The same bandwidth each way, alone and in duplex.
    pub fn symmetric(bytes_per_s: f64, duplex_bytes_per_s: f64, latency_ns: f64) -> Self {
        Self {
            to_host_bytes_per_s: bytes_per_s,
            to_device_bytes_per_s: bytes_per_s,
            duplex_to_host_bytes_per_s: duplex_bytes_per_s,
            duplex_to_device_bytes_per_s: duplex_bytes_per_s,
            latency_ns,
        }
    }

    /// Time to copy `bytes` to the host, with or without a copy the other way.
    pub fn to_host_ns(&self, bytes: u64, duplex: bool) -> f64 {
        match duplex {
            false => self.copy_ns(bytes, self.to_host_bytes_per_s),
            true => self.copy_ns(bytes, self.duplex_to_host_bytes_per_s),
        }
    }

    /// Time to copy `bytes` to the device, with or without a copy the other way.
    pub fn to_device_ns(&self, bytes: u64, duplex: bool) -> f64 {
        match duplex {
            false => self.copy_ns(bytes, self.to_device_bytes_per_s),
            true => self.copy_ns(bytes, self.duplex_to_device_bytes_per_s),
        }
    }

    fn copy_ns(&self, bytes: u64, bytes_per_s: f64) -> f64 {
        self.latency_ns + bytes as f64 / bytes_per_s * 1e9
    }

    /// The link with every bandwidth times `factor`.
    pub fn scaled(&self, factor: f64) -> Self {
        Self {
            to_host_bytes_per_s: self.to_host_bytes_per_s * factor,
            to_device_bytes_per_s: self.to_device_bytes_per_s * factor,
            duplex_to_host_bytes_per_s: self.duplex_to_host_bytes_per_s * factor,
            duplex_to_device_bytes_per_s: self.duplex_to_device_bytes_per_s * factor,
            latency_ns: self.latency_ns,
        }
    }
}

/// Everything a plan's copies are priced with on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    /// The host link.
    pub link: LinkModel,
    /// The codecs, where measured.
    pub codecs: Option<CodecTimeModel>,
}

impl CostModel {
    /// Reads a model written by [`Self::save`].
    pub fn load(path: impl AsRef<std::path::Path>) -> std::io::Result<Self> {
        crate::json::load_json(path.as_ref())
    }

    /// Writes the model as JSON.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        crate::json::save_json(path.as_ref(), self)
    }

    /// The model with the link slowed down until the replay of `decisions`
    /// on `profile` waits `measured_wait_ns`, as an iteration that followed
    /// them did: the share of the measured bandwidth copies get during
    /// training (the device's memory is busy, copies queue behind the
    /// budget). Never faster than measured; at most 20x slower. Returns the
    /// model and the factor.
    pub fn calibrated_to(
        &self,
        profile: &crate::profile::Profile,
        decisions: &[crate::plan::Decision],
        measured_wait_ns: f64,
    ) -> (Self, f64) {
        let with = |factor: f64| Self {
            link: self.link.scaled(factor),
            codecs: self.codecs.clone(),
        };
        let wait =
            |factor: f64| replay(profile, decisions, &with(factor), CodecTime::Measured).wait_ns;
        if wait(1.0) >= measured_wait_ns {
            return (self.clone(), 1.0);
        }
        // The replay waits longer the slower the link: bisect on the factor.
        let (mut fast, mut slow) = (1.0_f64, 0.05_f64);
        if wait(slow) <= measured_wait_ns {
            return (with(slow), slow);
        }
        for _ in 0..30 {
            let mid = (fast * slow).sqrt();
            match wait(mid) < measured_wait_ns {
                true => fast = mid,
                false => slow = mid,
            }
        }
        (with(fast), fast)
    }

    /// What compressing `bytes` of `dtype` with `zero_fraction` zeros costs
    /// with `codec`, if the codecs were measured for it.
    pub fn codec_cost(
        &self,
        codec: Codec,
        dtype: &str,
        bytes: u64,
        zero_fraction: f64,
    ) -> Option<CodecCost> {
        if !codec.accepts(dtype, bytes) {
            return None;
        }
        self.codecs
            .as_ref()?
            .predict(codec, dtype, bytes, zero_fraction)
    }
}

#[cfg(test)]
mod tests;
