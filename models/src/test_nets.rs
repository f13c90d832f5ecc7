//! Small networks for tests: each covers a family of ops a swapping backend
//! must handle, and a forward plus backward of each takes milliseconds on the
//! CPU.
//!
//! | net | ops it exercises |
//! |---|---|
//! | [`Mlp`] | linear, relu |
//! | [`SmallCnn`] | conv2d, batch-norm, relu, max-pool2d, dropout (backend RNG), flatten, linear |
//! | [`ResidualNet`] | conv-bn-relu-conv-bn with an identity skip, global average pool |
//! | [`TransformerNet`] | embedding (Int input), layer-norm, multi-head self-attention with a causal mask, gelu, softmax cross-entropy over a sequence |
//!
//! Each has a config (`Default` gives the small test size) whose `init`
//! builds the net on a device and whose `batch` draws deterministic inputs and
//! targets from a seed; the net has `forward(input)` and `loss(input,
//! targets) -> Tensor<B, 1>`.

use burn::module::Module;
use burn::nn::attention::{
    generate_autoregressive_mask, MhaInput, MultiHeadAttention, MultiHeadAttentionConfig,
};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{
    BatchNorm, BatchNormConfig, Dropout, DropoutConfig, Embedding, EmbeddingConfig, LayerNorm,
    LayerNormConfig, Linear, LinearConfig, PaddingConfig2d,
};
use burn::tensor::activation::{gelu, relu};
use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor};

use crate::loss::{cross_entropy, sequence_cross_entropy};
use crate::params::materialize;
use crate::synthetic;

/// A 3x3 convolution with padding 1 (keeps height and width).
fn conv3x3<B: Backend>(cin: usize, cout: usize, bias: bool, device: &B::Device) -> Conv2d<B> {
    Conv2dConfig::new([cin, cout], [3, 3])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .with_bias(bias)
        .init(device)
}

// ---------------------------------------------------------------------------
// Mlp

/// Configuration of [`Mlp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MlpConfig {
    /// Input features.
    pub input: usize,
    /// Width of both hidden layers.
    pub hidden: usize,
    /// Output classes.
    pub classes: usize,
}

impl Default for MlpConfig {
    fn default() -> Self {
        Self {
            input: 32,
            hidden: 64,
            classes: 10,
        }
    }
}

impl MlpConfig {
    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> Mlp<B> {
        materialize(Mlp {
            fc1: LinearConfig::new(self.input, self.hidden).init(device),
            fc2: LinearConfig::new(self.hidden, self.hidden).init(device),
            fc3: LinearConfig::new(self.hidden, self.classes).init(device),
        })
    }

    /// Deterministic inputs `[batch, input]` and class targets `[batch]`.
    pub fn batch<B: Backend>(
        &self,
        batch: usize,
        seed: u64,
        device: &B::Device,
    ) -> (Tensor<B, 2>, Tensor<B, 1, Int>) {
        (
            synthetic::normal([batch, self.input], seed, device),
            synthetic::classes([batch], self.classes, seed.wrapping_add(1), device),
        )
    }
}

/// Three linear layers with relu between them.
#[derive(Module, Debug)]
pub struct Mlp<B: Backend> {
    fc1: Linear<B>,
    fc2: Linear<B>,
    fc3: Linear<B>,
}

impl<B: Backend> Mlp<B> {
    /// The default-sized network ([`MlpConfig::default`]).
    pub fn new(device: &B::Device) -> Self {
        MlpConfig::default().init(device)
    }

    /// `[N, input]` to logits `[N, classes]`.
    pub fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        let x = relu(self.fc1.forward(x));
        let x = relu(self.fc2.forward(x));
        self.fc3.forward(x)
    }

    /// Mean cross-entropy of the logits against `targets` `[N]`.
    pub fn loss(&self, x: Tensor<B, 2>, targets: Tensor<B, 1, Int>) -> Tensor<B, 1> {
        cross_entropy(self.forward(x), targets)
    }
}

// ---------------------------------------------------------------------------
// SmallCnn

/// Configuration of [`SmallCnn`]; the input is `[N, 3, size, size]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmallCnnConfig {
    /// Height and width of the input (even). Default 16.
    pub size: usize,
    /// Channels of the first convolution; the second has twice as many.
    pub channels: usize,
    /// Output classes.
    pub classes: usize,
    /// Dropout probability before the classifier. Default 0.5.
    pub dropout: f64,
    /// Extra conv-bn-relu stages at full resolution after the first one.
    /// Default 3: deep enough that the saved activations far outweigh the
    /// two tensors any single op needs at once, as in real CNNs.
    pub depth: usize,
}

impl Default for SmallCnnConfig {
    fn default() -> Self {
        Self {
            size: 16,
            channels: 8,
            classes: 10,
            dropout: 0.5,
            depth: 3,
        }
    }
}

