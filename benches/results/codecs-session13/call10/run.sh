#!/usr/bin/env bash
# Session 13, call 10: v9 = v0 with the payload write (32 unrolled
# blocks) as a loop under `#pragma unroll 1`; v10 the same with unroll 4;
# registers as CubeCL compiles (regs.cu) and by nvcc.
set -u
R=$OUT/r; mkdir -p $R; cd .gpu/k13
/usr/local/cuda/bin/nvcc -O2 -o /tmp/regs regs.cu -lnvrtc -lcuda > $R/build.txt 2>&1 || cat $R/build.txt
/tmp/regs v9.cu v10.cu 2>&1 | tee $R/regs.txt
for v in v9 v10; do
  /usr/local/cuda/bin/nvcc -cubin -arch=sm_90a -Xptxas -v -o /tmp/$v.cubin $v.cu > /tmp/$v.txt 2>&1
  echo "nvcc sm_90a $v: $(grep -oE 'Used [0-9]+ registers' /tmp/$v.txt)" | tee -a $R/regs.txt
done
