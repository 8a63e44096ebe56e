// Session 29: issue rate of I2FP.F32.S32 (what sm_86+ code uses for int -> float) against FFMA on this GPU, alone and
// mixed as the int8 per-block promotion mixes them (1 I2FP : 1 FMUL : 1 FFMA). Each thread runs 8 independent
// dependency chains; results are kept live through a store the host never reads. nvcc -arch=sm_90a -O3 i2fp_rate.cu
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kIters = 4096;

__global__ void only_i2fp(int* out, int seed) {
  int v[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = seed + threadIdx.x * 8 + j;
  for (int it = 0; it < kIters; ++it)
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = __float_as_int(__int2float_rn(v[j]));  // I2FP, chained through the bits
  int s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s ^= v[j];
  if (s == 0x7fffffff) out[0] = s;
}

__global__ void only_ffma(int* out, float a, float b) {
  float f[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) f[j] = threadIdx.x + j;
  for (int it = 0; it < kIters; ++it)
#pragma unroll
    for (int j = 0; j < 8; ++j) f[j] = f[j] * a + b;
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += f[j];
  if (s == 1234.5f) out[0] = 1;
}

// Per element: I2FP, FMUL, FFMA (the promotion: acc += float(t) * (sa * sb)); the int chain goes through the bits.
__global__ void mixed(int* out, float a, float b) {
  int v[8];
  float acc[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) { v[j] = threadIdx.x * 8 + j; acc[j] = 0.f; }
  for (int it = 0; it < kIters; ++it)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float f = __int2float_rn(v[j]);
      const float s = a * __int_as_float(v[(j + 1) & 7] | 0x3f000000);
      acc[j] = f * s + acc[j];
      v[j] = __float_as_int(f) ^ __float_as_int(acc[j]);
    }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += acc[j] + v[j];
  if (s == 1234.5f) out[0] = 1;
}

template <class F>
float time_ms(F launch) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  launch();
  cudaEventRecord(e0);
  for (int r = 0; r < 5; ++r) launch();
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  return ms / 5;
}

int main() {
  int* out;
  cudaMalloc(&out, 4);
  int sms = 0, clk_khz = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0);
  const dim3 grid(sms * 8), block(256);
  const double threads = double(grid.x) * block.x;
  auto report = [&](const char* name, float ms, int instr_per_elem) {
    const double warp_instr = threads / 32 * kIters * 8 * instr_per_elem;
    const double per_sm_clk = warp_instr / sms / (ms * 1e-3 * clk_khz * 1e3);
    printf("%-40s %8.3f ms  %.2f warp instructions / SM / clock (at the %d MHz max clock; 4 = one per scheduler)\n",
           name, ms, per_sm_clk, clk_khz / 1000);
  };
  report("I2FP.F32.S32 only", time_ms([&] { only_i2fp<<<grid, block>>>(out, 1); }), 1);
  report("FFMA only", time_ms([&] { only_ffma<<<grid, block>>>(out, 1.0001f, 0.5f); }), 1);
  report("I2FP + FMUL + FFMA (+ LOP3 x2)", time_ms([&] { mixed<<<grid, block>>>(out, 1.0001f, 0.5f); }), 5);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
