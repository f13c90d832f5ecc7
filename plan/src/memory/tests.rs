use super::*;
use crate::cost::Codec;
use crate::profile::{Phase, Recorder};
use crate::testing::{chain, record};

#[test]
fn the_sweep_adds_inclusive_intervals_within_the_iteration() {
    let bytes = sweep(
        5,
        [(0, 2, 10), (1, 4, 5), (3, 9, 1), (4, 2, 100), (7, 8, 100)],
    );
    // The interval past the end is cut at the last op; empty and late ones add nothing.
    assert_eq!(bytes, [10, 15, 15, 6, 6]);
    assert!(sweep(0, [(0, 0, 1)]).is_empty());
}

#[test]
fn the_peak_is_the_first_op_with_the_most_bytes() {
    assert_eq!(peak_of(&[1, 5, 3, 5]), (5, 1));
    assert_eq!(peak_of(&[]), (0, 0));
}

#[test]
fn keeping_everything_simulates_what_was_recorded_without_moves() {
    let profile = chain(&[100, 200, 300]);
    let simulated = resident_timeline(&profile, &Decision::keep_all(&profile));
    assert_eq!(
        simulated,
        recorded_saved(&profile.tensors, profile.op_count)
    );
    // All three are on the device when backward starts, and leave one by one.
    assert_eq!(simulated, [100, 300, 600, 600, 600, 600, 300, 100]);
    assert_eq!(simulate(&profile, &Decision::keep_all(&profile)), (600, 2));
}

#[test]
fn a_swapped_tensor_holds_its_memory_through_the_op_after_its_offload() {
    let profile = chain(&[100, 200, 300]);
    let mut decisions = Decision::keep_all(&profile);
    // The first tensor leaves after op 1 (its last forward use) and comes
    // back before op 7, its only backward use.
    decisions[0] = Decision {
        action: Action::Swap,
        offload_after: 1,
        prefetch_at: 7,
        needed_at: 7,
        codec: None,
        ..decisions[0]
    };
    let timeline = resident_timeline(&profile, &decisions);
    assert_eq!(timeline, [100, 300, 600, 500, 500, 500, 200, 100]);
}

/// Keep-all on `profile`, except its first tensor: compressed with ZVC
/// after op 1, brought back at op 5 for op 7.
fn first_compressed(profile: &Profile) -> Vec<Decision> {
    let mut decisions = Decision::keep_all(profile);
    decisions[0] = Decision {
        action: Action::Swap,
        offload_after: 1,
        prefetch_at: 5,
        needed_at: 7,
        codec: Some(Codec::Zvc),
        ..decisions[0]
    };
    decisions
}

#[test]
fn a_compressed_copy_holds_its_worst_case_beside_the_tensor_where_it_is_made_and_undone() {
    let profile = chain(&[100, 200, 300]);
    let decisions = first_compressed(&profile);
    let packed = Codec::Zvc.capacity_bytes("F32", 100);
    assert!(packed > 100);
    let timeline = resident_timeline(&profile, &decisions);
    // Op 1: the tensor and the compressor's output; op 2: the output until
    // its download is done; ops 5-6: the uploaded copy; op 7: the copy and
    // the tensor it is decompressed into.
    assert_eq!(
        timeline,
        [
            100,
            300 + packed,
            500 + packed,
            500,
            500,
            500 + packed,
            200 + packed,
            100 + packed
        ]
    );
    // Its zeros not counted, the copy comes back at the capacity.
    assert_eq!(
        bytes_coming_back(&decisions[0], Some(&profile.tensors[0])),
        packed
    );
    assert_eq!(bytes_coming_back(&decisions[1], None), 200);
}

#[test]
fn a_compressed_copy_comes_back_sized_by_the_zeros_of_its_tensor() {
    const MB: u64 = 1 << 20;
    let mut profile = chain(&[64 * MB, 64 * MB, 64 * MB]);
    profile.tensors[0].zero_fraction = Some(0.5);
    let decisions = first_compressed(&profile);
    let capacity = Codec::Zvc.capacity_bytes("F32", 64 * MB);
    let back = bytes_coming_back(&decisions[0], Some(&profile.tensors[0]));
    // Half the values, a bit mask, and a step of room for fewer zeros.
    let half = 32 * MB + 2 * MB;
    assert!(
        back >= half && back <= half + 2 * capacity / 32 + 512,
        "{back}"
    );
    let timeline = resident_timeline(&profile, &decisions);
    // Made at the worst case; held on the way back at its size.
    assert_eq!(timeline[1], 128 * MB + capacity);
    assert_eq!(timeline[5], 128 * MB + back);
    assert_eq!(timeline[7], 64 * MB + back);
}

