#!/usr/bin/env bash
# Session 11, call 2: ZVC compress with the old ordering restored for
# ZVC_PREFETCH=0 (ticket at the top, loads in rounds) and three prefetch
# variants: the next tile's ticket taken after the current tile's load (1),
# before its scan (2), after its look-back (3); 16-bit only, or every dtype
# with 10 + variant. A/B against the last commit's binary (codecs-old) at
# session 10 call 5's tuned configurations; Nsight Compute registers.
set -u
for b in codecs codecs-old; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-s10.json /tmp/w/s10.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in old 0 1 2 3 12 13 old 0 1 2 3 12 13; do
  b=codecs; [ $v = old ] && b=codecs-old; p=$v; [ $v = old ] && p=0
  ZVC_PREFETCH=$p TUNE_CACHE=s10.json timeout 60 /tmp/$b $A > $R/p$v-$(date +%s).txt 2>&1
  echo "p$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/p$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$13} END {print ""}'
done
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for x in "0 f16" "2 f16" "3 f16" "12 f32" "13 f32"; do set -- $x
  ZVC_PREFETCH=$1 TUNE_CACHE=s10.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs $B --dtypes $2 > $R/ncu-p$1-$2.txt 2>&1
  echo "ncu p$1 $2"; grep -E "registers|occupancy|warps_active|duration" $R/ncu-p$1-$2.txt
done
echo "end $(( $(date +%s) - t0 ))s"
tar -C $OUT -czf $OUT/results.tar.gz r
