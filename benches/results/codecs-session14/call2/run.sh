#!/usr/bin/env bash
# Session 14, call 2: ZVC single-pass compress with the look-back by the
# first CK_LB_UNITS units of the cube (windows of that many tiles; each
# plane's nearest prefix by ballot, the cube's through shared memory), not
# the first plane alone. `lb128`, `lb64` this build; `lb0` the same build
# with the first-plane look-back; `head` 87cac69. CUDA tests (lb 128);
# ncu; A/B x3 at session 12 call 7's configurations; sizes 16 MB-1 GB.
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
for d in f16 f32; do for v in 128 64 0; do
  CK_LB_UNITS=$v TUNE_CACHE=t.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes $d > $R/ncu-lb$v-$d.txt 2>&1
  echo "== lb$v $d $(grep -E 'registers|duration' $R/ncu-lb$v-$d.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done; done
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in head 128 64 0 head 128 64 0 head 128 64 0; do
  b=codecs; [ $v = head ] && b=codecs-head
  CK_LB_UNITS=$v TUNE_CACHE=t.json timeout 60 /tmp/$b $A > $R/ab-lb$v-$(date +%s).txt 2>&1
  echo "lb$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-lb$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
done
for v in 128 64; do
  CK_LB_UNITS=$v TUNE_CACHE=ts.json timeout 90 /tmp/codecs --sizes 16MB,32MB,64MB,128MB,256MB,1GB --codecs zvc --dtypes f16 --sparsities 0.2 --tuner-sizes none --no-passes > $R/sizes-lb$v.txt 2>&1
  echo "sizes lb$v rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/sizes-lb$v.txt | cut -c1-100
done
tar -C $OUT -czf $OUT/results.tar.gz r
