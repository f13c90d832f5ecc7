#!/usr/bin/env bash
# Session 11, call 4: where the 16-bit ZVC compress spends its time. Nsight
# Compute full set with SASS-level source counters (instructions executed,
# warp stall samples) for f16 and f32 compress, 64 MB, 20% zeros, at session
# 10 call 5's configurations (committed kernels).
set -u
xz -dc .gpu/codecs-old.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-s10.json /tmp/w/s10.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
N=/usr/local/cuda/bin/ncu
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for d in f16 f32; do
  TUNE_CACHE=s10.json timeout 200 $N --set full --import-source yes -k regex:zvc_compress --launch-skip 3 --launch-count 1 -o /tmp/w/rep-$d /tmp/codecs $B --dtypes $d > $R/ncu-run-$d.txt 2>&1
  echo "ncu $d rc=$?"
  $N -i /tmp/w/rep-$d.ncu-rep --page details > $R/details-$d.txt 2>&1
  $N -i /tmp/w/rep-$d.ncu-rep --page source --csv --print-source sass > $R/sass-$d.csv 2>&1
  $N -i /tmp/w/rep-$d.ncu-rep --page source --csv --print-source cuda > $R/cuda-$d.csv 2>&1
  wc -l $R/sass-$d.csv $R/cuda-$d.csv; head -c 600 $R/sass-$d.csv; echo
done
tar -C $OUT -czf $OUT/results.tar.gz r
