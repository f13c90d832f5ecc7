//! The codecs' time model measured on the device (wgpu over lavapipe in CI;
//! the sizes here are small, the defaults are for a real GPU).
#![cfg(feature = "wgpu")]

use burn_swap_plan::cost::{Codec, CodecTimeModel};
use cube_kernels::calibrate::{
    cached_or_calibrate, held_out_error, one_bits, synthetic, synthetic_for, Calibration,
};
use cube_kernels::format::{bytes_to_words, CodecKind, DType};
use cube_kernels::tuner::{device_key, Round, SearchBudget};
use cube_kernels::Tuner;
use cubecl::prelude::*;
use cubecl::wgpu::{WgpuDevice, WgpuRuntime};

fn client() -> ComputeClient<WgpuRuntime> {
    WgpuRuntime::client(&WgpuDevice::default())
}

/// A tuner that searches little: the test is about the model, not the
/// launch configurations.
fn quick_tuner() -> Tuner {
    let mut t = Tuner::new();
    t.budget = SearchBudget {
        random: 2,
        guided: 0,
        confirm: 1,
        seed: 3,
        ..SearchBudget::default()
    };
    t.reps = 1;
    t
}

fn small() -> Calibration {
    Calibration {
        sizes: vec![64 << 10, 256 << 10],
        zero_fractions: vec![0.0, 0.2, 0.4, 0.6, 0.8, 0.95],
        codecs: vec![CodecKind::Zvc],
        dtypes: vec![DType::F32],
        reps: 1,
        tuned: true,
        round: Round::Search,
    }
}

#[test]
fn synthetic_tensors_have_the_zeros_asked_for() {
    let client = client();
    for dtype in [DType::F32, DType::F16] {
        for zeros in [0.0, 0.5, 0.9] {
            let len = 1 << 16;
            let h = synthetic(&client, dtype, len, zeros, 7);
            let words = bytes_to_words(&client.read_one(h).unwrap()).unwrap();
            let elements: Vec<u32> = match dtype {
                DType::F32 => words,
                _ => words.iter().flat_map(|w| [w & 0xffff, w >> 16]).collect(),
            };
            let found = elements.iter().filter(|&&e| e == 0).count() as f64 / len as f64;
            assert!(
                (found - zeros).abs() < 0.02,
                "{dtype:?}: asked {zeros}, found {found}"
            );
        }
    }
}

/// Bitmap is timed on tensors of zeros and 1.0 (dropout masks), at the
/// zeros asked for; the other codecs on `synthetic`'s tensors.
#[test]
fn bitmaps_synthetic_tensors_are_zeros_and_ones() {
    let client = client();
    for dtype in DType::ALL {
        for zeros in [0.0, 0.5, 0.9] {
            let len = (1 << 16) + 1;
            let h = synthetic_for(&client, CodecKind::Bitmap, dtype, len, zeros, 7);
            let words = bytes_to_words(&client.read_one(h).unwrap()).unwrap();
            let elements: Vec<u32> = match dtype {
                DType::F32 => words,
                _ => words.iter().flat_map(|w| [w & 0xffff, w >> 16]).collect(),
            };
            let elements = &elements[..len];
            assert!(elements.iter().all(|&e| e == 0 || e == one_bits(dtype)));
            let found = elements.iter().filter(|&&e| e == 0).count() as f64 / len as f64;
            assert!(
                (found - zeros).abs() < 0.02,
                "{dtype:?}: asked {zeros}, found {found}"
            );
            let same = synthetic_for(&client, CodecKind::Zvc, dtype, len, zeros, 7);
            assert_eq!(
                client.read_one(same).unwrap(),
                client
                    .read_one(synthetic(&client, dtype, len, zeros, 7))
                    .unwrap()
            );
        }
    }
}

