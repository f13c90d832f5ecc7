#!/usr/bin/env bash
# Session 11, call 15 (final, as committed): per-cube status pairs (call 13) for 16-bit
# only; f32 keeps the zeroed pair with atomics (its registers went 96 -> 126-128 otherwise);
# Decompressed::check combines them on the host. CUDA tests; A/B against
# the previous binary (prev, commit 207830d) at call 10's tuned
# configurations; then --quick at those configurations (no retuning).
set -u
for b in codecs codecs-prev kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c10.json /tmp/w/t.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in prev new prev new prev new; do
  b=codecs-$v; [ $v = new ] && b=codecs
  TUNE_CACHE=t.json timeout 60 /tmp/$b $A > $R/ab-$v-$(date +%s).txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9,$13} END {print ""}'
done
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum
B="--sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1"
for x in "codecs-prev f32" "codecs f32" "codecs-prev f16" "codecs f16"; do set -- $x
  TUNE_CACHE=t.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_decompress --launch-skip 3 --launch-count 1 /tmp/$1 $B --dtypes $2 > $R/ncu-$1-$2.txt 2>&1
  echo "ncu $1 $2"; grep -E "registers|occupancy|duration" $R/ncu-$1-$2.txt
done
cp t.json t2.json
TUNE_CACHE=t2.json timeout 200 /tmp/codecs --quick --tuner-sizes none --json $R/zvc.json > $R/zvc.txt 2>&1
echo "zvc rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/zvc.txt | cut -c1-110
tar -C $OUT -czf $OUT/results.tar.gz r
