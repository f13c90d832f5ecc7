#!/usr/bin/env bash
# Session 12, call 4-5: register counts of hand variants of the generated f16 ZVC
# compress kernel, compiled as CubeCL does (NVRTC to PTX, driver JIT), and by nvcc.
set -u
mkdir -p /tmp/k && tar xzf .gpu/k12.tgz -C /tmp/k && cd /tmp/k
/usr/local/cuda/bin/nvcc -O2 regs.cu -o regs -lnvrtc -lcuda 2>&1 | tail -3
for f in v*.cu; do
  echo "== $f nvrtc+driver: $(./regs $f zvc_compress_n_4_s_u16_d_u64 | head -3)  nvcc: $(/usr/local/cuda/bin/nvcc -cubin -arch=sm_90a -lineinfo -Xptxas -v $f -o /tmp/k/$f.cubin 2>&1 | grep -oE 'Used [0-9]+ registers|error.*' | tr '\n' ' ')"
done
