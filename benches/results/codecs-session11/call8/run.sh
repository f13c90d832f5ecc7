#!/usr/bin/env bash
# Session 11, call 8: the ballot look-back (one predecessor per lane, each lane its own sum, one plane sum per tile). The cube_kernels GPU tests on CUDA
# (single-pass compress configurations: the shared-memory look-back kernel),
# then --quick with fresh tuning and the tuner against exhaustive search for
# f32 and f16 (a sixth run).
set -u
for b in codecs kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
TUNE_CACHE=$R/tune.json timeout 380 /tmp/codecs --quick --tuner-dtypes f32,f16 --json $R/zvc.json > $R/zvc.txt 2>&1
echo "zvc rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M|tuner/|chose|best" $R/zvc.txt | cut -c1-110
tar -C $OUT -czf $OUT/results.tar.gz r
