//! What an op asks of the device, for sharing an iteration's measured
//! compute time out over its ops without timing each one.
//!
//! Timing an op means synchronising the device around it. Under burn's
//! fusion that also changes which ops fuse, so the timed iteration is
//! neither bit-identical nor fast (its op times added up to three times
//! ResNet-50's real step on an H200). Instead each op is weighed by the
//! bytes it reads and writes and, for the ops that multiply matrices, its
//! floating-point operations; the iteration's compute time, measured as a
//! whole, is shared out by those weights.

/// Floating-point operations worth one byte of memory traffic. Burn 0.21's
/// f32 convolutions ran ResNet-50 (about 1.2 TFLOP a step at batch 48) in
/// 0.21 s on an H200, near 6 TFLOP/s, against some 3 TB/s for the
/// element-wise ops around them: about two operations per byte.
pub const FLOPS_PER_BYTE: f64 = 2.0;

/// Whether [`op_flops`] counts operations for op `name` (and so needs the
/// shapes of its float inputs).
pub fn counts_flops(name: &str) -> bool {
    name == "float_matmul"
        || name == "attention"
        || name.starts_with("conv")
        || name.starts_with("deform_conv")
}

/// Floating-point operations of op `name`, from the shapes of its float
/// inputs in order and the elements of its first output; 0 for the ops
/// whose cost is their memory traffic.
pub fn op_flops<S: AsRef<[usize]>>(name: &str, inputs: &[S], output_elems: u64) -> u64 {
    let elems = |shape: &[usize]| shape.iter().map(|&d| d as u64).product::<u64>();
    // A kernel's (or a weight row's) elements: all but its first dimension.
    let per_row = |shape: &[usize]| shape.iter().skip(1).map(|&d| d as u64).product::<u64>();
    let (first, second) = match inputs {
        [a, b, ..] => (a.as_ref(), Some(b.as_ref())),
        [a] => (a.as_ref(), None),
        [] => return 0,
    };
    match (name, second) {
        ("float_matmul", _) => 2 * output_elems * first.last().copied().unwrap_or(1) as u64,
        // q [batch, heads, seq, dim], k [batch, heads, seq_k, dim]: two
        // products of seq x seq_k x dim per head.
        ("attention", Some(k)) if first.len() == 4 && k.len() == 4 => {
            4 * elems(first) * k[2] as u64
        }
        (n, _) if n.ends_with("bias_backward") => 0,
        // Transposed convolutions spread each input element over a kernel.
        (n, Some(weight)) if n.starts_with("conv_transpose") => 2 * elems(first) * per_row(weight),
        // Forward and both backward products: one multiply-add per output
        // element (of the forward) and kernel element.
        (n, Some(weight)) if n.starts_with("conv") || n.starts_with("deform_conv") => {
            let out = match (n.ends_with("_backward"), &inputs[2..]) {
                (true, [.., output_grad]) => elems(output_grad.as_ref()),
                _ => output_elems,
            };
            2 * out * per_row(weight)
        }
        _ => 0,
    }
}

/// An op's weight in the iteration's compute time: its memory traffic plus
/// its arithmetic, in bytes.
pub fn work_weight(flops: u64, bytes: u64) -> f64 {
    bytes as f64 + flops as f64 / FLOPS_PER_BYTE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matmul_counts_a_multiply_add_per_output_and_inner_element() {
        // [8, 32] x [32, 16]: 8 x 16 outputs, 32 each.
        assert_eq!(
            op_flops("float_matmul", &[&[8, 32], &[32, 16]], 128),
            2 * 128 * 32
        );
        assert!(counts_flops("float_matmul"));
        assert_eq!(op_flops("float_add", &[vec![8, 32], vec![8, 32]], 256), 0);
        assert!(!counts_flops("float_add"));
    }

    #[test]
    fn a_convolution_and_its_backward_count_the_same_products() {
        // x [2, 3, 8, 8], weight [4, 3, 3, 3], output [2, 4, 6, 6].
        let x: &[usize] = &[2, 3, 8, 8];
        let w: &[usize] = &[4, 3, 3, 3];
        let out: &[usize] = &[2, 4, 6, 6];
        let forward = op_flops("conv2d", &[x, w], 2 * 4 * 6 * 6);
        assert_eq!(forward, 2 * (2 * 4 * 6 * 6) * 27);
        assert_eq!(
            op_flops("conv2d_x_backward", &[x, w, out], 2 * 3 * 8 * 8),
            forward
        );
        assert_eq!(
            op_flops("conv2d_weight_backward", &[x, w, out], 4 * 27),
            forward
        );
        assert_eq!(op_flops("conv2d_bias_backward", &[x, w, out], 4), 0);
    }

    #[test]
    fn arithmetic_weighs_against_bytes() {
        assert_eq!(work_weight(0, 1000), 1000.0);
        assert_eq!(work_weight(1000, 0), 1000.0 / FLOPS_PER_BYTE);
    }
}
