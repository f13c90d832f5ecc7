#!/usr/bin/env bash
# Session 11, call 3: ZVC block scan by planes (each plane scans itself with
# shuffles, the units add the totals of the planes before: two barriers
# instead of one per step; ZVC_SCAN=0 turns it off) and the compress tile's
# ticket taken before the barrier that ends the previous iteration (one
# barrier fewer a tile). CUDA tests; A/B against the last commit's binary
# (codecs-old) at session 10 call 5's tuned configurations; Nsight Compute.
set -u
for b in codecs codecs-old kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-s10.json /tmp/w/s10.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in old new s0 old new s0 new; do
  b=codecs; [ $v = old ] && b=codecs-old; sc=1; [ $v = s0 ] && sc=0
  ZVC_SCAN=$sc TUNE_CACHE=s10.json timeout 60 /tmp/$b $A > $R/$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9,$13} END {print ""}'
done
M=launch__registers_per_thread,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for x in "codecs-old f16 compress" "codecs f16 compress" "codecs-old f16 decompress" "codecs f16 decompress"; do set -- $x
  TUNE_CACHE=s10.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_$3 --launch-skip 3 --launch-count 1 /tmp/$1 $B --dtypes $2 > $R/ncu-$1-$2-$3.txt 2>&1
  echo "ncu $1 $2 $3"; grep -E "registers|occupancy|warps_active|duration|stalled|issue_active" $R/ncu-$1-$2-$3.txt
done
echo "end $(( $(date +%s) - t0 ))s"
tar -C $OUT -czf $OUT/results.tar.gz r
