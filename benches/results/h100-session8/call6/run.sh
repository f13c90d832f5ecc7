#!/usr/bin/env bash
# Session 8, call 6: session 7 engine, fences recorded on compute by CubeCL's device
# thread (no CubeCL cross-stream path, no fence thread), with the queue flush after each job.
set -u
for b in train transfer; do [ -f .gpu/$b.xz ] && xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
CC=/tmp/cubecl-cache; mkdir -p $CC/nv /tmp/w
ls .gpu/cc.part-* >/dev/null 2>&1 && cat .gpu/cc.part-* | tar -C / -xJf -
printf '[compilation]\ncache = { file = "%s" }\n[autotune]\ncache = { file = "%s" }\n' $CC $CC > /tmp/w/cubecl.toml
export CUDA_CACHE_PATH=$CC/nv CUDA_CACHE_MAXSIZE=4294967296 CUBECL_AUTOTUNE_LEVEL=minimal
cd /tmp/w
t0=$(date +%s)
timeout 60 /tmp/transfer --only throughput --json $R/throughput.json > $R/throughput.txt 2>&1
echo "throughput rc=$? $(( $(date +%s) - t0 ))s"; grep -v "^\s*$" $R/throughput.txt | head -24
grep -q "exact" $R/throughput.txt || { tar -C $OUT -czf $OUT/results.tar.gz r; exit 0; }
P="--models plain20 --batches 256 --unfused --budget 230MiB"
for i in 1 2 3; do
  timeout 110 /tmp/train $P --steps 100 --case-timeout 50 --policies keep-all,swap-all --json $R/p20-230-rep$i.json > $R/p20-230-rep$i.txt 2>&1
  echo "rep$i rc=$? $(( $(date +%s) - t0 ))s"; grep -A3 "^model " $R/p20-230-rep$i.txt | grep -v "^model" | head -2; grep -A3 "^host and device" $R/p20-230-rep$i.txt | tail -2; grep DIAG $R/p20-230-rep$i.txt | head -3
done
timeout 100 /tmp/transfer --only gradients --grad-models plain20:32 --json $R/grad.json > $R/grad.txt 2>&1
echo "grad rc=$? $(( $(date +%s) - t0 ))s"; grep -v "^\s*$" $R/grad.txt | tail -4
tar -C $OUT -czf $OUT/results.tar.gz r
