#!/usr/bin/env bash
# Session 9, call 6: ZVC compress with plane ballots (single pass, no input
# staging). The cube_kernels GPU tests on CUDA (single-pass configurations),
# then the ballot kernel against the shared-memory single pass at call 5's
# tuned configurations.
set -u
for b in codecs kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c5.json /tmp/w/tune.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 240 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^test |test result|panicked|assert" $R/tests-cuda.txt | head -40
A="--sizes 1MB,64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
TUNE_CACHE=tune.json timeout 120 /tmp/codecs $A --json $R/ballot.json > $R/ballot.txt 2>&1
echo "ballot rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/ballot.txt | cut -c1-100
ZVC_EXPERIMENT_OLD_SINGLE=1 TUNE_CACHE=tune.json timeout 120 /tmp/codecs $A --json $R/shared.json > $R/shared.txt 2>&1
echo "shared-memory single pass rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/shared.txt | cut -c1-100
tar -C $OUT -czf $OUT/results.tar.gz r
