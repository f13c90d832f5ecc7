#!/usr/bin/env bash
# Session 9, call 3: Nsight Compute profiles of the ZVC kernels at 64 MB,
# 20% zeros, at fixed configurations (a prefilled tune cache).
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
K='k3|cuda:sm132:plane32-32:smem232448|zvc'
cat > tune.json <<J
{"$K|F32|Compress|26": {"config": {"block": 128, "grid": 2360, "single_pass": true}, "seconds": 1e-4, "evaluations": 0},
 "$K|F32|Decompress|26": {"config": {"block": 64, "grid": 1200, "single_pass": false}, "seconds": 1e-4, "evaluations": 0},
 "$K|F16|Compress|26": {"config": {"block": 256, "grid": 2633, "single_pass": true}, "seconds": 1e-4, "evaluations": 0},
 "$K|F16|Decompress|26": {"config": {"block": 256, "grid": 3762, "single_pass": false}, "seconds": 1e-4, "evaluations": 0}}
J
A="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
NCU=/usr/local/cuda/bin/ncu; t0=$(date +%s)
for d in f32 f16; do
  TUNE_CACHE=tune.json timeout 150 $NCU --set detailed -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs $A --dtypes $d > $R/ncu-compress-$d.txt 2>&1
  echo "compress $d rc=$? $(( $(date +%s) - t0 ))s"
  TUNE_CACHE=tune.json timeout 150 $NCU --set detailed -k regex:zvc_decompress --launch-skip 3 --launch-count 1 /tmp/codecs $A --dtypes $d > $R/ncu-decompress-$d.txt 2>&1
  echo "decompress $d rc=$? $(( $(date +%s) - t0 ))s"
done
grep -E "zvc_|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|DRAM Throughput|Memory Throughput|Duration|Waves Per|Shared Memory Configuration Size|Dynamic Shared|Static Shared|^ +(One or More|Warp Cycles|Issued Warp)|ERR|==PROF==|==ERROR==" $R/ncu-*.txt | head -120
tar -C $OUT -czf $OUT/results.tar.gz r
