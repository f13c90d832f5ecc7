#!/usr/bin/env bash
# Session 10, call 2: experiment toggles of the ZVC compress (ZVC_EXP bits:
# 1 = publish the tile's aggregate right after the scan, 2 = 16-bit
# compaction into a u16 shared array, 8 = 16-bit chunk pads by a plane sum, 16 = f32 compaction into a second shared array (no registers for the words), 4 = with 2: keep the words in
# registers). GPU tests under the toggles, then rows at call 13's configs
# and at alternative 16-bit configs.
set -u
for b in codecs kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c13.json /tmp/w/c13.json; cp .gpu/tune-alt.json /tmp/w/alt.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
for e in 27 11 17; do
  ZVC_EXP=$e timeout 100 /tmp/kt --test-threads 1 zvc every_block > $R/tests-e$e.txt 2>&1
  echo "tests e$e rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-e$e.txt | head -5
done
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for c in c13 alt; do
for e in 0 3 11 17 27 0; do
  ZVC_EXP=$e TUNE_CACHE=$c.json timeout 60 /tmp/codecs $A > $R/$c-e$e.txt 2>&1
  echo "$c e$e rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/$c-e$e.txt | cut -c1-100
done; done
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for x in "f16 0" "f16 3" "f16 11" "f32 0" "f32 17"; do set -- $x
  ZVC_EXP=$2 TUNE_CACHE=c13.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs $B --dtypes $1 > $R/ncu-$1-e$2.txt 2>&1
  echo "ncu $1 e$2"; grep -E "registers|occupancy|warps_active|duration" $R/ncu-$1-e$2.txt
done
tar -C $OUT -czf $OUT/results.tar.gz r
