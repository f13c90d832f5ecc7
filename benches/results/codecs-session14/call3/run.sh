#!/usr/bin/env bash
# Session 14, call 3: ZVC single-pass compress whose look-back reads the
# predecessors' words by cp.async.cg (16 bytes a lane, through L2 into
# shared memory, waited on a barrier of the plane) instead of atomic adds
# of 0. `cg` this build; `atom` the same build with CK_CG=0; `head`
# 87cac69. First a smoke run with the CUDA source logged; CUDA tests;
# ncu; A/B x3 at session 12 call 7's configurations; sizes 16 MB-1 GB.
set -u
for b in codecs codecs-head kt; do xz -dc .gpu/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $R/device.txt
mkdir -p /tmp/w; cp .gpu/tune-c7.json /tmp/w/t.json; cp .gpu/tune-sizes.json /tmp/w/ts.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
t0=$(date +%s)
CUBECL_DEBUG_LOG=$R/cuda-log.txt TUNE_CACHE=t.json timeout 60 /tmp/codecs --sizes 64MB --codecs zvc --dtypes f16 --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 > $R/smoke.txt 2>&1
echo "smoke rc=$?"; tail -5 $R/smoke.txt | cut -c1-300
grep -q "zvc  *F16  *64M" $R/smoke.txt || { grep -n "cp_async\|copy_async\|barrier" $R/cuda-log.txt | head -40; xz -9 $R/cuda-log.txt; tar -C $OUT -czf $OUT/results.tar.gz r; exit 1; }
rm -f $R/cuda-log.txt
timeout 200 /tmp/kt --test-threads 1 > $R/tests-cuda.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 ))s"; grep -E "test result|panicked|FAILED" $R/tests-cuda.txt | head -20
M=launch__registers_per_thread,gpu__time_duration.sum
for d in f16 f32; do for v in 1 0; do
  CK_CG=$v TUNE_CACHE=t.json timeout 60 /usr/local/cuda/bin/ncu --metrics $M -k regex:zvc_compress --launch-skip 3 --launch-count 1 /tmp/codecs --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes $d > $R/ncu-cg$v-$d.txt 2>&1
  echo "== cg$v $d $(grep -E 'registers|duration' $R/ncu-cg$v-$d.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done; done
A="--sizes 64MB,1GB --codecs zvc --dtypes f32,f16,bf16 --sparsities 0.2,0.5,0.95 --tuner-sizes none --no-passes"
for v in head 1 0 head 1 0 head 1 0; do
  b=codecs; [ $v = head ] && b=codecs-head
  CK_CG=$v TUNE_CACHE=t.json timeout 60 /tmp/$b $A > $R/ab-cg$v-$(date +%s).txt 2>&1
  echo "cg$v rc=$? $(( $(date +%s) - t0 ))s"
  grep -hE "^ +zvc +[FB]+[0-9]+ +(64|1024)M" $(ls -t $R/ab-cg$v-*.txt | head -1) | awk '{printf "%s %s %s %s %s | ", substr($2,1,2),$3,$4,$8,$9} END {print ""}'
done
CK_CG=1 TUNE_CACHE=ts.json timeout 90 /tmp/codecs --sizes 16MB,32MB,64MB,128MB,256MB,1GB --codecs zvc --dtypes f16 --sparsities 0.2 --tuner-sizes none --no-passes > $R/sizes-cg1.txt 2>&1
echo "sizes cg1 rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^ +zvc" $R/sizes-cg1.txt | cut -c1-100
tar -C $OUT -czf $OUT/results.tar.gz r
