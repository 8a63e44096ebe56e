// Session 38 probe (call 4): the e4m3 decode GEMV with the activation read as float16 (xh_kernel.cuh, kXH = 1: half the
// F2FP conversions) or converted in the kernel by explicit cvt + f16 mma (kXH = 2, the control), against the library's
// rule and its own forms (nt_kernel.cuh, kNT = 1), per-token and 128 x 128 block scales, M = 16. Each output against
// the rule's (rel. L2 error). Batches of 20 launches on weight copies rotated past L2, 9 rounds alternating, medians.
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o xhp xh_probe.cu && ./xhp H100
#include "harness.h"
#include "nt_kernel.cuh"
#include "xh_kernel.cuh"

using h38::B;
using h38::Form;

template <bool kF, int kBC, int kNT, int kU, int kW>
cudaError_t form(cg_gemv::GemvArgs a, cudaStream_t s, int sms) {
  return h38::launch_rows(nt::gemv_nt<kF, B, 2, kW, kU, kBC, kNT, 512>, kNT, kW, kNT, 512, 0, a, s, sms);
}
template <int kBC, int kU, int kW, int kXH>
cudaError_t xhf(cg_gemv::GemvArgs a, cudaStream_t s, int sms) {
  return h38::launch_rows(xh::gemv_xh<B, 2, kW, kU, kBC, kXH>, 1, kW, 1, 512, 0, a, s, sms);
}
template <int kBC>
std::vector<Form> forms() {
  return {{"u4 w4", &form<true, kBC, 1, 4, 4>},     {"u4 w8", &form<true, kBC, 1, 4, 8>},
          {"u2 w8", &form<true, kBC, 1, 2, 8>},     {"cvt u4 w4", &xhf<kBC, 4, 4, 2>},
          {"cvt u4 w8", &xhf<kBC, 4, 8, 2>},        {"x16 u4 w4", &xhf<kBC, 4, 4, 1>, true},
          {"x16 u4 w8", &xhf<kBC, 4, 8, 1>, true},  {"x16 u2 w8", &xhf<kBC, 2, 8, 1>, true},
          {"x16 u2 w4", &xhf<kBC, 2, 4, 1>, true}};
}

int main(int argc, char** argv) {
  const std::vector<h38::Kind> kinds = {{"e4m3 per-token", true, 0, 0, forms<0>()}, {"e4m3 128x128", true, 128, 7, forms<2>()}};
  return h38::run(argc, argv, kinds,
                  {{16, 4096, 4096}, {16, 7168, 2048}, {16, 6144, 4096}, {16, 8192, 4096}, {16, 8192, 8192},
                   {16, 14336, 4096}, {16, 28672, 4096}, {8, 4096, 4096}});
}
