//! The host link as the transfer engine will use it, measured on the device
//! when no cost model was given: plans that price copies by time (`home`,
//! `capuchin`) then need no file measured beforehand.

use std::time::Instant;

use cubecl::cuda::CudaDevice;
use cudarc::driver::{result, sys};

use super::{make_current, CudaError};
use crate::policy::LinkModel;

/// Bytes of each timed copy: large enough for the link's full rate, small
/// enough to take little of a card that is nearly full.
const COPY_BYTES: usize = 64 << 20;
/// Timed copies per case; the median is kept.
const REPS: usize = 5;

/// What the measurement allocated, given back however it ends.
struct Buffers {
    host: [*mut std::ffi::c_void; 2],
    device: [sys::CUdeviceptr; 2],
    streams: [sys::CUstream; 2],
}

impl Drop for Buffers {
    fn drop(&mut self) {
        // SAFETY: each pointer is null or was allocated by the matching call
        // below and is freed once; the streams are synchronised first.
        unsafe {
            for stream in self.streams.into_iter().filter(|s| !s.is_null()) {
                let _ = result::stream::synchronize(stream);
                let _ = result::stream::destroy(stream);
            }
            for host in self.host.into_iter().filter(|h| !h.is_null()) {
                let _ = result::free_host(host);
            }
            for device in self.device.into_iter().filter(|&d| d != 0) {
                let _ = result::free_sync(device);
            }
        }
    }
}

/// Bandwidth each way alone and both at once (copies between cached pinned
/// host memory, as the engine's pool, and the device, one stream per
/// direction, the median of a few), and a 4 KiB copy's time as the fixed
/// cost. Takes about 50 ms and 128 MiB of the device while it runs.
pub(crate) fn measure_link(device: &CudaDevice) -> Result<LinkModel, CudaError> {
    make_current(device)?;
    let mut b = Buffers {
        host: [std::ptr::null_mut(); 2],
        device: [0; 2],
        streams: [std::ptr::null_mut(); 2],
    };
    // SAFETY: plain driver allocations of the sizes used below; freed by
    // `Buffers`.
    unsafe {
        for i in 0..2 {
            b.host[i] = result::malloc_host(COPY_BYTES, 0).map_err(CudaError)?;
            b.device[i] = result::malloc_sync(COPY_BYTES).map_err(CudaError)?;
            b.streams[i] = result::stream::create(result::stream::StreamKind::NonBlocking)
                .map_err(CudaError)?;
        }
    }
    let [down, up] = b.streams;
    let copy = |to_host: bool, to_device: bool, bytes: usize| -> Result<f64, CudaError> {
        let started = Instant::now();
        // SAFETY: the buffers hold `COPY_BYTES` >= `bytes`; each stream is
        // synchronised before the buffers are used again or freed.
        unsafe {
            if to_host {
                sys::cuMemcpyDtoHAsync_v2(b.host[0], b.device[0], bytes, down)
                    .result()
                    .map_err(CudaError)?;
            }
            if to_device {
                sys::cuMemcpyHtoDAsync_v2(b.device[1], b.host[1], bytes, up)
                    .result()
                    .map_err(CudaError)?;
            }
            result::stream::synchronize(down).map_err(CudaError)?;
            result::stream::synchronize(up).map_err(CudaError)?;
        }
        Ok(started.elapsed().as_secs_f64())
    };
    copy(true, true, COPY_BYTES)?; // warm-up
    let median = |to_host: bool, to_device: bool, bytes: usize| -> Result<f64, CudaError> {
        let mut secs = (0..REPS)
            .map(|_| copy(to_host, to_device, bytes))
            .collect::<Result<Vec<_>, _>>()?;
        secs.sort_by(f64::total_cmp);
        Ok(secs[REPS / 2])
    };
    let rate = |secs: f64| COPY_BYTES as f64 / secs;
    let to_host = rate(median(true, false, COPY_BYTES)?);
    let to_device = rate(median(false, true, COPY_BYTES)?);
    let both = rate(median(true, true, COPY_BYTES)?);
    let latency = median(true, false, 4096)?;
    Ok(LinkModel {
        to_host_bytes_per_s: to_host,
        to_device_bytes_per_s: to_device,
        duplex_to_host_bytes_per_s: both,
        duplex_to_device_bytes_per_s: both,
        latency_ns: latency * 1e9,
    })
}
