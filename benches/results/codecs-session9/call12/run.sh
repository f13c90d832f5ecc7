#!/usr/bin/env bash
# Session 9, call 12: 16-bit ZVC compress with one staging array and the kept
# element's slot computed from its parity (the keep-bit branch as before),
# A/B against the last commit's binary at call 10's configurations.
set -u
for b in codecs codecs-old; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c10.json /tmp/w/tune.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
A="--sizes 1MB,64MB,1GB --codecs zvc --dtypes f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for i in 1 2; do
  TUNE_CACHE=tune.json timeout 100 /tmp/codecs $A --json $R/new$i.json > $R/new$i.txt 2>&1
  echo "new rc=$?"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/new$i.txt | cut -c1-100
  TUNE_CACHE=tune.json timeout 100 /tmp/codecs-old $A --json $R/old$i.json > $R/old$i.txt 2>&1
  echo "old rc=$?"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/old$i.txt | cut -c1-100
done
tar -C $OUT -czf $OUT/results.tar.gz r
