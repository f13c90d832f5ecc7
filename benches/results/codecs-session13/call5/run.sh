#!/usr/bin/env bash
# Session 13, call 5: call 4's plane-chunk 16-bit compress with the 32
# ballot steps of a chunk passed at run time (unrolled, call 4 took 168
# registers). `new` this build, `unit` CK_PLANE_CHUNKS=0, `head` 87cac69.
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
for v in new unit new unit; do
  P=1; [ $v = unit ] && P=0
  CK_PLANE_CHUNKS=$P TUNE_CACHE=t.json timeout 60 /tmp/codecs $A > $R/ab-$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
done
tar -C $OUT -czf $OUT/results.tar.gz r
