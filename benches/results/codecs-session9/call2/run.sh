#!/usr/bin/env bash
# Session 9, call 2: ZVC with the plane-based block scan (two barriers instead
# of log2(block) + 1), A/B against the barrier scan at the same configs, and
# the single-pass compress without its two helper launches (timing only).
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
which ncu nsys compute-sanitizer 2>&1 | head -3; ls -d /usr/local/cuda*/bin 2>&1 | head -3
CC=/tmp/cubecl-cache; mkdir -p $CC/nv /tmp/w
printf '[compilation]\ncache = { file = "%s" }\n' $CC > /tmp/w/cubecl.toml
export CUDA_CACHE_PATH=$CC/nv CUDA_CACHE_MAXSIZE=4294967296 CUBECL_AUTOTUNE_LEVEL=minimal
cd /tmp/w; t0=$(date +%s)
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16 --tuner-sizes none"
TUNE_CACHE=$R/tune.json timeout 200 /tmp/codecs $A --json $R/plane.json > $R/plane.txt 2>&1
echo "plane scan rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc|copy |single-pass" $R/plane.txt
ZVC_EXPERIMENT_BARRIER_SCAN=1 TUNE_CACHE=$R/tune.json timeout 120 /tmp/codecs $A --no-passes --json $R/barrier.json > $R/barrier.txt 2>&1
echo "barrier scan rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/barrier.txt
ZVC_EXPERIMENT_SKIP_HELPERS=1 TUNE_CACHE=$R/tune.json timeout 60 /tmp/codecs --sizes 64MB --codecs zvc --dtypes f32,f16 --sparsities 0.2,0.5 --tuner-sizes none --no-passes --json $R/nohelpers.json > $R/nohelpers.txt 2>&1
echo "no helpers rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/nohelpers.txt
tar -C $OUT -czf $OUT/results.tar.gz r
