#!/usr/bin/env bash
# Session 9, call 5: the kept ZVC kernels (compress loads in rounds), fresh
# tuning: --quick (ZVC f32/f16/bf16 at 1 MB, 64 MB, 1 GB, four sparsities;
# the 1 MB rows compare the GPU bytes with the CPU reference), the single-
# against three-pass comparison, the tuner against exhaustive search for f32
# and f16 at 64 MB; then Nsight Compute on the tuned compress kernels.
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
TUNE_CACHE=$R/tune.json timeout 420 /tmp/codecs --quick --tuner-dtypes f32,f16 --json $R/zvc.json > $R/zvc.txt 2>&1
echo "zvc rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc|copy |one-unit|single-pass|tuner/|chose|best" $R/zvc.txt | cut -c1-150
for d in f32 f16; do
  TUNE_CACHE=$R/tune.json timeout 40 /usr/local/cuda/bin/ncu --section LaunchStats --section Occupancy --section SpeedOfLight -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes $d > $R/ncu-$d.txt 2>&1
  echo "ncu $d: $(grep -E 'zvc_compress|Registers Per|Achieved Occupancy|DRAM Throughput|Duration' $R/ncu-$d.txt | tr -s ' ' | tr '\n' ';')"
done
tar -C $OUT -czf $OUT/results.tar.gz r
