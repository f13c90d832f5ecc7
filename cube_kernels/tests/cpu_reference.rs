//! The CPU reference on its own: round trips, sizes, corruption.

mod common;
use common::*;
use cube_kernels::cpu;
use cube_kernels::format::{self, CodecKind, DType, Header, Layout, CHUNK};
use cube_kernels::CodecError;

const LENS: &[usize] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    1000,
    4095,
    4096,
    4097,
    3 * 4096 + 17,
    50_001,
];

#[test]
fn every_codec_round_trips_bit_exact_on_every_pattern_dtype_and_length() {
    for codec in CodecKind::ALL {
        for dtype in DType::ALL {
            for (pi, &pattern) in PATTERNS.iter().enumerate() {
                for &len in LENS {
                    let e = elements(pattern, dtype, len, (pi * 1000 + len) as u64);
                    let words = pack(&e, dtype, 0xabcd);
                    let c = cpu::compress(codec, dtype, &words, len).unwrap();
                    assert!(c.len() <= format::max_compressed_words(codec, dtype, len));
                    let (d, h) = cpu::decompress(&c).unwrap();
                    assert_eq!(
                        h,
                        Header {
                            codec,
                            dtype,
                            len,
                            total_words: c.len(),
                            checksum: format::data_checksum(&words, dtype, len),
                        }
                    );
                    assert_eq!(
                        unpack(&d, dtype, len),
                        e,
                        "{codec:?} {dtype:?} {pattern:?} len {len}"
                    );
                }
            }
        }
    }
}

#[test]
fn zvc_ratio_is_within_two_percent_of_ideal() {
    let len = 1 << 20;
    for sp in [0.2, 0.5, 0.8, 0.95] {
        let e = elements(Pattern::Scattered(sp), DType::F32, len, 7);
        let c = cpu::compress(CodecKind::Zvc, DType::F32, &e, len).unwrap();
        let zeros = e.iter().filter(|&&x| x == 0).count() as f64 / len as f64;
        let ideal = 1.0 / ((1.0 - zeros) + 1.0 / 32.0);
        let ratio = len as f64 / c.len() as f64;
        assert!(
            ratio >= ideal * 0.98,
            "sp {sp}: ratio {ratio} ideal {ideal}"
        );
    }
}

#[test]
fn negative_zero_is_not_zero() {
    let e = vec![0x8000_0000u32, 0, 0x8000_0000];
    let c = cpu::compress(CodecKind::Zvc, DType::F32, &e, 3).unwrap();
    let layout = Layout::new(CodecKind::Zvc, 3);
    assert_eq!(c[layout.masks], 0b101);
}

fn all_compressed() -> Vec<(CodecKind, Vec<u32>)> {
    CodecKind::ALL
        .iter()
        .map(|&codec| {
            let len = 2 * CHUNK + 100;
            let e = elements(Pattern::Clustered(0.6), DType::F32, len, 3);
            (codec, cpu::compress(codec, DType::F32, &e, len).unwrap())
        })
        .collect()
}

#[test]
fn truncated_buffers_are_errors() {
    for (codec, c) in all_compressed() {
        for cut in [0, 4, 7, 8, 9, c.len() / 2, c.len() - 1] {
            let r = cpu::decompress(&c[..cut]);
            assert!(r.is_err(), "{codec:?} cut at {cut} decoded");
        }
        let bytes = format::words_to_bytes(&c);
        assert!(format::bytes_to_words(&bytes[..bytes.len() - 1]).is_err());
    }
}

#[test]
fn corrupted_headers_and_offsets_are_errors() {
    for (codec, c) in all_compressed() {
        let layout = Layout::new(codec, 2 * CHUNK + 100);
        for word in [0, 1, 2, 4, 6] {
            let mut b = c.clone();
            b[word] ^= 0x10;
            assert!(cpu::decompress(&b).is_err(), "{codec:?} header word {word}");
        }
        for k in 0..3 {
            let mut b = c.clone();
            b[layout.offsets + k + 1] = b[layout.offsets + k + 1].wrapping_add(2);
            assert!(cpu::decompress(&b).is_err(), "{codec:?} offset {k}");
        }
    }
}

#[test]
fn corrupted_payload_structure_is_an_error_or_same_size_output() {
    // Flipping payload bits may give other valid data (values), but never a
    // panic, and a structural break (indices, masks, LZ4 tokens) is an error.
    let mut errors = 0;
    for (codec, c) in all_compressed() {
        let layout = Layout::new(codec, 2 * CHUNK + 100);
        let mut rng = Rng(99);
        for _ in 0..300 {
            let mut b = c.clone();
            let i = layout.masks + (rng.next() as usize % (c.len() - layout.masks));
            b[i] ^= 1 << (rng.next() % 32);
            match cpu::decompress(&b) {
                Ok((d, _)) => assert_eq!(d.len(), DType::F32.words(2 * CHUNK + 100)),
                Err(_) => errors += 1,
            }
        }
    }
    assert!(errors > 0);
}

#[test]
fn header_rejects_wrong_lengths() {
    let e = vec![1u32; 100];
    let c = cpu::compress(CodecKind::Zvc, DType::F32, &e, 100).unwrap();
    assert!(matches!(
        Header::decode(&c, Some(c.len() - 1)),
        Err(CodecError::Truncated { .. })
    ));
    assert!(Header::decode(&c[..7], None).is_err());
    assert!(Header::decode(&c, Some(c.len())).is_ok());
}

#[test]
fn checksum_is_the_odd_weighted_word_sum_and_ignores_the_junk_half() {
    assert_eq!(format::checksum(&[]), 0);
    assert_eq!(format::checksum(&[5, 7, 1]), 5 + 7 * 3 + 5);
    assert_eq!(format::checksum(&[u32::MAX, 2]), u32::MAX.wrapping_add(6));
    // three 16-bit elements: the upper half of the second word is not data
    assert_eq!(
        format::data_checksum(&[0x0002_0001, 0xabcd_0003], DType::F16, 3),
        format::checksum(&[0x0002_0001, 0x0000_0003])
    );
}

#[test]
fn a_flipped_bit_in_a_stored_value_is_a_checksum_error() {
    let len = 3 * CHUNK + 77;
    for codec in CodecKind::ALL {
        for dtype in DType::ALL {
            let e = elements(Pattern::Clustered(0.6), dtype, len, 41);
            let words = pack(&e, dtype, 0x77);
            let c = cpu::compress(codec, dtype, &words, len).unwrap();
            for chunk in [0, 2] {
                let (w, bit) = value_word(codec, dtype, &c, len, chunk);
                let mut b = c.clone();
                b[w] ^= bit;
                assert!(
                    checksum_mismatch(&cpu::decompress(&b)),
                    "{codec:?} {dtype:?} chunk {chunk}"
                );
            }
            // the checksum word itself
            let mut b = c.clone();
            b[7] ^= 1;
            assert!(checksum_mismatch(&cpu::decompress(&b)));
        }
    }
}
