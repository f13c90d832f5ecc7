#!/usr/bin/env bash
# Session 12, call 6: call 5's compress, and f32 ZVC decompress on CUDA
# without its zeroing launch (it counts its checks, checksum and cubes in
# two 64-bit words of the stream's state; the last cubes write the status
# pair). CUDA tests; registers of the decompress kernels; A/B against HEAD
# 40d44d9 (head) at session 11 call 10's tuned configurations (k5 keys for
# head, the same configurations under k6 for new), three times each; then
# --quick at those configurations.
set -u
for b in codecs codecs-head kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c10.json /tmp/w/t5.json; cp .gpu/tune-c10-k6.json /tmp/w/t6.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
M=launch__registers_per_thread,gpu__time_duration.sum
for d in f32 f16; do for v in head new; do
  b=codecs-$v; t=t5.json; [ $v = new ] && b=codecs && t=t6.json
  TUNE_CACHE=$t timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_decompress --launch-skip 3 --launch-count 1 /tmp/$b --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes $d > $R/ncu-$v-$d.txt 2>&1
  echo "== $v $d $(grep -E 'registers|duration' $R/ncu-$v-$d.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done; done
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in head new head new head new; do
  b=codecs-$v; t=t5.json; [ $v = new ] && b=codecs && t=t6.json
  TUNE_CACHE=$t timeout 60 /tmp/$b $A > $R/ab-$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9,$13} END {print ""}'
done
cp t6.json t7.json
TUNE_CACHE=t7.json timeout 240 /tmp/codecs --quick --tuner-sizes none --json $R/zvc.json > $R/zvc.txt 2>&1
echo "quick rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/zvc.txt | cut -c1-110
tar -C $OUT -czf $OUT/results.tar.gz r
