// Registers of a CubeCL-generated kernel compiled as CubeCL 0.10 does:
// NVRTC (--gpu-architecture=sm_90a, -lineinfo), then the driver's PTX JIT.
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
int main(int argc, char **argv) {
  cuInit(0); CUdevice dev; cuDeviceGet(&dev, 0); CUcontext ctx; cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
  for (int a = 1; a < argc; a++) {
    std::ifstream f(argv[a]); std::stringstream ss; ss << f.rdbuf(); std::string src = ss.str();
    nvrtcProgram p; nvrtcCreateProgram(&p, src.c_str(), nullptr, 0, nullptr, nullptr);
    const char *opts[] = {"--gpu-architecture=sm_90a", "--include-path=/usr/local/cuda/include", "-lineinfo"};
    if (nvrtcCompileProgram(p, 3, opts) != NVRTC_SUCCESS) {
      size_t n; nvrtcGetProgramLogSize(p, &n); std::vector<char> log(n); nvrtcGetProgramLog(p, log.data());
      printf("%s: compile error\n%s\n", argv[a], log.data()); continue;
    }
    size_t n; nvrtcGetPTXSize(p, &n); std::vector<char> ptx(n); nvrtcGetPTX(p, ptx.data());
    CUmodule m; CUresult r = cuModuleLoadData(&m, ptx.data());
    if (r != CUDA_SUCCESS) { printf("%s: load error %d\n", argv[a], r); continue; }
    size_t pos = src.find(")", src.find("__launch_bounds__", src.find("__global__"))) + 1;
    std::string name = src.substr(pos, src.find("(", pos) - pos);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    while (!name.empty() && name.front() == ' ') name.erase(0, 1);
    CUfunction fn; r = cuModuleGetFunction(&fn, m, name.c_str());
    if (r != CUDA_SUCCESS) { printf("%s: no function %s\n", argv[a], name.c_str()); continue; }
    int regs, spill; cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
    cuFuncGetAttribute(&spill, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
    printf("%s: %d registers, %d bytes local\n", argv[a], regs, spill);
    cuModuleUnload(m); nvrtcDestroyProgram(&p);
  }
}
