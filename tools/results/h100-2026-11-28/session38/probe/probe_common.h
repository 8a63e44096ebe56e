// Session 37 probes' shared host code: the error check, the 1 GiB copy rate and the alternating timer. (Moved here from
// pf_probe.cu, rd_probe.cu and gx_probe.cu after calls 1-3 ran; the logic is the one those calls ran.)
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(x)                                                                                            \
  do {                                                                                                   \
    cudaError_t e = (x);                                                                                 \
    if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } \
  } while (0)

// GB/s of a 1 GiB device-to-device copy (read + written), the median of 5 timed after one warm-up.
inline double copy_gbps(cudaStream_t st) {
  void *a, *b;
  const size_t n = size_t(1) << 30;
  CK(cudaMalloc(&a, n));
  CK(cudaMalloc(&b, n));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int r = 0; r < 6; ++r) {
    CK(cudaEventRecord(e0, st));
    CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, st));
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaFree(a), cudaFree(b);
  return 2.0 * n / (t[t.size() / 2] * 1e-3) / 1e9;
}

// Per row, the sorted us per launch of 9 batches of 20 launches, the rows' batches alternating round by round, after one
// warm-up batch each; call(i, c) launches row i on weight copy c (0 .. copies - 1, rotating).
inline std::vector<std::vector<float>> time_alternating(int rows, std::function<void(int, int)> const& call, int copies,
                                                        cudaStream_t st) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::vector<float>> t(rows);
  for (int i = 0; i < rows; ++i)
    for (int r = 0; r < 20; ++r) call(i, r % copies);
  for (int round = 0; round < 9; ++round)
    for (int i = 0; i < rows; ++i) {
      CK(cudaStreamSynchronize(st));
      CK(cudaEventRecord(e0, st));
      for (int r = 0; r < 20; ++r) call(i, r % copies);
      CK(cudaEventRecord(e1, st));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t[i].push_back(ms * 1e3f / 20);
    }
  for (auto& v : t) std::sort(v.begin(), v.end());
  return t;
}
