// Registers of a kernel compiled as CubeCL does (NVRTC to PTX, the driver to SASS).
#include <nvrtc.h>
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
  char *src = (char *)malloc(n + 1); fread(src, 1, n, f); src[n] = 0;
  nvrtcProgram p; nvrtcCreateProgram(&p, src, "k.cu", 0, NULL, NULL);
  const char *opts[] = {"--gpu-architecture=sm_90a", "--include-path=/usr/local/cuda/include", "-lineinfo"};
  if (nvrtcCompileProgram(p, 3, opts) != NVRTC_SUCCESS) {
    size_t ls; nvrtcGetProgramLogSize(p, &ls); char *log = (char *)malloc(ls); nvrtcGetProgramLog(p, log);
    printf("compile error: %s\n", log); return 1;
  }
  size_t ps; nvrtcGetPTXSize(p, &ps); char *ptx = (char *)malloc(ps); nvrtcGetPTX(p, ptx);
  cuInit(0); CUdevice d; cuDeviceGet(&d, 0); CUcontext c; cuDevicePrimaryCtxRetain(&c, d); cuCtxSetCurrent(c);
  CUmodule m; CUresult r = cuModuleLoadData(&m, ptx);
  if (r != CUDA_SUCCESS) { printf("load error %d\n", r); return 1; }
  CUfunction fn; cuModuleGetFunction(&fn, m, argv[2]);
  int regs = 0, local = 0; cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
  cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
  printf("%d registers, %d local bytes\n", regs, local);
  return 0;
}
