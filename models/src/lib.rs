#![warn(missing_docs)]

//! Models shared by burn-swap's examples, benches and tests.
//!
//! Every model is generic over the Burn backend (`B: Backend`), so the same
//! code trains with `Autodiff<B>`, `SwapAutodiff<B>` or any other decorated
//! backend.
//!
//! - [`test_nets`]: small networks for unit and integration tests (an MLP, a
//!   small CNN with batch-norm and dropout, a residual block, a transformer
//!   block), each a forward plus backward in well under a second on the CPU.
//! - [`synthetic`]: deterministic data from a seed, generated on the host (no
//!   backend RNG, no files).
//! - [`loss`]: the cross-entropy used by every model.
//! - [`params`]: eager parameter initialisation (every `init` here uses it, so
//!   seeding the backend before a forward pass makes dropout reproducible).

pub mod loss;
pub mod params;
pub mod synthetic;
pub mod test_nets;
