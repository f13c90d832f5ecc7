#!/usr/bin/env bash
# Session 10, call 1: experiment toggles of the ZVC compress (ZVC_EXP bits:
# 1 = publish the tile's aggregate right after the scan, 2 = 16-bit
# compaction into a u16 shared array, 4 = with 2: keep the words in
# registers). GPU tests under the toggles, then rows at call 13's configs
# and at alternative 16-bit configs.
set -u
for b in codecs kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c13.json /tmp/w/c13.json; cp .gpu/tune-alt.json /tmp/w/alt.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
for e in 7 3; do
  ZVC_EXP=$e timeout 100 /tmp/kt --test-threads 1 zvc > $R/tests-e$e.txt 2>&1
  echo "tests e$e rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-e$e.txt | head -5
done
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for c in c13 alt; do
for e in 0 1 3 7 2 6 0; do
  ZVC_EXP=$e TUNE_CACHE=$c.json timeout 60 /tmp/codecs $A > $R/$c-e$e.txt 2>&1
  echo "$c e$e rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/$c-e$e.txt | cut -c1-100
done; done
tar -C $OUT -czf $OUT/results.tar.gz r
