#!/usr/bin/env bash
# Session 9, call 8: Nsight Compute full set (warp stall reasons, source
# counters) on the 16-bit and f32 ZVC compress at their tuned configurations.
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c7.json /tmp/w/tune.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
A="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for d in f16 f32; do
  TUNE_CACHE=tune.json timeout 200 /usr/local/cuda/bin/ncu --set full --import-source no -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs $A --dtypes $d > $R/ncu-full-$d.txt 2>&1
  echo "$d rc=$?"
  grep -E "Registers Per|Achieved Occupancy|DRAM Throughput|Duration|Warp Cycles Per|Stall|stall|Issued Warp|No Eligible|Eligible Warps|Active Warps Per" $R/ncu-full-$d.txt | head -30
done
tar -C $OUT -czf $OUT/results.tar.gz r
