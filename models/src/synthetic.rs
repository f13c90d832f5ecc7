//! Deterministic synthetic data, generated on the host from a seed.
//!
//! The data never touches the backend's RNG, so drawing a batch does not
//! change the random stream that dropout uses: a run seeded with `B::seed`
//! draws the same dropout masks whatever batches it builds.

use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

/// A small, fast, deterministic generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct SeededRng {
    state: u64,
}

impl SeededRng {
    /// A generator whose whole output is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Approximately standard normal (sum of four uniforms, rescaled): cheap
    /// and good enough for activations and inputs.
    pub fn next_normal(&mut self) -> f32 {
        let s: f32 = (0..4).map(|_| self.next_f32()).sum();
        (s - 2.0) * 3.0f32.sqrt()
    }

    /// Uniform integer in `[0, n)`.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) % n as u64) as usize
    }
}

/// A float tensor of the given shape with approximately standard normal
/// values drawn from `seed`.
pub fn normal<B: Backend, const D: usize>(
    shape: [usize; D],
    seed: u64,
    device: &B::Device,
) -> Tensor<B, D> {
    let mut rng = SeededRng::new(seed);
    let n: usize = shape.iter().product();
    let values: Vec<f32> = (0..n).map(|_| rng.next_normal()).collect();
    Tensor::from_data(TensorData::new(values, shape), device)
}

/// An integer tensor of the given shape with values uniform in
/// `[0, classes)` drawn from `seed`.
pub fn classes<B: Backend, const D: usize>(
    shape: [usize; D],
    classes: usize,
    seed: u64,
    device: &B::Device,
) -> Tensor<B, D, Int> {
    let mut rng = SeededRng::new(seed);
    let n: usize = shape.iter().product();
    let values: Vec<i64> = (0..n).map(|_| rng.below(classes) as i64).collect();
    Tensor::from_data(TensorData::new(values, shape), device)
}

/// Token ids `[batch, seq]` in `[0, vocab)` and their next-token targets
/// `[batch, seq]` (the ids shifted left by one, the last target drawn fresh),
/// from `seed`.
pub fn next_token_batch<B: Backend>(
    batch: usize,
    seq: usize,
    vocab: usize,
    seed: u64,
    device: &B::Device,
) -> (Tensor<B, 2, Int>, Tensor<B, 2, Int>) {
    let stream: Tensor<B, 2, Int> = classes([batch, seq + 1], vocab, seed, device);
    (
        stream.clone().slice([0..batch, 0..seq]),
        stream.slice([0..batch, 1..seq + 1]),
    )
}
