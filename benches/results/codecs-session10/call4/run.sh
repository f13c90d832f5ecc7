#!/usr/bin/env bash
# Session 10, call 4: after call 3, the masks held in scalars instead of a
# local array; A/B against the last commit's binary (codecs-old) at call 13's
# and alternative configs; load rounds (ZVC_ROUND=2: rounds of 2 for every
# dtype, 4: of 4; default: 2 for f32, 4 for 16-bit); 100 = no early publish.
set -u
for b in codecs codecs-old; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c13.json /tmp/w/c13.json; cp .gpu/tune-alt.json /tmp/w/alt.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for c in c13 alt; do
for v in old r0 r2 r4 r100 old r0 r2; do
  b=codecs; [ $v = old ] && b=codecs-old; r=${v#r}; [ $v = old ] && r=0
  ZVC_ROUND=$r TUNE_CACHE=$c.json timeout 60 /tmp/$b $A > $R/$c-$v-$(date +%s).txt 2>&1
  echo "$c $v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/$c-$v-*.txt | head -1) | awk '{printf "%s %s %s %s | ", $2,$3,$4,$8} END {print ""}'
done; done
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for x in "codecs-old f32" "codecs f32" "codecs-old f16" "codecs f16"; do set -- $x
  TUNE_CACHE=c13.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/$1 $B --dtypes $2 > $R/ncu-$1-$2.txt 2>&1
  echo "ncu $1 $2"; grep -E "registers|occupancy|warps_active|duration" $R/ncu-$1-$2.txt
done
tar -C $OUT -czf $OUT/results.tar.gz r
