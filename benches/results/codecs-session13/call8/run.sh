#!/usr/bin/env bash
# Session 13, call 7 (and 8, with regs.cu fixed for CUDA 13 and v6): registers of call 6's generated plane-chunk kernel
# (v0), the per-unit one (v1), and hand variants of v0 (v2: loops not
# unrolled; v3: pass-2 stores removed; v4: pass-2 loop removed; v5: pass-1
# loop removed; v6: both loops removed), compiled as CubeCL does (regs.cu: NVRTC sm_90a + driver
# JIT) and by nvcc for sm_90a with ptxas -v.
set -u
R=$OUT/r; mkdir -p $R; cd .gpu/k13
/usr/local/cuda/bin/nvcc -O2 -o /tmp/regs regs.cu -lnvrtc -lcuda > $R/build.txt 2>&1 || cat $R/build.txt
/tmp/regs v0.cu v1.cu v2.cu v3.cu v4.cu v5.cu v6.cu 2>&1 | tee $R/regs.txt
for v in v0 v1 v2 v3 v4 v5 v6; do
  /usr/local/cuda/bin/nvcc -cubin -arch=sm_90a -Xptxas -v -o /tmp/$v.cubin $v.cu > /tmp/$v.txt 2>&1
  echo "nvcc sm_90a $v: $(grep -oE 'Used [0-9]+ registers' /tmp/$v.txt)" | tee -a $R/regs.txt
done
