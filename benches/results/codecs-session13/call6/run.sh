#!/usr/bin/env bash
# Session 13, call 6: why call 5's plane-chunk 16-bit compress took 167
# registers. Generated CUDA of both paths (plane chunks, CK_PLANE_CHUNKS=0),
# compiled by nvcc for sm_90 with ptxas -v, and their SASS.
set -u
xz -dc .gpu/codecs.xz > /tmp/codecs && chmod +x /tmp/codecs
R=$OUT/r; mkdir -p $R/src
mkdir -p /tmp/w; cp .gpu/tune-c7.json /tmp/w/t.json; cd /tmp/w
export CUBECL_AUTOTUNE_LEVEL=minimal
for P in 1 0; do
  CK_PLANE_CHUNKS=$P CUBECL_DEBUG_LOG=/tmp/w/log$P.txt TUNE_CACHE=t.json timeout 60 /tmp/codecs --sizes 64MB --codecs zvc --sparsities 0.2 --tuner-sizes none --no-passes --reps 1 --dtypes f16 > /dev/null 2>&1
  python3 $OLDPWD/.gpu/k13/extract.py /tmp/w/log$P.txt $R/src
done
cd $R/src
for f in *.cu; do
  /usr/local/cuda/bin/nvcc -cubin -arch=sm_90 -O3 -Xptxas -v -o ${f%.cu}.cubin $f > ${f%.cu}.ptxas.txt 2>&1
  echo "$f $(grep -oE 'Used [0-9]+ registers' ${f%.cu}.ptxas.txt)"
  /usr/local/cuda/bin/cuobjdump -sass ${f%.cu}.cubin > ${f%.cu}.sass 2>&1
  rm -f ${f%.cu}.cubin
done
tar -C $OUT -czf $OUT/results.tar.gz r
