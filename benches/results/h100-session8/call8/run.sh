#!/usr/bin/env bash
# Session 8, call 8 (final engine, the binary of call 6): SmallCnn b8
# gradients (no fusion and fusion), then the overlap bench.
set -u
for b in transfer; do [ -f .gpu/$b.xz ] && xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
CC=/tmp/cubecl-cache; mkdir -p $CC/nv /tmp/w
ls .gpu/cc.part-* >/dev/null 2>&1 && cat .gpu/cc.part-* | tar -C / -xJf -
printf '[compilation]\ncache = { file = "%s" }\n[autotune]\ncache = { file = "%s" }\n' $CC $CC > /tmp/w/cubecl.toml
export CUDA_CACHE_PATH=$CC/nv CUDA_CACHE_MAXSIZE=4294967296 CUBECL_AUTOTUNE_LEVEL=minimal
cd /tmp/w
t0=$(date +%s)
timeout 330 /tmp/transfer --only gradients --grad-models small-cnn:8 --json $R/grad-smallcnn.json > $R/grad-smallcnn.txt 2>&1
echo "grad rc=$? $(( $(date +%s) - t0 ))s"; grep -v "^\s*$" $R/grad-smallcnn.txt | tail -4
timeout 120 /tmp/transfer --only overlap --json $R/overlap.json > $R/overlap.txt 2>&1
echo "overlap rc=$? $(( $(date +%s) - t0 ))s"; grep -v "^\s*$" $R/overlap.txt | tail -8
tar -C $OUT -czf $OUT/results.tar.gz r
