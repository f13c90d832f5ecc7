//! A GPT-2-small-style decoder (Radford et al. 2019).
//!
//! Token and learned positional embeddings, dropout, `layers` pre-norm
//! blocks (layer-norm, causal multi-head self-attention, dropout, residual;
//! layer-norm, 4x-wide gelu MLP, dropout, residual), a final layer-norm and a
//! linear head over the vocabulary; trained with next-token cross-entropy.
//! Defaults are GPT-2 small: 12 layers, width 768, 12 heads, sequence 1024,
//! vocabulary 50257, dropout 0.1.
//!
//! Differences from GPT-2: the head is not tied to the token embedding (and
//! has no bias), and burn's `MultiHeadAttention` applies its dropout to the
//! attention scores before the softmax rather than to the probabilities.

use burn::module::Module;
use burn::nn::attention::{
    generate_autoregressive_mask, MhaInput, MultiHeadAttention, MultiHeadAttentionConfig,
};
use burn::nn::{
    Dropout, DropoutConfig, Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear,
    LinearConfig,
};
use burn::tensor::activation::gelu;
use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor};

use crate::loss::sequence_cross_entropy;
use crate::params::materialize;
use crate::synthetic;

/// Configuration of [`Gpt`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GptConfig {
    /// Transformer blocks. Default 12.
    pub layers: usize,
    /// Model width. Default 768.
    pub width: usize,
    /// Attention heads (must divide `width`). Default 12.
    pub heads: usize,
    /// Maximum (and synthetic-batch) sequence length. Default 1024.
    pub seq: usize,
    /// Vocabulary size. Default 50257.
    pub vocab: usize,
    /// Dropout probability (embeddings, attention, residual branches). Default 0.1.
    pub dropout: f64,
}

impl Default for GptConfig {
    fn default() -> Self {
        Self::small()
    }
}

impl GptConfig {
    /// GPT-2 small: 12 layers, width 768, 12 heads, sequence 1024, vocabulary 50257, dropout 0.1.
    pub fn small() -> Self {
        Self {
            layers: 12,
            width: 768,
            heads: 12,
            seq: 1024,
            vocab: 50257,
            dropout: 0.1,
        }
    }

    /// A tiny decoder for tests: 2 layers, width 32, 4 heads, sequence 16,
    /// vocabulary 64, dropout 0.1.
    pub fn tiny() -> Self {
        Self {
            layers: 2,
            width: 32,
            heads: 4,
            seq: 16,
            vocab: 64,
            dropout: 0.1,
        }
    }

    /// Builds the decoder on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> Gpt<B> {
        assert!(
            self.width.is_multiple_of(self.heads),
            "GPT width {} is not a multiple of its {} heads",
            self.width,
            self.heads
        );
        let w = self.width;
        let blocks = (0..self.layers)
            .map(|_| GptBlock {
                ln1: LayerNormConfig::new(w).init(device),
                attention: MultiHeadAttentionConfig::new(w, self.heads)
                    .with_dropout(self.dropout)
                    .init(device),
                ln2: LayerNormConfig::new(w).init(device),
                fc: LinearConfig::new(w, 4 * w).init(device),
                proj: LinearConfig::new(4 * w, w).init(device),
                dropout: DropoutConfig::new(self.dropout).init(),
            })
            .collect();
        materialize(Gpt {
            tokens: EmbeddingConfig::new(self.vocab, w).init(device),
            positions: EmbeddingConfig::new(self.seq, w).init(device),
            dropout: DropoutConfig::new(self.dropout).init(),
            blocks,
            ln_f: LayerNormConfig::new(w).init(device),
            head: LinearConfig::new(w, self.vocab)
                .with_bias(false)
                .init(device),
        })
    }

    /// Deterministic token ids `[batch, seq]` and their next-token targets
    /// `[batch, seq]` (the ids shifted left by one, the last target drawn
    /// fresh).
    pub fn batch<B: Backend>(
        &self,
        batch: usize,
        seed: u64,
        device: &B::Device,
    ) -> (Tensor<B, 2, Int>, Tensor<B, 2, Int>) {
        synthetic::next_token_batch(batch, self.seq, self.vocab, seed, device)
    }
}

/// One pre-norm decoder block.
#[derive(Module, Debug)]
pub struct GptBlock<B: Backend> {
    ln1: LayerNorm<B>,
    attention: MultiHeadAttention<B>,
    ln2: LayerNorm<B>,
    fc: Linear<B>,
    proj: Linear<B>,
    dropout: Dropout,
}

impl<B: Backend> GptBlock<B> {
    /// Applies the block to `x` `[N, T, width]` under the causal `mask` `[N, T, T]`.
    pub fn forward(&self, x: Tensor<B, 3>, mask: Tensor<B, 3, burn::tensor::Bool>) -> Tensor<B, 3> {
        let attended = self
            .attention
            .forward(MhaInput::self_attn(self.ln1.forward(x.clone())).mask_attn(mask))
            .context;
        let x = x + self.dropout.forward(attended);
        let mlp = self
            .proj
            .forward(gelu(self.fc.forward(self.ln2.forward(x.clone()))));
        x + self.dropout.forward(mlp)
    }
}

/// The decoder; see the [module documentation](self).
#[derive(Module, Debug)]
pub struct Gpt<B: Backend> {
    tokens: Embedding<B>,
    positions: Embedding<B>,
    dropout: Dropout,
    blocks: Vec<GptBlock<B>>,
    ln_f: LayerNorm<B>,
    head: Linear<B>,
}

impl<B: Backend> Gpt<B> {
    /// Token ids `[N, T]` (T at most the configured `seq`) to logits `[N, T, vocab]`.
    pub fn forward(&self, tokens: Tensor<B, 2, Int>) -> Tensor<B, 3> {
        let [n, t] = tokens.dims();
        let device = tokens.device();
        let positions = Tensor::<B, 1, Int>::arange(0..t as i64, &device)
            .reshape([1, t])
            .expand([n, t]);
        let x = self.tokens.forward(tokens) + self.positions.forward(positions);
        let mut x = self.dropout.forward(x);
        let mask = generate_autoregressive_mask::<B>(n, t, &device);
        for block in &self.blocks {
            x = block.forward(x, mask.clone());
        }
        self.head.forward(self.ln_f.forward(x))
    }

    /// Mean next-token cross-entropy against `targets` `[N, T]`.
    pub fn loss(&self, tokens: Tensor<B, 2, Int>, targets: Tensor<B, 2, Int>) -> Tensor<B, 1> {
        sequence_cross_entropy(self.forward(tokens), targets)
    }
}
