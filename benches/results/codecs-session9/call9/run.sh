#!/usr/bin/env bash
# Session 9, call 9: 16-bit ZVC without divergent branches: compress puts a
# kept element in one array at a computed slot; decompress picks halves with
# selects (A/B against the branchy expand: ZVC_EXPERIMENT_OLD_EXPAND). The
# CUDA GPU tests, then rows at call 7's tuned configurations with this binary
# and with call 7's binary.
set -u
for b in codecs codecs-old kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c7.json /tmp/w/tune.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
A="--sizes 64MB,1GB --codecs zvc --dtypes f16,bf16,f32 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
TUNE_CACHE=tune.json timeout 100 /tmp/codecs $A --json $R/new.json > $R/new.txt 2>&1
echo "new rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/new.txt | cut -c1-100
ZVC_EXPERIMENT_OLD_EXPAND=1 TUNE_CACHE=tune.json timeout 100 /tmp/codecs $A --json $R/new-oldexpand.json > $R/new-oldexpand.txt 2>&1
echo "new compress, old expand rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/new-oldexpand.txt | cut -c1-100
TUNE_CACHE=tune.json timeout 100 /tmp/codecs-old $A --json $R/old.json > $R/old.txt 2>&1
echo "call-7 binary rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/old.txt | cut -c1-100
tar -C $OUT -czf $OUT/results.tar.gz r
