// Declarations of the W8A8 decode GEMV's launchers (gemv_w8a8.cu), bound in fast_path.cpp. The launchers
// have the C ABI of a generated kernel library's cg_launch (kernels/emit.py), so the GEMM ops' plans and
// the C++ fast path call them exactly as they call a CUTLASS kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cg {

// Address of the launcher for (input type, output type, scale kinds): `fp8` e4m3 (else int8), `bf16`
// output (else fp16), `sa_vec` per-token scale_a (else one element), `sb_vec` per-channel scale_b (else
// one element). Its signature is fast_path.cpp's LaunchFn; it returns 0, or a nonzero code with the message
// in gemv_w8a8_last_error() (the azp arguments must be null, 1 <= M <= 16, K % 16 == 0, aligned rows).
int64_t gemv_w8a8_address(bool fp8, bool bf16, bool sa_vec, bool sb_vec);

// The message of this thread's last failed launch ("" if none).
std::string gemv_w8a8_last_error();

// The launch an (m, n, k) call makes: (warps splitting K per CTA, CTAs, threads per CTA, chunks of 64 k per
// lane step), for reports and tests.
std::vector<int64_t> gemv_w8a8_plan(int64_t m, int64_t n, int64_t k);

// Force the number of warps splitting K (4, 8 or 16) for tuning; 0 restores the automatic choice.
void gemv_w8a8_set_warps_k(int64_t warps_k);

}  // namespace cg
