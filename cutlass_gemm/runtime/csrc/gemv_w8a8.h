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
// lane step), for reports and tests; `block` > 0 for the block-scaled form.
std::vector<int64_t> gemv_w8a8_plan(int64_t m, int64_t n, int64_t k, int64_t block = 0);

// One call of the block-scaled GEMV (gemv_w8a8.cuh, kBC > 0):
//   out[m, n] = act(sum_kb scale_a[m * sa_rs + kb * sa_cs] * scale_b[(n >> sb_shift) * sb_rs + kb * sb_cs]
//                   * (a[m, block kb] . w[n, block kb]) + bias[n])
// a (M, K) / w (N, K) int8 or (fp8) e4m3 with 16-byte aligned rows, 1 <= M <= 16, block 64 or 128 (fp8: 128),
// sb_shift 0 (a scale per weight row per block) or 7 (per 128 x 128 weight block), act a cg_bi8::Act code.
struct GemvBlockCall {
  const void* a;
  const void* w;
  void* out;
  const float* scale_a;
  const float* scale_b;
  const void* bias;  // (N,) in the output type, or null
  int64_t lda, ldw, ldo, sa_rs, sa_cs, sb_rs, sb_cs;
  int64_t m, n, k;
  int block, sb_shift, act;
  bool fp8, bf16;
  void* stream;
};
// Launches it: 0, or a nonzero code with the message in gemv_w8a8_last_error().
int gemv_block_launch(GemvBlockCall const& call);

// Force the chunks of 64 K per lane step, 2 or 4 (the plain form's M <= 8 kernel: 2 means its 3-chunk kernel), for
// tuning and comparison; 0 restores the rule.
void gemv_set_step(int64_t step);

// The extension-wide programmatic-dependent-launch switch (pdl.cuh; on at start unless CUTLASS_GEMM_PDL=0):
// mode 0 / 1 turns it off / on, anything else leaves it; returns whether it was on. For every kernel of the
// extension that pdl.cuh launches (GEMV, weight-only, activation quant).
int64_t pdl_set(int64_t mode);

// The weight bytes a programmatic dependent's first wave prefetches into L2 before its wait, all CTAs together
// (pdl.cuh; GEMV and weight-only direct kernels): bytes >= 0 sets it; returns the previous value. For tuning.
int64_t pdl_set_prefetch_bytes(int64_t bytes);

// Force the number of warps splitting K (both forms) (4, 8 or 16) for tuning; 0 restores the automatic choice.
void gemv_w8a8_set_warps_k(int64_t warps_k);

}  // namespace cg