impl SmallCnnConfig {
    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> SmallCnn<B> {
        let c = self.channels;
        let pooled = self.size / 2;
        materialize(SmallCnn {
            conv1: conv3x3(3, c, false, device),
            bn1: BatchNormConfig::new(c).init(device),
            stages: (0..self.depth)
                .map(|_| ConvBnStage {
                    conv: conv3x3(c, c, false, device),
                    bn: BatchNormConfig::new(c).init(device),
                })
                .collect(),
            pool: MaxPool2dConfig::new([2, 2]).with_strides([2, 2]).init(),
            conv2: conv3x3(c, 2 * c, true, device),
            dropout: DropoutConfig::new(self.dropout).init(),
            fc: LinearConfig::new(2 * c * pooled * pooled, self.classes).init(device),
        })
    }

    /// Deterministic images `[batch, 3, size, size]` and class targets `[batch]`.
    pub fn batch<B: Backend>(
        &self,
        batch: usize,
        seed: u64,
        device: &B::Device,
    ) -> (Tensor<B, 4>, Tensor<B, 1, Int>) {
        (
            synthetic::normal([batch, 3, self.size, self.size], seed, device),
            synthetic::classes([batch], self.classes, seed.wrapping_add(1), device),
        )
    }
}

/// A conv2d followed by batch-norm (relu is applied by the caller).
#[derive(Module, Debug)]
pub struct ConvBnStage<B: Backend> {
    conv: Conv2d<B>,
    bn: BatchNorm<B>,
}

/// conv2d, batch-norm, relu (then `depth` more conv-bn-relu stages),
/// max-pool, conv2d, relu, dropout, flatten, linear.
#[derive(Module, Debug)]
pub struct SmallCnn<B: Backend> {
    conv1: Conv2d<B>,
    bn1: BatchNorm<B>,
    stages: Vec<ConvBnStage<B>>,
    pool: MaxPool2d,
    conv2: Conv2d<B>,
    dropout: Dropout,
    fc: Linear<B>,
}

impl<B: Backend> SmallCnn<B> {
    /// The default-sized network ([`SmallCnnConfig::default`]).
    pub fn new(device: &B::Device) -> Self {
        SmallCnnConfig::default().init(device)
    }

    /// Images `[N, 3, size, size]` to logits `[N, classes]`.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 2> {
        let mut x = relu(self.bn1.forward(self.conv1.forward(x)));
        for stage in &self.stages {
            x = relu(stage.bn.forward(stage.conv.forward(x)));
        }
        let x = self.pool.forward(x);
        let x = relu(self.conv2.forward(x));
        let x = self.dropout.forward(x);
        self.fc.forward(x.flatten(1, 3))
    }

    /// Mean cross-entropy of the logits against `targets` `[N]`.
    pub fn loss(&self, x: Tensor<B, 4>, targets: Tensor<B, 1, Int>) -> Tensor<B, 1> {
        cross_entropy(self.forward(x), targets)
    }
}

// ---------------------------------------------------------------------------
// ResidualNet

/// Configuration of [`ResidualNet`]; the input is `[N, channels, size, size]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResidualNetConfig {
    /// Channels of the input and of both convolutions (the skip is an identity).
    pub channels: usize,
    /// Height and width of the input. Default 8.
    pub size: usize,
    /// Output classes.
    pub classes: usize,
}

impl Default for ResidualNetConfig {
    fn default() -> Self {
        Self {
            channels: 8,
            size: 8,
            classes: 10,
        }
    }
}

impl ResidualNetConfig {
    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> ResidualNet<B> {
        let c = self.channels;
        materialize(ResidualNet {
            conv1: conv3x3(c, c, false, device),
            bn1: BatchNormConfig::new(c).init(device),
            conv2: conv3x3(c, c, false, device),
            bn2: BatchNormConfig::new(c).init(device),
            fc: LinearConfig::new(c, self.classes).init(device),
        })
    }

    /// Deterministic inputs `[batch, channels, size, size]` and class targets `[batch]`.
    pub fn batch<B: Backend>(
        &self,
        batch: usize,
        seed: u64,
        device: &B::Device,
    ) -> (Tensor<B, 4>, Tensor<B, 1, Int>) {
        (
            synthetic::normal([batch, self.channels, self.size, self.size], seed, device),
            synthetic::classes([batch], self.classes, seed.wrapping_add(1), device),
        )
    }
}

/// One residual block (conv-bn-relu-conv-bn plus identity skip, relu), then a
/// global average pool and a linear classifier.
#[derive(Module, Debug)]
pub struct ResidualNet<B: Backend> {
    conv1: Conv2d<B>,
    bn1: BatchNorm<B>,
    conv2: Conv2d<B>,
    bn2: BatchNorm<B>,
    fc: Linear<B>,
}

impl<B: Backend> ResidualNet<B> {
    /// The default-sized network ([`ResidualNetConfig::default`]).
    pub fn new(device: &B::Device) -> Self {
        ResidualNetConfig::default().init(device)
    }

