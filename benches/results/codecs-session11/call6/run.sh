#!/usr/bin/env bash
# Session 11, call 6: the look-back with one (s1) or two (s2) predecessors per
# lane: each lane keeps its own sum, a ballot finds the nearest prefix, one
# plane sum per tile (was a plane min and a plane sum per window). CUDA tests (s1);
# A/B against the last commit's binary (codecs-old) at session 10 call 5's configurations;
# Nsight Compute (registers, duration, look-back loop counts).
set -u
for b in codecs-s1 codecs-s2 codecs-old kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-s10.json /tmp/w/s10.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in old s1 s2 old s1 s2 old s1 s2; do
  b=codecs-$v; [ $v = old ] && b=codecs-old
  TUNE_CACHE=s10.json timeout 60 /tmp/$b $A > $R/$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$13} END {print ""}'
done
N=/usr/local/cuda/bin/ncu
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for d in f16 f32; do
  TUNE_CACHE=s10.json timeout 100 $N --set full --import-source yes -k regex:zvc_compress --launch-skip 3 --launch-count 1 -o /tmp/w/rep-$d /tmp/codecs-s1 $B --dtypes $d > $R/ncu-run-$d.txt 2>&1
  $N -i /tmp/w/rep-$d.ncu-rep --page details > $R/details-$d.txt 2>&1
  $N -i /tmp/w/rep-$d.ncu-rep --page source --csv --print-source sass > $R/sass-$d.csv 2>&1
  echo "ncu $d"; grep -E "^ +Duration|Registers Per|Issue Slots Busy|Executed Instructions  " $R/details-$d.txt
done
echo "end $(( $(date +%s) - t0 ))s"
tar -C $OUT -czf $OUT/results.tar.gz r
