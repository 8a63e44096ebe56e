// Experiment only: per-token int8 quant layouts (bf16 in). Not part of the library.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>
#include "../../cutlass_gemm/runtime/csrc/quant_kernels.cuh"
#include "old.cuh"
using namespace cg_quant;
using bf = __nv_bfloat16;
using V = VecT<bf, 8>;
using VQ = VecT<int8_t, 8>;

template <bool kHint> __device__ __forceinline__ V ld(const V* p) {
  if (kHint) { int4 r = __ldcs(reinterpret_cast<const int4*>(p)); return *reinterpret_cast<V*>(&r); }
  return *p;
}
template <bool kHint> __device__ __forceinline__ void st(VQ* p, VQ v) {
  if (kHint) __stcs(reinterpret_cast<int2*>(p), *reinterpret_cast<int2*>(&v)); else *p = v;
}

// kG threads per row, kRows rows per CTA, kCache vectors per thread; one __syncthreads.
template <int kG, int kRows, int kCache, bool kHint, bool kReduce, int kMinBlocks = 1>
__global__ void __launch_bounds__(kG * kRows, kMinBlocks) exp_kernel(const bf* x, int8_t* q, float* scale, int64_t rows, int64_t nvec) {
  constexpr int kThreads = kG * kRows;
  const int g = threadIdx.x / kG, t = threadIdx.x % kG;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRows + g;
  const bool live = row < rows;
  const V* xr = reinterpret_cast<const V*>(x) + row * nvec;
  V c[kCache];
  unsigned amax = 0u; int bad = 0;
#pragma unroll
  for (int j = 0; j < kCache; ++j) if (live) c[j] = ld<kHint>(xr + t + j * kG);
#pragma unroll
  for (int j = 0; j < kCache; ++j)
#pragma unroll
    for (int e = 0; e < 8; ++e) { unsigned b = __float_as_uint(fabsf(__bfloat162float(c[j].v[e]))); amax = max(amax, b); bad |= b >= 0x7f800000u; }
  if (kReduce) {
    for (int m = 16; m > 0; m >>= 1) { amax = max(amax, __shfl_xor_sync(~0u, amax, m)); bad |= __shfl_xor_sync(~0u, bad, m); }
    if (kG > 32) {
      __shared__ unsigned pa[kThreads / 32];
      __shared__ int pb[kThreads / 32];
      if (threadIdx.x % 32 == 0) { pa[threadIdx.x / 32] = amax; pb[threadIdx.x / 32] = bad; }
      __syncthreads();
#pragma unroll
      for (int w = 0; w < kG / 32; ++w) { amax = max(amax, pa[g * (kG / 32) + w]); bad |= pb[g * (kG / 32) + w]; }
    }
  }
  if (!live) return;
  const bool nb = bad != 0;
  const float s = scale_from_amax(__uint_as_float(amax), 127.0f, !nb);
  if (t == 0) scale[row] = s;
  const float inv = __frcp_rn(s);
  VQ* qr = reinterpret_cast<VQ*>(q + row * nvec * 8);
#pragma unroll
  for (int j = 0; j < kCache; ++j) {
    VQ o;
#pragma unroll
    for (int e = 0; e < 8; ++e) o.v[e] = nb ? int8_t(0) : QTraits<int8_t>::quant(__bfloat162float(c[j].v[e]), inv, 0.0f);
    st<kHint>(qr + t + j * kG, o);
  }
}

template <int kG, int kRows, int kCache, bool kHint, bool kReduce, int kMinBlocks = 1>
void go(const bf* x, int8_t* q, float* s, int64_t rows, int64_t nvec, cudaStream_t st_) {
  exp_kernel<kG, kRows, kCache, kHint, kReduce, kMinBlocks><<<(rows + kRows - 1) / kRows, kG * kRows, 0, st_>>>(x, q, s, rows, nvec);
}

// variant ids: 0 library kernel; 1 one row/CTA 1-sync; 2 +hints; 3 two rows/CTA; 4 warp/row (4 rows/CTA);
// 5 64 thr/row, 4 rows/CTA; 6 pattern copy (no reduction, layout 1); 7 one row/CTA 8 vec/thread
void run_variant(int64_t v, at::Tensor x, at::Tensor q, at::Tensor s) {
  cudaStream_t st_ = c10::cuda::getCurrentCUDAStream().stream();
  const int64_t rows = x.size(0), nvec = x.size(1) / 8;
  auto xp = reinterpret_cast<const bf*>(x.data_ptr());
  auto qp = q.data_ptr<int8_t>();
  auto sp = s.data_ptr<float>();
  TORCH_CHECK(nvec == 512 || nvec == 1024, "K must be 4096 or 8192");
  const bool k4 = nvec == 512;
  if (v == 9) {
    cg_quant_old::RowArgs a{}; a.x = xp; a.ldx = nvec * 8; a.q = qp; a.ldq = nvec * 8; a.scale_out = sp; a.rows = rows; a.cols = nvec * 8;
    if (k4) cg_quant_old::row_quant_kernel<bf, int8_t, 8, 4, 128, cg_quant_old::RowMode::kDynamic><<<rows, 128, 0, st_>>>(a);
    else cg_quant_old::row_quant_kernel<bf, int8_t, 8, 4, 256, cg_quant_old::RowMode::kDynamic><<<rows, 256, 0, st_>>>(a);
  } else if (v == 0) {
    RowArgs a{}; a.x = xp; a.ldx = nvec * 8; a.q = qp; a.ldq = nvec * 8; a.scale_out = sp; a.rows = rows; a.cols = nvec * 8;
    if (k4) row_quant_kernel<bf, int8_t, 8, 4, 128, RowMode::kDynamic><<<rows, 128, 0, st_>>>(a);
    else row_quant_kernel<bf, int8_t, 8, 4, 256, RowMode::kDynamic><<<rows, 256, 0, st_>>>(a);
  } else if (v == 1) { if (k4) go<128, 1, 4, false, true>(xp, qp, sp, rows, nvec, st_); else go<256, 1, 4, false, true>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 2) { if (k4) go<128, 1, 4, true, true>(xp, qp, sp, rows, nvec, st_); else go<256, 1, 4, true, true>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 3) { if (k4) go<128, 2, 4, false, true>(xp, qp, sp, rows, nvec, st_); else go<256, 2, 4, false, true>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 4) { if (k4) go<32, 4, 16, false, true>(xp, qp, sp, rows, nvec, st_); else go<32, 4, 32, false, true>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 5) { if (k4) go<64, 4, 8, false, true>(xp, qp, sp, rows, nvec, st_); else go<64, 4, 16, false, true>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 6) { if (k4) go<128, 1, 4, false, false>(xp, qp, sp, rows, nvec, st_); else go<256, 1, 4, false, false>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 7) { if (k4) go<64, 1, 8, false, true>(xp, qp, sp, rows, nvec, st_); else go<128, 1, 8, false, true>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 8) { if (k4) go<64, 2, 8, true, true>(xp, qp, sp, rows, nvec, st_); else go<128, 2, 8, true, true>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 10) { if (k4) go<128, 1, 4, false, true, 12>(xp, qp, sp, rows, nvec, st_); else go<256, 1, 4, false, true, 6>(xp, qp, sp, rows, nvec, st_); }
  else if (v == 11) { if (k4) go<128, 1, 4, false, true, 16>(xp, qp, sp, rows, nvec, st_); else go<256, 1, 4, false, true, 8>(xp, qp, sp, rows, nvec, st_); }
  else TORCH_CHECK(false, "variant");
}
