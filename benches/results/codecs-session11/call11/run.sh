#!/usr/bin/env bash
# Session 11, call 11: the kernels of one ZVC call (no Nsight Systems on the
# machine): Nsight Compute durations of every launch of one f16 compress and
# one decompress call, 64 MB, 20% zeros, at call 10's tuned configurations.
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c10.json /tmp/w/t.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
B="--sizes 64MB --codecs zvc --dtypes f16 --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
TUNE_CACHE=t.json timeout 120 /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size --launch-skip 0 --launch-count 40 /tmp/codecs $B > $R/ncu-seq.txt 2>&1
echo "ncu rc=$?"
grep -E "^  [a-z_]+.*\(|duration|grid_size" $R/ncu-seq.txt | paste - - - - | awk '{print $1, $(NF-8), $(NF-4), $NF}' | head -45
tar -C $OUT -czf $OUT/results.tar.gz r
