#!/usr/bin/env bash
# Session 11, call 9: why f32 compress lost 2% with the ballot look-back (64
# registers, was 56). v0 = ballot look-back (call 8); v1 = the same with a
# plane min in place of the ballot; v2 = ballot look-back for 16-bit only,
# session 10's look-back for f32; old = the last commit's binary. Session 10
# call 5's configurations; Nsight Compute registers.
set -u
for b in codecs codecs-v1 codecs-v2 codecs-old; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-s10.json /tmp/w/s10.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in old v0 v1 v2 old v0 v1 v2; do
  b=codecs-$v; [ $v = v0 ] && b=codecs
  TUNE_CACHE=s10.json timeout 60 /tmp/$b $A > $R/$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$13} END {print ""}'
done
M=launch__registers_per_thread,launch__occupancy_limit_registers,gpu__time_duration.sum
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for x in "codecs-v1 f32" "codecs-v2 f32" "codecs-v1 f16" "codecs-v2 f16"; do set -- $x
  TUNE_CACHE=s10.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/$1 $B --dtypes $2 > $R/ncu-$1-$2.txt 2>&1
  echo "ncu $1 $2"; grep -E "registers|duration" $R/ncu-$1-$2.txt
done
echo "end $(( $(date +%s) - t0 ))s"
tar -C $OUT -czf $OUT/results.tar.gz r
