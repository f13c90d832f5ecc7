#!/usr/bin/env bash
# Session 11, call 10: final (as committed): the look-back keeps a sum per
# lane and adds them once per tile; the nearest prefix by ballot for 16-bit,
# by plane min for f32. The cube_kernels GPU tests on CUDA; A/B against the
# last commit's binary (old) at session 10 call 5's configurations; then
# --quick with fresh tuning and the tuner against exhaustive search (f32, f16).
set -u
for b in codecs codecs-old kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-s10.json /tmp/w/s10.json; cp .gpu/tune-s10-k5.json /tmp/w/s10k5.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in old new old new; do
  b=codecs-$v; [ $v = new ] && b=codecs
  c=s10.json; [ $v = new ] && c=s10k5.json
  TUNE_CACHE=$c timeout 60 /tmp/$b $A > $R/ab-$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$13} END {print ""}'
done
TUNE_CACHE=$R/tune.json timeout 380 /tmp/codecs --quick --tuner-dtypes f32,f16 --json $R/zvc.json > $R/zvc.txt 2>&1
echo "zvc rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M|tuner/|chose|best" $R/zvc.txt | cut -c1-110
tar -C $OUT -czf $OUT/results.tar.gz r