#[test]
fn a_copys_size_follows_its_zeros_where_the_format_stores_only_non_zeros() {
    const MB: u64 = 1 << 20;
    for codec in [Codec::Zvc, Codec::Csr] {
        // Nothing zero: the worst case. Everything zero: the index alone.
        assert_eq!(
            codec.packed_bytes("F32", 64 * MB, 0.0),
            codec.capacity_bytes("F32", 64 * MB)
        );
        assert!(codec.packed_bytes("F32", 64 * MB, 1.0) < 3 * MB);
        let half = codec.packed_bytes("bf16", 64 * MB, 0.5);
        assert!(
            half < codec.capacity_bytes("bf16", 64 * MB) * 6 / 10,
            "{codec}"
        );
    }
    // Where the zeros lie decides RLE's and LZ4's sizes: the worst case.
    for codec in [Codec::Rle, Codec::Lz4] {
        assert_eq!(
            codec.packed_bytes("F32", 64 * MB, 0.9),
            codec.capacity_bytes("F32", 64 * MB)
        );
    }
    // The buffer coming back is rounded up to a 32nd of the capacity, so
    // sizes a little apart take one buffer, and never exceeds it.
    let capacity = Codec::Zvc.capacity_bytes("F32", 64 * MB);
    let a = Codec::upload_bytes(capacity, 20 * MB);
    assert_eq!(a, Codec::upload_bytes(capacity, 20 * MB + 1000));
    assert!(a >= 20 * MB && a - 20 * MB <= capacity / 32 + 256);
    assert_eq!(Codec::upload_bytes(capacity, capacity), capacity);
    assert_eq!(Codec::upload_bytes(capacity, capacity - 10), capacity);
}

#[test]
fn a_codecs_capacity_is_its_worst_case() {
    const MB: u64 = 1 << 20;
    // ZVC: every value and a bit each; CSR and RLE: a 16-bit index per value
    // (half again for 32-bit values, twice for 16-bit); LZ4: all literals.
    let ratio =
        |codec: Codec, dtype| codec.capacity_bytes(dtype, 64 * MB) as f64 / (64 * MB) as f64;
    assert!(
        (1.03..1.04).contains(&ratio(Codec::Zvc, "F32")),
        "{}",
        ratio(Codec::Zvc, "F32")
    );
    assert!((1.5..1.51).contains(&ratio(Codec::Csr, "F32")));
    assert!((2.0..2.01).contains(&ratio(Codec::Rle, "bf16")));
    assert!((1.0..1.01).contains(&ratio(Codec::Lz4, "F16")));
}

#[test]
fn the_recorded_timeline_follows_offloads_and_loads() {
    let mut recorder = Recorder::new(8, 0);
    recorder.op(record(0, &[], &[(1, 400)]), Phase::Forward, None, 400, 0);
    recorder.op(record(1, &[1], &[]), Phase::Forward, None, 400, 0);
    recorder.offloaded(1, 400, 1);
    recorder.backward_starts(2);
    recorder.op(record(2, &[], &[]), Phase::Backward, None, 0, 0);
    recorder.loaded(1, 400, 3);
    recorder.op(record(3, &[1], &[]), Phase::Backward, None, 400, 0);
    recorder.released(1, 3);
    let profile = recorder.finish(0, 4, None);
    assert_eq!(
        recorded_saved(&profile.tensors, profile.op_count),
        [400, 400, 0, 400]
    );
    let resident: Vec<u64> = profile
        .timeline
        .iter()
        .map(|p| p.resident_saved_bytes)
        .collect();
    assert_eq!(resident, [400, 400, 0, 400]);
}

#[test]
fn an_ops_workspace_counts_at_that_op_only() {
    let mut recorder = Recorder::new(16, 0);
    recorder.op(record(0, &[], &[(1, 100)]), Phase::Forward, None, 100, 0);
    recorder.op(record(1, &[1], &[(2, 10)]), Phase::Forward, None, 110, 1000);
    recorder.op(record(2, &[1, 2], &[]), Phase::Forward, None, 110, 0);
    recorder.released(1, 2);
    recorder.released(2, 2);
    let profile = recorder.finish(0, 3, None);
    assert_eq!(profile.ops[1].workspace_bytes, 1000);
    let footprint = Footprint::of(&profile);
    assert_eq!(footprint.other_at(0), 100);
    assert_eq!(footprint.other_at(1), 100 + 10 + 1000);
    assert_eq!(footprint.other_at(2), 110);
    assert_eq!(footprint.peak_other(), 1110);
}