    /// Inputs `[N, channels, size, size]` to logits `[N, classes]`.
    pub fn forward(&self, x: Tensor<B, 4>) -> Tensor<B, 2> {
        let skip = x.clone();
        let y = relu(self.bn1.forward(self.conv1.forward(x)));
        let y = self.bn2.forward(self.conv2.forward(y));
        let y = relu(y + skip);
        let pooled: Tensor<B, 2> = y.mean_dim(3).mean_dim(2).flatten(1, 3);
        self.fc.forward(pooled)
    }

    /// Mean cross-entropy of the logits against `targets` `[N]`.
    pub fn loss(&self, x: Tensor<B, 4>, targets: Tensor<B, 1, Int>) -> Tensor<B, 1> {
        cross_entropy(self.forward(x), targets)
    }
}

// ---------------------------------------------------------------------------
// TransformerNet

/// Configuration of [`TransformerNet`]; the input is token ids `[N, seq]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransformerNetConfig {
    /// Vocabulary size (embedding rows and head outputs).
    pub vocab: usize,
    /// Model width.
    pub width: usize,
    /// Attention heads (must divide `width`).
    pub heads: usize,
    /// Sequence length of [`batch`](Self::batch) (the net takes any length).
    pub seq: usize,
    /// Dropout inside the attention (burn applies it to the scores). Default 0.
    pub dropout: f64,
}

impl Default for TransformerNetConfig {
    fn default() -> Self {
        Self {
            vocab: 64,
            width: 32,
            heads: 4,
            seq: 16,
            dropout: 0.0,
        }
    }
}

impl TransformerNetConfig {
    /// Builds the network on `device`.
    pub fn init<B: Backend>(&self, device: &B::Device) -> TransformerNet<B> {
        let w = self.width;
        materialize(TransformerNet {
            embedding: EmbeddingConfig::new(self.vocab, w).init(device),
            ln1: LayerNormConfig::new(w).init(device),
            attention: MultiHeadAttentionConfig::new(w, self.heads)
                .with_dropout(self.dropout)
                .init(device),
            ln2: LayerNormConfig::new(w).init(device),
            fc1: LinearConfig::new(w, 4 * w).init(device),
            fc2: LinearConfig::new(4 * w, w).init(device),
            head: LinearConfig::new(w, self.vocab).init(device),
        })
    }

    /// Deterministic token ids `[batch, seq]` and next-token targets `[batch, seq]`
    /// (the ids shifted left by one, the last target drawn fresh).
    pub fn batch<B: Backend>(
        &self,
        batch: usize,
        seed: u64,
        device: &B::Device,
    ) -> (Tensor<B, 2, Int>, Tensor<B, 2, Int>) {
        synthetic::next_token_batch(batch, self.seq, self.vocab, seed, device)
    }
}

/// Embedding, one pre-norm transformer block (causal multi-head
/// self-attention, gelu MLP, both residual), and a linear head over the
/// vocabulary.
#[derive(Module, Debug)]
pub struct TransformerNet<B: Backend> {
    embedding: Embedding<B>,
    ln1: LayerNorm<B>,
    attention: MultiHeadAttention<B>,
    ln2: LayerNorm<B>,
    fc1: Linear<B>,
    fc2: Linear<B>,
    head: Linear<B>,
}

impl<B: Backend> TransformerNet<B> {
    /// The default-sized network ([`TransformerNetConfig::default`]).
    pub fn new(device: &B::Device) -> Self {
        TransformerNetConfig::default().init(device)
    }

    /// Token ids `[N, T]` to logits `[N, T, vocab]`.
    pub fn forward(&self, tokens: Tensor<B, 2, Int>) -> Tensor<B, 3> {
        let [n, t] = tokens.dims();
        let device = tokens.device();
        let x = self.embedding.forward(tokens);
        let mask = generate_autoregressive_mask::<B>(n, t, &device);
        let attended = self
            .attention
            .forward(MhaInput::self_attn(self.ln1.forward(x.clone())).mask_attn(mask))
            .context;
        let x = x + attended;
        let mlp = self
            .fc2
            .forward(gelu(self.fc1.forward(self.ln2.forward(x.clone()))));
        let x = x + mlp;
        self.head.forward(x)
    }

    /// Mean next-token cross-entropy against `targets` `[N, T]`.
    pub fn loss(&self, tokens: Tensor<B, 2, Int>, targets: Tensor<B, 2, Int>) -> Tensor<B, 1> {
        sequence_cross_entropy(self.forward(tokens), targets)
    }
}

/// Former name of [`TransformerNet`]: a transformer-block test network.
pub type TransformerBlock<B> = TransformerNet<B>;
/// Former name of [`ResidualNet`]: a residual-block test network.
pub type ResidualBlock<B> = ResidualNet<B>;
