#!/usr/bin/env bash
# Session 14, call 4: kernels of 87cac69 (main), bench with
# --tuner-sparsity and every exhaustive measurement in the JSON.
# 1. Tuner against exhaustive search at 20% zeros, ZVC compress 64 MB,
#    f16, bf16, f32. 2. 16-bit compress at 64 MB under fixed
#    configurations (tune-<name>.json sets f16 and bf16 alike), x2.
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-*.json /tmp/w/; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
for d in f16 bf16 f32; do
  TUNE_CACHE=tune-c7.json timeout 200 /tmp/codecs --sizes 1MB --codecs zvc --dtypes f32 --sparsities 0.2 --no-passes --tuner-sizes 64MB --tuner-codecs zvc --tuner-dtypes $d --tuner-sparsity 0.2 --tuner-directions compress --json $R/exh-$d.json > $R/exh-$d.txt 2>&1
  echo "exh $d rc=$? $(( $(date +%s) - t0 ))s"; grep -A3 "tuner vs exhaustive" $R/exh-$d.txt
done
A="--sizes 64MB --codecs zvc --dtypes f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for rep in 1 2; do for v in g2040 g792 g785 g660 b64g1584 b64g1476; do
  TUNE_CACHE=tune-$v.json timeout 60 /tmp/codecs $A > $R/cfg-$v-$rep.txt 2>&1
  echo "$v rc=$? $(( $(date +%s) - t0 ))s $(grep -hE '^ +zvc +[FB]+[0-9]+ +64M' $R/cfg-$v-$rep.txt | awk '{printf "%s %s %s %s | ", substr($2,1,2),$4,$8,$9}')"
done; done
tar -C $OUT -czf $OUT/results.tar.gz r
