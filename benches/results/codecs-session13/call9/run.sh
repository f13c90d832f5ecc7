#!/usr/bin/env bash
# Session 13, call 9: is the outer tile loop unrolled? v7 = v0 (plane
# chunks) and v8 = v1 (per unit) with `#pragma unroll 1` on the loop over
# a cube's tiles; registers as CubeCL compiles (regs.cu) and by nvcc.
set -u
R=$OUT/r; mkdir -p $R; cd .gpu/k13
/usr/local/cuda/bin/nvcc -O2 -o /tmp/regs regs.cu -lnvrtc -lcuda > $R/build.txt 2>&1 || cat $R/build.txt
/tmp/regs v0.cu v7.cu v1.cu v8.cu 2>&1 | tee $R/regs.txt
for v in v7 v8; do
  /usr/local/cuda/bin/nvcc -cubin -arch=sm_90a -Xptxas -v -o /tmp/$v.cubin $v.cu > /tmp/$v.txt 2>&1
  echo "nvcc sm_90a $v: $(grep -oE 'Used [0-9]+ registers' /tmp/$v.txt)" | tee -a $R/regs.txt
done