#[test]
fn the_host_series_counts_a_tensor_between_its_offload_and_its_load() {
    // Tensor 1 (400 B) leaves after op 1 and is back for op 5; tensor 2
    // (100 B) leaves after op 2 and never comes back before its release at
    // op 6; tensor 3 (50 B) is offloaded after op 3 and loaded for op 4 at
    // once: it is on the host during no op.
    let mut recorder = Recorder::new(16, 0);
    recorder.op(record(0, &[], &[(1, 400)]), Phase::Forward, None, 400, 0);
    recorder.op(record(1, &[1], &[(2, 100)]), Phase::Forward, None, 500, 0);
    recorder.offloaded(1, 400, 1);
    recorder.op(record(2, &[2], &[(3, 50)]), Phase::Forward, None, 550, 0);
    recorder.offloaded(2, 100, 2);
    recorder.backward_starts(3);
    recorder.op(record(3, &[3], &[]), Phase::Backward, None, 550, 0);
    recorder.offloaded(3, 50, 3);
    recorder.loaded(3, 50, 4);
    recorder.op(record(4, &[3], &[]), Phase::Backward, None, 550, 0);
    recorder.released(3, 4);
    recorder.loaded(1, 400, 5);
    recorder.op(record(5, &[1], &[]), Phase::Backward, None, 500, 0);
    recorder.released(1, 5);
    recorder.op(record(6, &[2], &[]), Phase::Backward, None, 0, 0);
    recorder.released(2, 6);
    let profile = recorder.finish(0, 7, None);
    assert!(profile.tensors.iter().all(|t| t.saved));
    let host = recorded_saved_on_host(&profile.tensors, profile.op_count);
    assert_eq!(host, [0, 0, 400, 500, 500, 100, 100]);
    assert_eq!(recorded_host_intervals(&profile.tensors[2], 7), []);
    // The profile's timeline carries the same series.
    let series: Vec<u64> = profile
        .timeline
        .iter()
        .map(|p| p.host_saved_bytes)
        .collect();
    assert_eq!(series, host);
    // What is on the host and what is on the device never overlap, and
    // together they are every saved tensor from its making to its release,
    // but for the ops of the moves themselves.
    let device = recorded_saved(&profile.tensors, profile.op_count);
    let keep_all = resident_timeline(&profile, &Decision::keep_all(&profile));
    for op in 0..7 {
        assert!(host[op] + device[op] <= keep_all[op], "op {op}");
    }
}

#[test]
fn a_rebuilt_tensor_is_off_the_device_from_its_drop_to_its_rebuild() {
    let mut profile = chain(&[100, 200, 300]);
    // The first tensor (made at op 0, read again at op 7) is dropped after
    // op 1 and rebuilt before op 6.
    profile.tensors[0].dropped_at = vec![1];
    profile.tensors[0].rebuilt_at = vec![6];
    assert_eq!(
        recorded_intervals(&profile.tensors[0], profile.op_count),
        [(0, 1, 100), (6, 7, 100)]
    );
    assert_eq!(
        recorded_saved(&profile.tensors, profile.op_count),
        [100, 300, 500, 500, 500, 500, 300, 100]
    );
    // It was never in host memory.
    assert!(recorded_host_intervals(&profile.tensors[0], profile.op_count).is_empty());
}

#[test]
fn an_earlier_equal_output_that_stands_in_adds_nothing_where_it_is_needed() {
    let profile = chain(&[100, 100, 100]);
    let mut decisions = Decision::keep_all(&profile);
    let earlier = decisions[1].key;
    // The last tensor (op 2, needed at op 5): freed at once, handed the
    // second (op 1, kept until op 6) in backward.
    let rebuilt = Decision {
        action: Action::Recompute,
        offload_after: 2,
        prefetch_at: 5,
        needed_at: 5,
        ..decisions[2]
    };
    decisions[2] = Decision {
        stand_in: Some(earlier),
        ..rebuilt
    };
    assert_eq!(
        resident_timeline(&profile, &decisions),
        [100, 200, 300, 200, 200, 200, 200, 100]
    );
    // Rebuilt by running its op again, it is back from op 5.
    decisions[2] = rebuilt;
    assert_eq!(
        resident_timeline(&profile, &decisions),
        [100, 200, 300, 200, 200, 300, 200, 100]
    );
}
