#!/usr/bin/env bash
# Session 11, call 7: the ballot look-back (one predecessor per lane) with
# scalars (new) against call 6's version with a one-entry local array (s1)
# and the last commit's binary (old), at session 10 call 5's configurations;
# Nsight Compute registers.
set -u
for b in codecs codecs-s1 codecs-old; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-s10.json /tmp/w/s10.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in old new s1 old new s1; do
  b=codecs-$v; [ $v = new ] && b=codecs
  TUNE_CACHE=s10.json timeout 60 /tmp/$b $A > $R/$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$13} END {print ""}'
done
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for x in "codecs f32" "codecs-s1 f32" "codecs-old f32" "codecs f16"; do set -- $x
  TUNE_CACHE=s10.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/$1 $B --dtypes $2 > $R/ncu-$1-$2.txt 2>&1
  echo "ncu $1 $2"; grep -E "registers|occupancy|duration" $R/ncu-$1-$2.txt
done
echo "end $(( $(date +%s) - t0 ))s"
tar -C $OUT -czf $OUT/results.tar.gz r
