#!/usr/bin/env bash
# Session 10, call 3: ZVC compress with 16-bit units of two groups (32 words
# a unit for every dtype), 16-bit kept elements staged as u16, the tile's
# total published right after the scan. GPU tests on CUDA; A/B against the
# last commit's binary (codecs-old) at call 13's and alternative configs;
# the 16-bit load rounds of 2 (default) and 4 (ZVC_ROUND=4); then fresh tuning.
set -u
for b in codecs codecs-old kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c13.json /tmp/w/c13.json; cp .gpu/tune-alt.json /tmp/w/alt.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 150 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -8
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for c in c13 alt; do
for v in old new new4 old new; do
  b=codecs; [ $v = old ] && b=codecs-old; r=0; [ $v = new4 ] && r=4
  ZVC_ROUND=$r TUNE_CACHE=$c.json timeout 60 /tmp/$b $A > $R/$c-$v-$(date +%s).txt 2>&1
  echo "$c $v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/$c-$v-*.txt | tail -18 | awk '{printf "%s %s %s %s | ", $2,$3,$4,$8} END {print ""}'
done; done
TUNE_CACHE=$R/tune.json timeout 250 /tmp/codecs --sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.8,0.95 --tuner-sizes none --no-passes --json $R/zvc.json > $R/zvc.txt 2>&1
echo "tuned rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/zvc.txt | cut -c1-100
tar -C $OUT -czf $OUT/results.tar.gz r
