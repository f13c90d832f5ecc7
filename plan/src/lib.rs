#![warn(missing_docs)]
//! # burn-swap-plan
//!
//! The planning core of burn-swap, with no Burn dependency: what one training
//! iteration did, and what to do with its saved activations next time.
//!
//! - [`profile`]: an iteration op by op and tensor by tensor ([`Profile`]),
//!   and the [`Recorder`](profile::Recorder) that collects it.
//! - [`plan`]: a decision per saved tensor ([`Plan`], [`Decision`], [`Action`]).
//! - [`memory`]: the bytes resident at each op, as recorded or as a plan
//!   would make them (one interval sweep for both), and the working bytes
//!   no plan moves ([`Footprint`]).
//! - [`cost`]: what a plan's copies cost: the host link, the codecs' time
//!   model (fitted to timings taken on the device) and a replay of the
//!   iteration with one copy queue per direction.
//! - [`evaluate`]: the plan evaluator: an iteration's time and peak device
//!   memory under any plan, predicted from its profile.
//! - [`recompute`]: which saved tensors can be rebuilt in backward by
//!   running their op again, and from what.
//! - [`policy`]: from a profile to a plan ([`KeepAll`], [`SwapAll`], and the
//!   compress-then-swap policies [`Cswap`], [`CompressAll`],
//!   [`CompressionOracle`]).
//! - [`svg`]: a picture of an iteration's memory.
//!
//! Element types, tensor ids and device memory are plain data here: the
//! crate that runs the model converts its own types at the boundary.

mod bytes;
pub mod cost;
pub mod error;
pub mod evaluate;
mod json;
pub mod memory;
pub mod plan;
pub mod policy;
pub mod profile;
pub mod recompute;
pub mod svg;
#[cfg(test)]
mod testing;

pub use bytes::human_bytes;
pub use error::PlanError;
pub use evaluate::{Evaluation, Evaluator};
pub use json::write_json;
pub use memory::{simulate, Footprint};
pub use plan::{Action, Decision, Plan};
pub use policy::{CompressAll, CompressionOracle, Cswap, KeepAll, PlanParams, Policy, SwapAll};
pub use profile::{Profile, TensorKey};
pub use svg::{timeline_svg, timeline_svg_with, SvgOptions};
