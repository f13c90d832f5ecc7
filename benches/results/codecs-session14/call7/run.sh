#!/usr/bin/env bash
# Session 14, call 7 (the tuner as committed): kernels of 87cac69; the final round adds the
# blocks and schemes of the 3 best configurations at whole waves (k x 132, k <= 16)
# and times each candidate once with batches of at least 20 ms, median of
# 5 (call 6: the best one block only). CUDA tests; --quick with fresh
# tuning (each row's first input, 20% zeros) and the tuner against
# exhaustive search at 20% zeros (f16 compress and decompress); the table once more at
# those picks; two more fresh tunings at 64 MB, each with its table.
set -u
for b in codecs kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
TUNE_CACHE=fresh.json timeout 420 /tmp/codecs --quick --tuner-dtypes f16 --tuner-sparsity 0.2 --tuner-directions compress,decompress --json $R/quick.json > $R/quick.txt 2>&1
echo "quick rc=$? $(( $(date +%s) - t0 ))s"
grep -E "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/quick.txt | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
grep -A3 "tuner vs exhaustive" $R/quick.txt
cp fresh.json $R/
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.8,0.95 --tuner-sizes none --no-passes"
for rep in 1; do
  TUNE_CACHE=fresh.json timeout 90 /tmp/codecs $A > $R/table-$rep.txt 2>&1
  echo "table $rep rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $R/table-$rep.txt | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
done
B="--sizes 64MB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for f in fresh2 fresh3; do
  TUNE_CACHE=$f.json timeout 200 /tmp/codecs $B > $R/$f-tune.txt 2>&1
  echo "$f rc=$? $(( $(date +%s) - t0 ))s"
  TUNE_CACHE=$f.json timeout 60 /tmp/codecs $B > $R/$f-table.txt 2>&1
  grep -hE "^ +zvc +[FB]+[0-9]+ +64M" $R/$f-table.txt | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
  cp $f.json $R/
done
python3 -c "
import json
for f in ('fresh.json','fresh2.json','fresh3.json'):
  d=json.load(open(f))
  for k,v in sorted(d.items()):
    if '|zvc|' in k and k.endswith(('|26','|30')): print(f, k.split('|',2)[2], v['config'], round(v['seconds']*1e6,1), v['evaluations'])
" 2>&1 | tee $R/picks.txt
tar -C $OUT -czf $OUT/results.tar.gz r
