#!/usr/bin/env bash
# Session 8, call 7 (final engine): memory over 1,000 swap-all steps at 230 MiB,
# and Plain20 at 345 MiB.
set -u
for b in train; do [ -f .gpu/$b.xz ] && xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
CC=/tmp/cubecl-cache; mkdir -p $CC/nv /tmp/w
ls .gpu/cc.part-* >/dev/null 2>&1 && cat .gpu/cc.part-* | tar -C / -xJf -
printf '[compilation]\ncache = { file = "%s" }\n[autotune]\ncache = { file = "%s" }\n' $CC $CC > /tmp/w/cubecl.toml
export CUDA_CACHE_PATH=$CC/nv CUDA_CACHE_MAXSIZE=4294967296 CUBECL_AUTOTUNE_LEVEL=minimal
cd /tmp/w
t0=$(date +%s)
P="--models plain20 --batches 256 --unfused"
timeout 160 /tmp/train $P --budget 230MiB --steps 1000 --memory-every 100 --case-timeout 150 --policies swap-all --json $R/p20-230-soak.json > $R/p20-230-soak.txt 2>&1
echo "soak rc=$? $(( $(date +%s) - t0 ))s"; grep -A3 "^model " $R/p20-230-soak.txt | grep -v "^model" | head -1; grep -A14 "^memory over" $R/p20-230-soak.txt
gzip -f $R/p20-230-soak.txt
timeout 110 /tmp/train $P --budget 345MiB --steps 100 --case-timeout 50 --policies keep-all,swap-all --json $R/p20-345.json > $R/p20-345.txt 2>&1
echo "345 rc=$? $(( $(date +%s) - t0 ))s"; grep -A3 "^model " $R/p20-345.txt | grep -v "^model" | head -2; grep -A3 "^host and device" $R/p20-345.txt | tail -2
tar -C $OUT -czf $OUT/results.tar.gz r
