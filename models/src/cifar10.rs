//! CIFAR-10 from its binary distribution (`cifar-10-binary.tar.gz`).
//!
//! Each file is a run of 3073-byte records: one label byte (0 to 9), then a
//! 32x32 image as 1024 red, 1024 green and 1024 blue bytes, rows first. The
//! training split is `data_batch_1.bin` to `data_batch_5.bin`, the test split
//! `test_batch.bin`. Batches come out as [`Batch::Images`] with images
//! `[N, 3, 32, 32]` scaled to `[0, 1]` and normalised per channel with the
//! training set's mean and standard deviation.

use std::path::{Path, PathBuf};

use burn::tensor::backend::Backend;
use burn::tensor::{Tensor, TensorData};

use crate::zoo::Batch;

/// Bytes of one image: 3 channels of 32x32.
pub const IMAGE_BYTES: usize = 3 * 32 * 32;
/// Bytes of one record: the label byte and the image.
pub const RECORD_BYTES: usize = 1 + IMAGE_BYTES;
/// Classes in CIFAR-10.
pub const CLASSES: usize = 10;
/// Per-channel mean of the training images (R, G, B), in `[0, 1]` units.
pub const MEAN: [f32; 3] = [0.4914, 0.4822, 0.4465];
/// Per-channel standard deviation of the training images (R, G, B).
pub const STD: [f32; 3] = [0.2470, 0.2435, 0.2616];

/// Which files to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// `data_batch_1.bin` .. `data_batch_5.bin` (those present; at least one).
    Train,
    /// `test_batch.bin`.
    Test,
}

/// Why CIFAR-10 could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Cifar10Error {
    /// A file could not be read.
    #[error("cannot read CIFAR-10 file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file's size is not a whole number of 3073-byte records.
    #[error(
        "CIFAR-10 file {path} has {len} bytes, not a multiple of the {RECORD_BYTES}-byte record"
    )]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its size in bytes.
        len: usize,
    },
    /// A record's label is not 0 to 9.
    #[error("CIFAR-10 file {path}: record {record} has label {label}, expected 0 to 9")]
    BadLabel {
        /// The file.
        path: PathBuf,
        /// Index of the record in the file.
        record: usize,
        /// The label byte.
        label: u8,
    },
    /// The directory holds none of the split's files.
    #[error("no CIFAR-10 {split:?} files ({expected}) in {dir}")]
    NoFiles {
        /// The directory searched.
        dir: PathBuf,
        /// The split asked for.
        split: Split,
        /// The file names looked for.
        expected: String,
    },
}

/// CIFAR-10 images and labels, held as bytes on the host.
#[derive(Debug, Clone, Default)]
pub struct Cifar10 {
    images: Vec<u8>,
    labels: Vec<u8>,
}

impl Cifar10 {
    /// Reads `split` from `dir`: the directory holding the `.bin` files, or
    /// its parent holding `cifar-10-batches-bin/`.
    pub fn load(dir: impl AsRef<Path>, split: Split) -> Result<Self, Cifar10Error> {
        let mut dir = dir.as_ref().to_path_buf();
        let nested = dir.join("cifar-10-batches-bin");
        if nested.is_dir() {
            dir = nested;
        }
        let names: Vec<String> = match split {
            Split::Train => (1..=5).map(|i| format!("data_batch_{i}.bin")).collect(),
            Split::Test => vec!["test_batch.bin".to_string()],
        };
        let files: Vec<PathBuf> = names
            .iter()
            .map(|n| dir.join(n))
            .filter(|p| p.is_file())
            .collect();
        if files.is_empty() {
            return Err(Cifar10Error::NoFiles {
                dir,
                split,
                expected: names.join(", "),
            });
        }
        Self::from_files(&files)
    }

    /// Reads the given record files, in order.
    pub fn from_files(paths: &[impl AsRef<Path>]) -> Result<Self, Cifar10Error> {
        let mut data = Self::default();
        for path in paths {
            let path = path.as_ref();
            let bytes = std::fs::read(path).map_err(|source| Cifar10Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
            data.push_records(&bytes, path)?;
        }
        Ok(data)
    }

    /// Parses records already in memory (`origin` names them in errors).
    pub fn from_bytes(bytes: &[u8], origin: impl AsRef<Path>) -> Result<Self, Cifar10Error> {
        let mut data = Self::default();
        data.push_records(bytes, origin.as_ref())?;
        Ok(data)
    }

    fn push_records(&mut self, bytes: &[u8], path: &Path) -> Result<(), Cifar10Error> {
        if !bytes.len().is_multiple_of(RECORD_BYTES) {
            return Err(Cifar10Error::Truncated {
                path: path.to_path_buf(),
                len: bytes.len(),
            });
        }
        self.images
            .reserve(bytes.len() / RECORD_BYTES * IMAGE_BYTES);
        for (record, chunk) in bytes.chunks_exact(RECORD_BYTES).enumerate() {
            let label = chunk[0];
            if label as usize >= CLASSES {
                return Err(Cifar10Error::BadLabel {
                    path: path.to_path_buf(),
                    record,
                    label,
                });
            }
            self.labels.push(label);
            self.images.extend_from_slice(&chunk[1..]);
        }
        Ok(())
    }

    /// Number of images.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no images.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The label of image `index`.
    pub fn label(&self, index: usize) -> u8 {
        self.labels[index]
    }

    /// The raw bytes (channel-major, 3072) of image `index`.
    pub fn image_bytes(&self, index: usize) -> &[u8] {
        &self.images[index * IMAGE_BYTES..(index + 1) * IMAGE_BYTES]
    }

    /// `size` images starting at `start` (wrapping around the end), as
    /// normalised images `[size, 3, 32, 32]` and labels `[size]`.
    ///
    /// # Panics
    /// If the data set is empty.
    pub fn batch<B: Backend>(&self, start: usize, size: usize, device: &B::Device) -> Batch<B> {
        assert!(!self.is_empty(), "no CIFAR-10 images loaded");
        let mut pixels = Vec::with_capacity(size * IMAGE_BYTES);
        let mut labels = Vec::with_capacity(size);
        for i in 0..size {
            let index = (start + i) % self.len();
            labels.push(self.labels[index] as i64);
            for (c, plane) in self.image_bytes(index).chunks_exact(1024).enumerate() {
                pixels.extend(plane.iter().map(|&p| (p as f32 / 255.0 - MEAN[c]) / STD[c]));
            }
        }
        Batch::Images {
            images: Tensor::from_data(TensorData::new(pixels, [size, 3, 32, 32]), device),
            targets: Tensor::from_data(TensorData::new(labels, [size]), device),
        }
    }

    /// Consecutive batches of `size` covering the data once; the last,
    /// incomplete batch is dropped.
    pub fn batches<'a, B: Backend>(
        &'a self,
        size: usize,
        device: &'a B::Device,
    ) -> impl Iterator<Item = Batch<B>> + 'a {
        (0..self.len() / size.max(1)).map(move |i| self.batch(i * size, size, device))
    }
}
