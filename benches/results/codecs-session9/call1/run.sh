#!/usr/bin/env bash
# Session 9, call 1: ZVC after 16-bit compress units of two groups (32 words),
# the tuner's 2 ms batches and confirming round, and the compress ticket
# taken one tile ahead (A/B against taking it after the tile).
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
CC=/tmp/cubecl-cache; mkdir -p $CC/nv /tmp/w
printf '[compilation]\ncache = { file = "%s" }\n' $CC > /tmp/w/cubecl.toml
export CUDA_CACHE_PATH=$CC/nv CUDA_CACHE_MAXSIZE=4294967296 CUBECL_AUTOTUNE_LEVEL=minimal
cd /tmp/w; t0=$(date +%s)
TUNE_CACHE=$R/tune.json timeout 330 /tmp/codecs --sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 \
  --tuner-sizes 64MB --tuner-codecs zvc --tuner-dtypes f32,f16 --json $R/zvc.json > $R/zvc.txt 2>&1
echo "zvc rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc|copy |one-unit|single-pass|tuner/|chose|best" $R/zvc.txt
ZVC_EXPERIMENT_NO_PREFETCH=1 TUNE_CACHE=$R/tune.json timeout 150 /tmp/codecs --sizes 64MB,1GB --codecs zvc --dtypes f32,f16 \
  --tuner-sizes none --json $R/zvc-noprefetch.json > $R/zvc-noprefetch.txt 2>&1
echo "no-prefetch rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc|single-pass" $R/zvc-noprefetch.txt
tar -C / -cJf $OUT/cc.tar.xz tmp/cubecl-cache 2>/dev/null
tar -C $OUT -czf $OUT/results.tar.gz r
