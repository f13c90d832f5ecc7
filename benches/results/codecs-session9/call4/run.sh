#!/usr/bin/env bash
# Session 9, call 4: ZVC compress loading its tile in rounds of R vectors per
# unit (R = 16: all at once, as before; 4; 2): speed at fixed configurations,
# and registers / occupancy from Nsight Compute.
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
NCU=/usr/local/cuda/bin/ncu; t0=$(date +%s)
for r in 16 4 2; do
  ZVC_EXPERIMENT_ROUND=$r TUNE_CACHE=tune.json timeout 100 /tmp/codecs --sizes 64MB --codecs zvc --dtypes f32,f16 --sparsities 0.2,0.5 --tuner-sizes none --no-passes --json $R/round$r.json > $R/round$r.txt 2>&1
  echo "round $r rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/round$r.txt | cut -c1-100
  for d in f32 f16; do
    ZVC_EXPERIMENT_ROUND=$r TUNE_CACHE=tune.json timeout 60 $NCU --section LaunchStats --section Occupancy --section SpeedOfLight -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes $d > $R/ncu-round$r-$d.txt 2>&1
    echo "  ncu $d: $(grep -E 'Registers Per|Achieved Occupancy|DRAM Throughput|Duration' $R/ncu-round$r-$d.txt | tr -s ' ' | tr '\n' ';')"
  done
done
tar -C $OUT -czf $OUT/results.tar.gz r
