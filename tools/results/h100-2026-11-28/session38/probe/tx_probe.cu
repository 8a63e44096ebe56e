// Session 38 probe (call 5): the W8A8 decode GEMV with its activation staged in shared memory by bulk copies and the
// registers holding weight only (tx_kernel.cuh), up to 1024 threads per SM, against the library's rule and its own
// 4-chunk forms, at M = 16: int8 per token, int8 B = 128, e4m3 128 x 128. Each output against the rule's (bit-identical
// or rel. L2 error). Batches of 20 launches on weight copies rotated past L2, 9 rounds alternating, medians.
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o txp tx_probe.cu && ./txp H100
#include "harness.h"
#include "nt_kernel.cuh"
#include "tx_kernel.cuh"

using h38::B;
using h38::Form;

template <bool kF, int kBC, int kNT, int kU, int kW>
cudaError_t form(cg_gemv::GemvArgs a, cudaStream_t s, int sms) {
  return h38::launch_rows(nt::gemv_nt<kF, B, 2, kW, kU, kBC, kNT, 512>, kNT, kW, kNT, 512, 0, a, s, sms);
}
template <bool kF, int kBC, int kT, int kW, int kU, int kTPS>
cudaError_t txf(cg_gemv::GemvArgs a, cudaStream_t s, int sms) {
  auto kernel = tx::gemv_tx<kF, B, 2, kT, kW, kU, kBC, kTPS>;
  static bool attr = false;  // one per instantiation (session 37's probe shared one flag between kernels: its bug)
  if (!attr) {
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, kernel));
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(227 * 1024 - fa.sharedSizeBytes)));
    attr = true;
  }
  const size_t smem = static_cast<size_t>(tx::xs_bytes(std::min(a.m, 16), a.k));
  return h38::launch_rows(kernel, kT, kT * kW, 1, kTPS, smem, a, s, sms);
}
template <bool kF, int kBC>
std::vector<Form> forms() {
  std::vector<Form> f = {{"reg u4 w4", &form<kF, kBC, 1, 4, 4>}, {"reg u4 w8", &form<kF, kBC, 1, 4, 8>}};
  if constexpr (kBC == 0) {
    f.push_back({"tx t1 w16 u4 @1024", &txf<kF, kBC, 1, 16, 4, 1024>});
    f.push_back({"tx t2 w16 u4 @1024", &txf<kF, kBC, 2, 16, 4, 1024>});
    f.push_back({"tx t1 w8 u4 @1024", &txf<kF, kBC, 1, 8, 4, 1024>});
  }
  f.push_back({"tx t1 w16 u2 @1024", &txf<kF, kBC, 1, 16, 2, 1024>});
  f.push_back({"tx t2 w16 u2 @1024", &txf<kF, kBC, 2, 16, 2, 1024>});
  f.push_back({"tx t1 w8 u2 @1024", &txf<kF, kBC, 1, 8, 2, 1024>});
  f.push_back({"tx t1 w8 u4 @768", &txf<kF, kBC, 1, 8, 4, 768>});
  f.push_back({"tx t1 w16 u4 @512", &txf<kF, kBC, 1, 16, 4, 512>});
  f.push_back({"tx t1 w8 u4 @512", &txf<kF, kBC, 1, 8, 4, 512>});
  return f;
}

int main(int argc, char** argv) {
  const std::vector<h38::Kind> kinds = {{"int8 per-token", false, 0, 0, forms<false, 0>()},
                                        {"int8 B=128", false, 128, 0, forms<false, 2>()},
                                        {"e4m3 128x128", true, 128, 7, forms<true, 2>()}};
  return h38::run(argc, argv, kinds,
                  {{16, 4096, 4096}, {16, 7168, 2048}, {16, 6144, 4096}, {16, 8192, 4096}, {16, 8192, 8192},
                   {16, 14336, 4096}, {16, 28672, 4096}, {16, 1024, 4096}});
}
