#!/usr/bin/env bash
# Session 11, call 1: ZVC compress prefetches the next tile into registers
# (ZVC_PREFETCH: 0 none, 1 16-bit only (default), 2 every dtype) and tiles
# taken until the tickets run out; ZVC decompress issues the tile's payload
# loads before its scan (ZVC_EARLY=1). CUDA tests with P=2 E=1, then A/B
# against the last commit's binary (codecs-old) at session 10 call 5's
# tuned configurations; Nsight Compute registers and occupancy.
set -u
for b in codecs codecs-old kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-s10.json /tmp/w/s10.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
ZVC_PREFETCH=2 ZVC_EARLY=1 timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in old p0e0 p1e1 p2e0 old p0e0 p1e1 p2e0 p1e0; do
  b=codecs; [ $v = old ] && b=codecs-old; p=${v:1:1}; e=${v:3:1}; [ $v = old ] && p=0 && e=0
  ZVC_PREFETCH=$p ZVC_EARLY=$e TUNE_CACHE=s10.json timeout 60 /tmp/$b $A > $R/$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
done
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for x in "0 0 f16 compress" "1 1 f16 compress" "2 1 f32 compress" "0 0 f16 decompress" "1 1 f16 decompress"; do set -- $x
  ZVC_PREFETCH=$1 ZVC_EARLY=$2 TUNE_CACHE=s10.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_$4 --launch-skip 3 --launch-count 1 /tmp/codecs $B --dtypes $3 > $R/ncu-p$1e$2-$3-$4.txt 2>&1
  echo "ncu p$1 e$2 $3 $4"; grep -E "registers|occupancy|warps_active|duration" $R/ncu-p$1e$2-$3-$4.txt
done
echo "end $(( $(date +%s) - t0 ))s"
tar -C $OUT -czf $OUT/results.tar.gz r
