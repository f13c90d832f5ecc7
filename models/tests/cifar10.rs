//! The CIFAR-10 reader on small files the tests write themselves.

use std::path::PathBuf;

use burn::backend::Flex;
use burn::tensor::Tensor;
use burn_swap_models::cifar10::{Cifar10, Cifar10Error, Split, MEAN, RECORD_BYTES, STD};
use burn_swap_models::Batch;

/// A fresh directory under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("burn-swap-models-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A record whose pixels encode the image index, channel and position.
fn record(label: u8, index: usize) -> Vec<u8> {
    let mut r = vec![label];
    for c in 0..3 {
        for p in 0..1024 {
            r.push(((index * 7 + c * 50 + p) % 256) as u8);
        }
    }
    r
}

fn images_of(batch: Batch<Flex>) -> (Tensor<Flex, 4>, Vec<i64>) {
    match batch {
        Batch::Images { images, targets } => (images, targets.into_data().iter::<i64>().collect()),
        _ => panic!("expected an image batch"),
    }
}

#[test]
fn reads_train_and_test_files_into_normalised_batches() {
    let dir = temp_dir("read");
    let train: Vec<u8> = (0..3).flat_map(|i| record(i as u8 + 2, i)).collect();
    std::fs::write(dir.join("data_batch_1.bin"), &train).unwrap();
    std::fs::write(dir.join("test_batch.bin"), record(9, 5)).unwrap();

    let data = Cifar10::load(&dir, Split::Train).unwrap();
    assert_eq!(data.len(), 3);
    assert_eq!(data.label(1), 3);
    let device = Default::default();
    let (images, labels) = images_of(data.batch::<Flex>(1, 4, &device));
    assert_eq!(images.dims(), [4, 3, 32, 32]);
    assert_eq!(labels, vec![3, 4, 2, 3], "wraps around the end");

    // Image 1, green channel, row 2, column 5: byte (1*7 + 50 + 2*32 + 5) % 256.
    let pixel: f32 = images.slice([0..1, 1..2, 2..3, 5..6]).into_scalar();
    let byte = (7 + 50 + 2 * 32 + 5) as f32;
    let expected = (byte / 255.0 - MEAN[1]) / STD[1];
    assert!((pixel - expected).abs() < 1e-6, "{pixel} != {expected}");

    let test = Cifar10::load(&dir, Split::Test).unwrap();
    assert_eq!(test.len(), 1);
    assert_eq!(test.label(0), 9);

    let batches: Vec<_> = data.batches::<Flex>(2, &device).collect();
    assert_eq!(batches.len(), 1, "the incomplete last batch is dropped");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn finds_the_files_inside_the_extracted_archive_directory() {
    let dir = temp_dir("nested");
    let inner = dir.join("cifar-10-batches-bin");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::write(inner.join("data_batch_2.bin"), record(1, 0)).unwrap();
    assert_eq!(Cifar10::load(&dir, Split::Train).unwrap().len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rejects_truncated_files_bad_labels_and_missing_files() {
    let dir = temp_dir("errors");
    let mut truncated = record(1, 0);
    truncated.pop();
    std::fs::write(dir.join("data_batch_1.bin"), &truncated).unwrap();
    match Cifar10::load(&dir, Split::Train) {
        Err(Cifar10Error::Truncated { len, .. }) => assert_eq!(len, RECORD_BYTES - 1),
        other => panic!("expected Truncated, got {other:?}"),
    }

    let mut bad = record(1, 0);
    bad.extend(record(12, 1));
    match Cifar10::from_bytes(&bad, "memory") {
        Err(Cifar10Error::BadLabel { record, label, .. }) => assert_eq!((record, label), (1, 12)),
        other => panic!("expected BadLabel, got {other:?}"),
    }

    let err = Cifar10::load(&dir, Split::Test).unwrap_err();
    assert!(matches!(err, Cifar10Error::NoFiles { .. }));
    assert!(err.to_string().contains("test_batch.bin"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
