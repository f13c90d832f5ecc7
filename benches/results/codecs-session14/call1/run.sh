#!/usr/bin/env bash
# Session 14, call 1: ZVC single-pass compress with the look-back right
# after the scan (plane 0 walks back and publishes the tile's prefix while
# the other planes compact; then plane 0 compacts). `new` this build,
# `old` the same build with CK_EARLY_LB=0 (look-back after the compaction),
# `head` 87cac69. CUDA tests; ncu; A/B x3 at session 12 call 7's
# configurations; head at sizes 16 MB-1 GB (fixed cost per call).
set -u
for b in codecs codecs-head kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c7.json /tmp/w/t.json; cp .gpu/tune-sizes.json /tmp/w/ts.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
M=launch__registers_per_thread,gpu__time_duration.sum
for d in f16 f32; do for v in new old; do
  P=1; [ $v = old ] && P=0
  CK_EARLY_LB=$P TUNE_CACHE=t.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes $d > $R/ncu-$v-$d.txt 2>&1
  echo "== $v $d $(grep -E 'registers|duration' $R/ncu-$v-$d.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done; done
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in head new old head new old head new old; do
  b=codecs; [ $v = head ] && b=codecs-head; P=1; [ $v = old ] && P=0
  CK_EARLY_LB=$P TUNE_CACHE=t.json timeout 60 /tmp/$b $A > $R/ab-$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
done
for v in head new; do
  b=codecs; [ $v = head ] && b=codecs-head
  TUNE_CACHE=ts.json timeout 90 /tmp/$b --sizes 16MB,32MB,64MB,128MB,256MB,1GB --codecs zvc --dtypes f16 --sparsities 0.2 --tuner-sizes none --no-passes > $R/sizes-$v.txt 2>&1
  echo "sizes $v rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/sizes-$v.txt | head -8
done
tar -C $OUT -czf $OUT/results.tar.gz r
