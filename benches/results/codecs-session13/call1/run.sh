#!/usr/bin/env bash
# Session 13, call 1: 16-bit ZVC compress prefetching the next tile's
# vectors into registers while the current tile is compacted and written
# (CK_PREFETCH=half, the default of this build; =all adds f32; =none is the
# old path). CUDA tests with all; ncu registers; A/B head/new/all x3 at
# session 12 call 7's tuned configurations; tuner vs exhaustive for f16.
set -u
for b in codecs codecs-head kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c7.json /tmp/w/t.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
CK_PREFETCH=all timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda-all.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda-all.txt | head -20
M=launch__registers_per_thread,gpu__time_duration.sum
for d in f32 f16; do for v in head new all; do
  b=codecs; [ $v = head ] && b=codecs-head; P=half; [ $v = all ] && P=all
  CK_PREFETCH=$P TUNE_CACHE=t.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/$b --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes $d > $R/ncu-$v-$d.txt 2>&1
  echo "== $v $d $(grep -E 'registers|duration' $R/ncu-$v-$d.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done; done
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in head new all head new all head new all; do
  b=codecs; [ $v = head ] && b=codecs-head; P=half; [ $v = all ] && P=all
  CK_PREFETCH=$P TUNE_CACHE=t.json timeout 60 /tmp/$b $A > $R/ab-$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
done
TUNE_CACHE=tx.json timeout 200 /tmp/codecs --sizes 64MB --codecs zvc --dtypes f16 --sparsities 0.2 --tuner-sizes 64MB --tuner-codecs zvc --tuner-dtypes f16 --no-passes > $R/tuner-f16.txt 2>&1
echo "tuner rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc|tuner|exhaustive|chose|best" $R/tuner-f16.txt | cut -c1-150
cp tx.json $R/tune-f16.json
tar -C $OUT -czf $OUT/results.tar.gz r
