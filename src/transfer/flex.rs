//! Flex (CPU) tensors: the storage is copied as is, with its layout, or
//! (feature `compression`) compressed with the codecs' CPU encoders, which
//! write the same format as their GPU kernels.

use burn_backend::DType;
use burn_flex::{FlexTensor, Layout};
use burn_std::Bytes;

/// A Flex tensor's storage, copied, and how to view it.
pub(crate) struct FlexCopy {
    bytes: Bytes,
    layout: Layout,
    dtype: DType,
}

pub(crate) fn offload(tensor: &FlexTensor) -> FlexCopy {
    // `Bytes::clone` is a deep copy that keeps the storage's alignment.
    FlexCopy {
        bytes: (*tensor.data_arc()).clone(),
        layout: tensor.layout().clone(),
        dtype: tensor.dtype(),
    }
}

pub(crate) fn load(copy: FlexCopy) -> FlexTensor {
    FlexTensor::new(copy.bytes, copy.layout, copy.dtype)
}

/// A Flex tensor's storage, compressed as 32-bit words, and how to view it.
#[cfg(feature = "compression")]
pub(crate) struct CompressedFlexCopy {
    words: Vec<u32>,
    byte_len: usize,
    layout: Layout,
    dtype: DType,
}

#[cfg(feature = "compression")]
impl CompressedFlexCopy {
    /// Bytes it holds (what crossed the link).
    pub(crate) fn compressed_bytes(&self) -> u64 {
        self.words.len() as u64 * 4
    }
}

/// Compresses `tensor`'s storage with `codec`.
#[cfg(feature = "compression")]
pub(crate) fn offload_compressed(
    tensor: &FlexTensor,
    codec: cube_kernels::CodecKind,
) -> Result<CompressedFlexCopy, cube_kernels::CodecError> {
    let bytes: &[u8] = &tensor.data_arc();
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| {
            let mut word = [0u8; 4];
            word[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(word)
        })
        .collect();
    let compressed =
        cube_kernels::cpu::compress(codec, cube_kernels::DType::F32, &words, words.len())?;
    Ok(CompressedFlexCopy {
        words: compressed,
        byte_len: bytes.len(),
        layout: tensor.layout().clone(),
        dtype: tensor.dtype(),
    })
}

/// Decompresses a copy (its structure and checksum checked) back into a
/// Flex tensor.
#[cfg(feature = "compression")]
pub(crate) fn load_compressed(
    copy: CompressedFlexCopy,
) -> Result<FlexTensor, cube_kernels::CodecError> {
    let (words, _) = cube_kernels::cpu::decompress(&copy.words)?;
    let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if bytes.len() < copy.byte_len {
        return Err(cube_kernels::CodecError::Corrupt(
            "decompressed storage shorter than the tensor's",
        ));
    }
    bytes.truncate(copy.byte_len);
    // Aligned for any element type, as the storage it replaces.
    let storage = Bytes::from_bytes_vec(bytes);
    Ok(FlexTensor::new(storage, copy.layout, copy.dtype))
}

#[cfg(all(test, feature = "compression"))]
mod tests {
    use super::*;
    use burn_backend::{ops::FloatTensorOps, read_sync, TensorData};
    use burn_flex::Flex;

    fn sparse_tensor() -> FlexTensor {
        let values: Vec<f32> = (0..1000)
            .map(|i| {
                if i % 3 == 0 {
                    i as f32 * 0.5 - 7.0
                } else {
                    0.0
                }
            })
            .collect();
        Flex::float_from_data(TensorData::new(values, [10, 100]), &Default::default())
    }

    #[test]
    fn a_compressed_copy_is_smaller_and_comes_back_bit_exact() {
        let tensor = sparse_tensor();
        let copy = offload_compressed(&tensor, cube_kernels::CodecKind::Zvc).unwrap();
        assert!(
            copy.compressed_bytes() < 4000 / 2,
            "{}",
            copy.compressed_bytes()
        );
        let back = load_compressed(copy).unwrap();
        assert_eq!(back.layout(), tensor.layout());
        let a = read_sync(Flex::float_into_data(tensor)).unwrap();
        let b = read_sync(Flex::float_into_data(back)).unwrap();
        assert_eq!(a.as_bytes(), b.as_bytes());
    }

    #[test]
    fn a_corrupt_compressed_copy_is_an_error() {
        for codec in cube_kernels::CodecKind::ALL {
            let mut copy = offload_compressed(&sparse_tensor(), codec).unwrap();
            // A stored value changes: the checksum no longer matches.
            let last = copy.words.len() - 1;
            copy.words[last] ^= 0x0040_0000;
            assert!(load_compressed(copy).is_err(), "{codec:?}");
            // Cut short: the index says more than there is.
            let mut copy = offload_compressed(&sparse_tensor(), codec).unwrap();
            copy.words.truncate(copy.words.len() / 2);
            assert!(load_compressed(copy).is_err(), "{codec:?}");
        }
    }
}
