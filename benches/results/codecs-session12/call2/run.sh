#!/usr/bin/env bash
# Session 12, call 2: registers, occupancy and duration of the ZVC compress
# kernel, head (40d44d9) against new (call 1), f32 and f16, 64 MB and 1 GB.
set -u
for b in codecs codecs-head; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
mkdir -p /tmp/w; cp .gpu/tune-c10.json /tmp/w/t.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__grid_size,launch__block_size,gpu__time_duration.sum
for s in 64MB 1GB; do for d in f32 f16; do for v in codecs-head codecs; do
  B="--sizes $s --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes $d"
  TUNE_CACHE=t.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 2 /tmp/$v $B > $R/ncu-$v-$d-$s.txt 2>&1
  echo "== $v $d $s"; grep -E "registers|occupancy|duration|grid_size|block_size" $R/ncu-$v-$d-$s.txt | awk '{print $1, $NF}' | tr '\n' ' '; echo
done; done; done
tar -C $OUT -czf $OUT/results.tar.gz r
