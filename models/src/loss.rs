//! The training loss every model in this crate uses.

use burn::tensor::activation::log_softmax;
use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor};

/// Mean softmax cross-entropy of `logits` `[N, C]` against class indices
/// `targets` `[N]`.
///
/// Written from primitive ops (log-softmax, gather, mean) so that every op it
/// records is one an autodiff decorator sees.
pub fn cross_entropy<B: Backend>(logits: Tensor<B, 2>, targets: Tensor<B, 1, Int>) -> Tensor<B, 1> {
    let [n, _classes] = logits.dims();
    let log_probs = log_softmax(logits, 1);
    let picked = log_probs.gather(1, targets.reshape([n, 1]));
    picked.mean().neg()
}

/// Cross-entropy over a sequence: `logits` `[N, T, V]` against token ids
/// `targets` `[N, T]`, averaged over all `N * T` positions.
pub fn sequence_cross_entropy<B: Backend>(
    logits: Tensor<B, 3>,
    targets: Tensor<B, 2, Int>,
) -> Tensor<B, 1> {
    let [n, t, v] = logits.dims();
    cross_entropy(logits.reshape([n * t, v]), targets.reshape([n * t]))
}
