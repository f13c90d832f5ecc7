#!/usr/bin/env bash
# Session 12, call 7: final, as committed (84f9b10: single-pass compress in
# one launch). --quick with fresh tuning and the tuner against exhaustive
# search (f32, f16); then --quick again at those configurations.
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
TUNE_CACHE=$R/tune.json timeout 400 /tmp/codecs --quick --tuner-dtypes f32,f16 --json $R/zvc.json > $R/zvc.txt 2>&1
echo "zvc rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M|tuner/|chose|best" $R/zvc.txt | cut -c1-110
cp $R/tune.json t2.json
TUNE_CACHE=t2.json timeout 120 /tmp/codecs --quick --tuner-sizes none --json $R/zvc2.json > $R/zvc2.txt 2>&1
echo "zvc2 rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/zvc2.txt | cut -c1-110
tar -C $OUT -czf $OUT/results.tar.gz r
