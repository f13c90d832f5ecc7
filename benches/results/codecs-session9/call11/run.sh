#!/usr/bin/env bash
# Session 9, call 11: the final commit (review mends after call 10): the GPU
# tests on CUDA, and ZVC rows at call 10's tuned configurations.
set -u
for b in codecs kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c10.json /tmp/w/tune.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
TUNE_CACHE=tune.json timeout 150 /tmp/codecs --sizes 1MB,64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --tuner-sizes none --no-passes --json $R/zvc.json > $R/zvc.txt 2>&1
echo "zvc rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/zvc.txt | cut -c1-100
tar -C $OUT -czf $OUT/results.tar.gz r
