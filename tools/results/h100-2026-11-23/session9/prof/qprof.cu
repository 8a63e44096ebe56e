// Session 9 profiling harness (experiment, not part of the library): launches each activation-quant kernel
// once at one shape (bf16 in, int8 out unless said), for Nsight Compute to profile; no timing, no checks (qt9
// checks the same kernels byte for byte). Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90
// qprof.cu -o qprof. Run: ./qprof M K.
#include <cstdio>
#include <cstdlib>
#include "../../../../../cutlass_gemm/runtime/csrc/quant_launch.cuh"
using namespace cg_quant;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

int main(int argc, char** argv) {
  const int64_t m = argc > 2 ? atoll(argv[1]) : 2048, k = argc > 2 ? atoll(argv[2]) : 8192;
  void *x, *r, *ro, *q, *w; float *scale, *sscale; int32_t* azp; unsigned* partials;
  CK(cudaMalloc(&x, m * k * 2)); CK(cudaMalloc(&r, m * k * 2)); CK(cudaMalloc(&ro, m * k * 2)); CK(cudaMalloc(&q, m * k));
  CK(cudaMalloc(&w, k * 2)); CK(cudaMalloc(&scale, m * k / 16 * 4)); CK(cudaMalloc(&sscale, 4)); CK(cudaMalloc(&azp, m * 4));
  CK(cudaMalloc(&partials, 4096 * 4));
  // x, residual and weight: bf16 values 1.0 .. about 2 (0x3F80 + small), any finite pattern serves a profile
  CK(cudaMemset(x, 0x3F, m * k * 2)); CK(cudaMemset(r, 0x3F, m * k * 2)); CK(cudaMemset(w, 0x3F, k * 2));
  const float one = 1.0f; CK(cudaMemcpy(sscale, &one, 4, cudaMemcpyHostToDevice));
  RowArgs a{};
  a.x = x; a.ldx = k; a.q = q; a.ldq = k; a.scale_out = scale; a.azp_out = azp; a.rows = m; a.cols = k;
  a.static_scale = sscale; a.partials = partials; a.ldr = k; a.norm_weight = w; a.eps = 1e-6f;
  struct { const char* name; RowMode mode; bool res; int group; OutType out; } cases[] = {
      {"per_token", RowMode::kDynamic, false, 0, OutType::kInt8},   {"asym", RowMode::kDynamicAsym, false, 0, OutType::kInt8},
      {"rms", RowMode::kRmsNorm, false, 0, OutType::kInt8},         {"rms+res", RowMode::kRmsNorm, true, 0, OutType::kInt8},
      {"group128", RowMode::kGroup, false, 128, OutType::kInt8},    {"per_tensor fp8", RowMode::kPerTensor, false, 0, OutType::kFp8},
      {"static", RowMode::kStatic, false, 0, OutType::kInt8},
  };
  for (auto& c : cases) {
    RowArgs b = a;
    b.residual = c.res ? r : nullptr; b.residual_out = c.res ? ro : nullptr;
    b.group_lanes = c.group ? c.group / 8 : 0;
    for (int rep = 0; rep < 2; ++rep) CK(launch_quant(b, c.mode, InType::kBFloat16, c.out, true, 0));
    CK(cudaDeviceSynchronize());
    printf("%s done\n", c.name);
  }
  return 0;
}
