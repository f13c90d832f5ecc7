#!/usr/bin/env bash
# Session 13, call 11: call 5's plane-chunk 16-bit compress with the
# payload write as a loop bounded by the tile's words (unrolled, it took
# the kernel from 94 to 167 registers, calls 6-10). `new` this build,
# `unit` CK_PLANE_CHUNKS=0, `head` 87cac69. CUDA tests; ncu; A/B x3 at
# session 12 call 7's configurations; tuner vs exhaustive, new and unit.
set -u
for b in codecs codecs-head kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c7.json /tmp/w/t.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
M=launch__registers_per_thread,gpu__time_duration.sum
for v in new unit; do
  P=1; [ $v = unit ] && P=0
  CK_PLANE_CHUNKS=$P TUNE_CACHE=t.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes f16 > $R/ncu-$v-f16.txt 2>&1
  echo "== $v f16 $(grep -E 'registers|duration' $R/ncu-$v-f16.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done
A="--sizes 64MB,1GB --codecs zvc --dtypes f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in head new unit head new unit head new unit; do
  b=codecs; [ $v = head ] && b=codecs-head; P=1; [ $v = unit ] && P=0
  CK_PLANE_CHUNKS=$P TUNE_CACHE=t.json timeout 60 /tmp/$b $A > $R/ab-$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
done
for v in new unit; do
  P=1; [ $v = unit ] && P=0
  CK_PLANE_CHUNKS=$P TUNE_CACHE=tx-$v.json timeout 150 /tmp/codecs --sizes 64MB --codecs zvc --dtypes f16 --sparsities 0.2 --tuner-sizes 64MB --tuner-codecs zvc --tuner-dtypes f16 --no-passes > $R/tuner-$v.txt 2>&1
  echo "tuner $v rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc|exhaustive:|tuner:" $R/tuner-$v.txt | cut -c1-150 | head -4
done
tar -C $OUT -czf $OUT/results.tar.gz r