/// A Bitmap calibration measures its bits mode: a bit per element at every
/// zero fraction, the size the planning core prices it at.
#[test]
fn a_bitmap_calibration_measures_a_bit_per_element() {
    let client = client();
    let mut tuner = quick_tuner();
    let calibration = Calibration {
        codecs: vec![CodecKind::Bitmap],
        dtypes: vec![DType::F32, DType::F16],
        tuned: false,
        ..small()
    };
    let samples = calibration.measure(&client, &mut tuner, |_, _| ()).unwrap();
    assert_eq!(samples.len(), calibration.len());
    for s in &samples {
        let elem = if s.dtype == "F32" { 4 } else { 2 };
        let len = s.bytes / elem;
        assert_eq!(s.codec, Codec::Bitmap);
        assert_eq!(s.compressed_bytes, (10 + len.div_ceil(32)) * 4, "{s:?}");
        assert_eq!(
            s.compressed_bytes,
            Codec::Bitmap.packed_bytes(&s.dtype, s.bytes, s.zero_fraction)
        );
    }
    let model = CodecTimeModel::fit(device_key(&client), "test", &samples).unwrap();
    assert!(model
        .predict(Codec::Bitmap, "F16", 128 << 10, 0.5)
        .is_some());
}

#[test]
fn a_calibration_fits_a_model_that_tracks_sparsity_and_is_kept_for_its_device() {
    let client = client();
    let mut tuner = quick_tuner();
    let calibration = small();
    let mut calls = 0;
    let samples = calibration
        .measure(&client, &mut tuner, |done, total| {
            calls += 1;
            assert!(done <= total);
        })
        .unwrap();
    assert_eq!(samples.len(), calibration.len());
    assert_eq!(calls, samples.len());
    // ZVC's output shrinks with the zeros.
    for size in &calibration.sizes {
        let bytes: Vec<u64> = samples
            .iter()
            .filter(|s| s.bytes == *size as u64)
            .map(|s| s.compressed_bytes)
            .collect();
        assert!(bytes.windows(2).all(|w| w[1] < w[0]), "{bytes:?}");
    }
    assert!(samples
        .iter()
        .all(|s| s.compress_ns > 0.0 && s.decompress_ns > 0.0));

    // The model predicts the compressed size of a held-out sparsity closely
    // (the size is a property of the format, not of the device's timing).
    let (model, errors) = held_out_error(&device_key(&client), &samples).unwrap();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].size_mean < 0.05, "{errors:?}");
    assert!(model
        .predict(Codec::Zvc, "F32", 128 << 10, 0.5)
        .is_some_and(|c| c.compressed_bytes < 100 << 10));

    // Saved, then read back without measuring again on the same device.
    let path = std::env::temp_dir().join(format!(
        "burn-swap-codec-calibration-{}.json",
        std::process::id()
    ));
    let first = cached_or_calibrate(&client, &path, &calibration, &mut tuner, |_, _| {}).unwrap();
    let again = cached_or_calibrate(&client, &path, &calibration, &mut tuner, |_, _| {
        panic!("measured again on the same device")
    })
    .unwrap();
    assert_eq!(first, again);
    // A model of another device is measured again.
    let mut other: CodecTimeModel = first.clone();
    other.device = "another-gpu".into();
    other.save(&path).unwrap();
    let mut measured = false;
    cached_or_calibrate(&client, &path, &calibration, &mut tuner, |_, _| {
        measured = true
    })
    .unwrap();
    std::fs::remove_file(&path).ok();
    assert!(measured);
}

#[test]
fn a_profiles_tensors_are_timed_and_the_models_choices_checked_against_them() {
    use burn_swap_plan::cost::{decision_accuracy, CostModel, LinkModel};
    let client = client();
    let mut tuner = quick_tuner();
    let calibration = Calibration {
        tuned: false,
        ..small()
    };
    let samples = calibration.measure(&client, &mut tuner, |_, _| ()).unwrap();
    let model = CodecTimeModel::fit(device_key(&client), "test", &samples).unwrap();
    // Two tensors as a profile would name them, timed on their own.
    let tensors = [(DType::F32, 128 << 10, 0.5), (DType::F32, 192 << 10, 0.9)];
    let measured = calibration
        .measure_tensors(&client, &mut tuner, &tensors, |_, _| ())
        .unwrap();
    assert_eq!(measured.len(), 2, "one codec, two tensors");
    assert!(measured[1].compressed_bytes < measured[0].compressed_bytes);
    let costs = CostModel {
        link: LinkModel::symmetric(1e9, 1e9, 1e4),
        codecs: Some(model),
    };
    let accuracy = decision_accuracy(&costs, &measured).unwrap();
    assert_eq!(accuracy.decisions.len(), 2);
    assert!((0.0..=1.0).contains(&accuracy.compress_or_not));
    assert!(accuracy.worst_regret >= 1.0);
}
