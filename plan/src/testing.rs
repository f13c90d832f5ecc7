//! Hand-built profiles for the unit tests.

use crate::cost::{CostModel, LinkModel};
use crate::plan::{Action, Decision};
use crate::profile::{OpRecord, OutputInfo, Phase, Profile, Recorder};

/// Op `index` reads `inputs` and makes one f32 tensor per `(id, bytes)`.
pub(crate) fn record(index: u32, inputs: &[u64], outputs: &[(u64, u64)]) -> OpRecord {
    OpRecord {
        index,
        name: "op",
        signature: index as u64,
        inputs: inputs.to_vec(),
        outputs: outputs.iter().map(|&(id, _)| id).collect(),
        output_info: outputs
            .iter()
            .map(|&(id, bytes)| OutputInfo {
                id,
                output: 0,
                bytes,
                shape: vec![bytes as usize / 4],
                dtype: "F32".into(),
            })
            .collect(),
        replayable: true,
        flops: 0,
        bytes: outputs.iter().map(|&(_, bytes)| bytes).sum(),
    }
}

/// Forward ops `(name, inputs, output id, bytes)` recorded in order from op
/// 0, each taking 1 ms (a random op cannot run again); returns the bytes
/// they made.
pub(crate) fn record_forward(
    recorder: &mut Recorder,
    forward: Vec<(&'static str, Vec<u64>, u64, u64)>,
) -> u64 {
    let mut live = 0;
    for (i, (name, inputs, id, bytes)) in forward.into_iter().enumerate() {
        live += bytes;
        let mut op = record(i as u32, &inputs, &[(id, bytes)]);
        op.name = name;
        op.replayable = !name.contains("random");
        recorder.op(op, Phase::Forward, Some(1_000_000), live, 0);
    }
    live
}

/// A chain of `sizes.len()` forward ops, each making one tensor (id `i + 1`,
/// `sizes[i]` bytes) from the previous one, two more forward ops that make
/// no tensor (the loss), then a backward op per tensor in reverse order that
/// reads it and releases it: every tensor is saved.
pub(crate) fn chain(sizes: &[u64]) -> Profile {
    let k = sizes.len() as u32;
    let backward = k + 2;
    let mut recorder = Recorder::new(1024, 0);
    let mut live = 0;
    for (i, &bytes) in sizes.iter().enumerate() {
        let i = i as u32;
        let inputs: Vec<u64> = (i > 0).then_some(i as u64).into_iter().collect();
        live += bytes;
        let op = record(i, &inputs, &[(i as u64 + 1, bytes)]);
        recorder.op(op, Phase::Forward, None, live, 0);
    }
    for i in k..backward {
        recorder.op(record(i, &[], &[]), Phase::Forward, None, live, 0);
    }
    recorder.backward_starts(backward);
    for j in 0..k {
        let (at, id) = (backward + j, (k - j) as u64);
        live -= sizes[(k - j - 1) as usize];
        recorder.op(record(at, &[id], &[]), Phase::Backward, None, live, 0);
        recorder.released(id, at);
    }
    recorder.finish(0, backward + k, None)
}

/// `profile` with every op taking `ns`.
pub(crate) fn timed(mut profile: Profile, ns: u64) -> Profile {
    for op in &mut profile.ops {
        op.duration_ns = Some(ns);
    }
    profile
}

/// A CNN-like chain: `blocks` of conv2d (4 ms), relu and float_mul (0.2 ms
/// each), each op making one 1 MiB tensor from the one before; the loss
/// and every backward op take 1 ms.
pub(crate) fn cnn(blocks: usize) -> Profile {
    const NAMES: [(&str, u64); 3] = [
        ("conv2d", 4_000_000),
        ("relu", 200_000),
        ("float_mul", 200_000),
    ];
    let forward = blocks * 3;
    let mut profile = timed(chain(&vec![1 << 20; forward]), 1_000_000);
    for (i, op) in profile.ops.iter_mut().take(forward).enumerate() {
        let (name, ns) = NAMES[i % 3];
        op.name = name.into();
        op.duration_ns = Some(ns);
    }
    for t in &mut profile.tensors {
        t.producer = NAMES[t.key.op as usize % 3].0.to_string();
    }
    profile
}

/// A host link of 1 GB/s each way, alone and in duplex, and no codecs.
pub(crate) fn gigabyte_link() -> CostModel {
    CostModel {
        link: LinkModel::symmetric(1e9, 1e9, 0.0),
        codecs: None,
    }
}

/// `decisions[i]` rebuilt: freed after its tensor's last forward use, back
/// for its first backward use (resolve the needs of a chain after).
pub(crate) fn rebuild(profile: &Profile, decisions: &mut [Decision], i: usize) {
    let t = profile
        .tensors
        .iter()
        .find(|t| t.key == decisions[i].key)
        .expect("a decision of the profile's");
    decisions[i] = Decision {
        action: Action::Recompute,
        offload_after: t.last_forward_use,
        prefetch_at: t.first_backward_use.unwrap(),
        needed_at: t.first_backward_use.unwrap(),
        ..decisions[i]
    };
}
