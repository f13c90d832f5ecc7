#!/usr/bin/env bash
# Session 8, call 3: diagnostics for the signal-ordered lanes.
set -u
for b in train transfer; do [ -f .gpu/$b.xz ] && xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
CC=/tmp/cubecl-cache; mkdir -p $CC/nv /tmp/w
ls .gpu/cc.part-* >/dev/null 2>&1 && cat .gpu/cc.part-* | tar -C / -xJf -
printf '[compilation]\ncache = { file = "%s" }\n[autotune]\ncache = { file = "%s" }\n' $CC $CC > /tmp/w/cubecl.toml
export CUDA_CACHE_PATH=$CC/nv CUDA_CACHE_MAXSIZE=4294967296 CUBECL_AUTOTUNE_LEVEL=minimal
cd /tmp/w
timeout 50 /tmp/transfer --only throughput > $R/throughput.txt 2>&1; echo "thr rc=$?"; head -30 $R/throughput.txt
timeout 60 /tmp/train --models plain20 --batches 256 --unfused --budget 230MiB --steps 5 --case-timeout 50 --policies swap-all > $R/train.txt 2>&1; echo "train rc=$?"; grep -v "^\s*$" $R/train.txt | head -30
tar -C $OUT -czf $OUT/results.tar.gz r
