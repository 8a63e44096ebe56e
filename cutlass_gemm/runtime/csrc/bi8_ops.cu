// Torch-facing launcher of the per-block int8 GEMM (bi8_launch.cuh): allocates the output and the
// split-K workspace and launches on the current stream. No host synchronisation.
#include <ATen/ATen.h>
#include <algorithm>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "alloc.h"
#include "ext_msg.h"
#include "bi8_launch.cuh"
#include "bi8_ops.h"
#include "gemv_w8a8.h"
#include "quant_ops.h"  // quant_groups
#include "wo_ops.h"  // split_counters

namespace cg {
namespace {

// The weight side of a block-scaled GEMV call (w (N, K) unit last stride, its scales, bias, output type, block, act);
// the caller fills the activation side (a, lda, scale_a and its strides, fp8), out, m and the stream.
GemvBlockCall gemv_call(at::Tensor const& w, at::Tensor const& scale_b, c10::optional<at::Tensor> const& bias,
                        at::ScalarType out_dtype, int64_t block, int64_t sb_shift, int64_t act) {
  const int64_t n = w.size(0), k = w.size(1), wrows = sb_shift == 7 ? (n + 127) / 128 : n;
  GemvBlockCall c{};
  c.w = w.data_ptr();
  c.scale_b = scale_b.data_ptr<float>();
  c.bias = bias.has_value() ? bias->data_ptr() : nullptr;
  c.ldw = n > 1 ? w.stride(0) : k;
  c.ldo = n;
  // a size-1 dimension's stride is arbitrary in torch (never used): make it harmless
  c.sb_rs = wrows > 1 ? scale_b.stride(0) : 0;
  c.sb_cs = k / block > 1 ? scale_b.stride(1) : 0;
  c.n = n;
  c.k = k;
  c.block = static_cast<int>(block);
  c.sb_shift = static_cast<int>(sb_shift);
  c.act = static_cast<int>(act);
  c.bf16 = out_dtype == at::kBFloat16;
  return c;
}

}  // namespace

at::Tensor bi8_gemm(at::Tensor const& a, at::Tensor const& w, at::Tensor const& scale_a, at::Tensor const& scale_b,
                    c10::optional<at::Tensor> const& bias, at::ScalarType out_dtype, int64_t block, int64_t act,
                    int64_t split) {
  TORCH_CHECK(a.is_cuda() && a.dim() == 2 && a.scalar_type() == at::kChar && a.stride(1) == 1, "bi8_gemm: bad a");
  TORCH_CHECK(w.is_cuda() && w.dim() == 2 && w.scalar_type() == at::kChar && w.stride(1) == 1, "bi8_gemm: bad w");
  TORCH_CHECK(scale_a.scalar_type() == at::kFloat && scale_b.scalar_type() == at::kFloat, "bi8_gemm: scales must be float32");
  TORCH_CHECK(out_dtype == at::kHalf || out_dtype == at::kBFloat16, "bi8_gemm: out_dtype must be float16 or bfloat16");
  TORCH_CHECK(block == 64 || block == 128, "bi8_gemm: block must be 64 or 128");
  TORCH_CHECK(act >= 0 && act <= 4, "bi8_gemm: bad activation code");
  const int64_t m = a.size(0), k = a.size(1), n = w.size(0);
  TORCH_CHECK(w.size(1) == k && k % block == 0 && k > 0, "bi8_gemm: K must match and be a multiple of the block");
  TORCH_CHECK(scale_a.dim() == 2 && scale_a.size(0) == m && scale_a.size(1) == k / block, "bi8_gemm: bad scale_a shape");
  TORCH_CHECK(scale_b.dim() == 2 && scale_b.size(0) == n && scale_b.size(1) == k / block, "bi8_gemm: bad scale_b shape");
  c10::cuda::CUDAGuard guard(a.device());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(a.get_device()).stream();
  at::Tensor out = empty_dev({m, n}, out_dtype, a.get_device());
  if (m == 0 || n == 0) return out;
  const cg_bi8::Bi8Kernel kern = cg_bi8::bi8_select(out_dtype == at::kBFloat16, static_cast<int>(block), static_cast<int>(m));
  const cg_bi8::Bi8Plan plan = cg_bi8::bi8_plan(kern, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                                                static_cast<int>(split));
  TORCH_CHECK(plan.err == cudaSuccess, msg("bi8_gemm: planning failed: ", cudaGetErrorString(plan.err)).c_str());
  cg_bi8::Bi8Args p{};
  at::Tensor ws;
  if (plan.splits > 1) {
    ws = empty_dev({plan.ws_floats}, at::kFloat, a.get_device());
    p.workspace = ws.data_ptr<float>();
    p.counters = split_counters(a, stream, static_cast<int64_t>(plan.mtiles) * plan.ntiles);
  }
  p.a = a.data_ptr<int8_t>();
  p.lda = m > 1 ? a.stride(0) : k;
  p.b = w.data_ptr<int8_t>();
  p.ldb = n > 1 ? w.stride(0) : k;
  // a size-1 dimension's stride is arbitrary in torch (never used): make it harmless
  p.sa = scale_a.data_ptr<float>();
  p.sa_rs = m > 1 ? scale_a.stride(0) : 0;
  p.sa_cs = k / block > 1 ? scale_a.stride(1) : 0;
  p.sb = scale_b.data_ptr<float>();
  p.sb_rs = n > 1 ? scale_b.stride(0) : 0;
  p.sb_cs = k / block > 1 ? scale_b.stride(1) : 0;
  p.bias = bias.has_value() ? bias->data_ptr() : nullptr;
  p.out = out.data_ptr();
  p.ldo = n;
  p.m = static_cast<int>(m);
  p.n = static_cast<int>(n);
  p.k = static_cast<int>(k);
  p.act = static_cast<int>(act);
  cudaError_t err = cg_bi8::launch_bi8_gemm(p, plan, stream);
  TORCH_CHECK(err == cudaSuccess, msg("cutlass_gemm per-block int8 kernel launch failed: ", cudaGetErrorString(err)).c_str());
  return out;
}

at::Tensor block_gemv(at::Tensor const& a, at::Tensor const& w, at::Tensor const& scale_a, at::Tensor const& scale_b,
                      c10::optional<at::Tensor> const& bias, at::ScalarType out_dtype, int64_t block, int64_t sb_shift,
                      int64_t act) {
  const bool fp8 = a.scalar_type() == at::kFloat8_e4m3fn;
  TORCH_CHECK(a.is_cuda() && a.dim() == 2 && (fp8 || a.scalar_type() == at::kChar) && a.stride(1) == 1, "block_gemv: bad a");
  TORCH_CHECK(w.is_cuda() && w.dim() == 2 && w.scalar_type() == a.scalar_type() && w.stride(1) == 1, "block_gemv: bad w");
  TORCH_CHECK(scale_a.scalar_type() == at::kFloat && scale_b.scalar_type() == at::kFloat, "block_gemv: scales must be float32");
  TORCH_CHECK(out_dtype == at::kHalf || out_dtype == at::kBFloat16, "block_gemv: out_dtype must be float16 or bfloat16");
  const int64_t m = a.size(0), k = a.size(1), n = w.size(0);
  TORCH_CHECK(block > 0 && w.size(1) == k && k % block == 0 && k > 0, "block_gemv: K must match and be a multiple of the block");
  const int64_t wrows = sb_shift == 7 ? (n + 127) / 128 : n;
  TORCH_CHECK(scale_a.dim() == 2 && scale_a.size(0) == m && scale_a.size(1) == k / block, "block_gemv: bad scale_a shape");
  TORCH_CHECK(scale_b.dim() == 2 && scale_b.size(0) == wrows && scale_b.size(1) == k / block, "block_gemv: bad scale_b shape");
  TORCH_CHECK(!bias.has_value() || (bias->scalar_type() == out_dtype && bias->numel() == n && bias->is_contiguous()),
              "block_gemv: bad bias");
  c10::cuda::CUDAGuard guard(a.device());
  at::Tensor out = empty_dev({m, n}, out_dtype, a.get_device());
  if (m == 0 || n == 0) return out;
  GemvBlockCall c = gemv_call(w, scale_b, bias, out_dtype, block, sb_shift, act);
  c.a = a.data_ptr();
  c.lda = m > 1 ? a.stride(0) : k;
  c.scale_a = scale_a.data_ptr<float>();
  c.sa_rs = m > 1 ? scale_a.stride(0) : 0;
  c.sa_cs = k / block > 1 ? scale_a.stride(1) : 0;
  c.fp8 = fp8;
  c.out = out.data_ptr();
  c.m = m;
  c.stream = c10::cuda::getCurrentCUDAStream(a.get_device()).stream();
  TORCH_CHECK(cg::gemv_block_launch(c) == 0, msg("cutlass_gemm block-scaled GEMV: ", cg::gemv_w8a8_last_error()).c_str());
  return out;
}

std::vector<int64_t> bi8_plan_info(int64_t m, int64_t n, int64_t k, int64_t block, bool bf16, int64_t split) {
  const cg_bi8::Bi8Kernel kern = cg_bi8::bi8_select(bf16, static_cast<int>(block), static_cast<int>(m));
  const cg_bi8::Bi8Plan p = cg_bi8::bi8_plan(kern, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                                             static_cast<int>(split));
  return {kern.bm, kern.bn, p.splits, static_cast<int64_t>(p.mtiles) * p.ntiles * p.splits};
}

c10::optional<at::Tensor> block_linear_fast(at::Tensor const& x, at::Tensor const& weight, at::Tensor const& weight_scale,
                                            c10::optional<at::Tensor> const& bias, int64_t block, int64_t sb_shift,
                                            at::ScalarType out_dtype, int64_t act, int64_t max_m, int64_t gemm_fn,
                                            int64_t gemm_ws_bytes, bool scale_col_major, int64_t pad_rows) {
  // Every condition the calls below rely on; anything else is the Python path's to validate and refuse.
  if (!x.is_cuda() || x.dim() < 1 || !weight.is_cuda() || weight.dim() != 2 || !weight.is_contiguous()) return c10::nullopt;
  const at::ScalarType xt = x.scalar_type(), wt = weight.scalar_type();
  if ((xt != at::kBFloat16 && xt != at::kHalf && xt != at::kFloat) || (wt != at::kChar && wt != at::kFloat8_e4m3fn))
    return c10::nullopt;
  if ((out_dtype != at::kBFloat16 && out_dtype != at::kHalf) || act < 0 || act > 4 || (block != 64 && block != 128))
    return c10::nullopt;
  if (sb_shift != 0 && (sb_shift != 7 || block != 128 || wt != at::kFloat8_e4m3fn)) return c10::nullopt;
  if ((sb_shift == 7) != (wt == at::kFloat8_e4m3fn)) return c10::nullopt;  // int8: per row and block; fp8: 128 x 128
  const int device = x.get_device();
  const int64_t n = weight.size(0), k = weight.size(1);
  if (weight.get_device() != device || n == 0 || k == 0 || k % block || x.size(-1) != k || x.stride(-1) != 1)
    return c10::nullopt;
  if (reinterpret_cast<uintptr_t>(weight.data_ptr()) % 16 || k % 16) return c10::nullopt;  // 16-byte weight rows
  const int64_t m = x.numel() / k;
  if (m < 1 || m >= (int64_t{1} << 31) || n >= (int64_t{1} << 31)) return c10::nullopt;
  const bool decode = m <= max_m;
  if (!decode && sb_shift == 7 && gemm_fn == 0) return c10::nullopt;  // no CUTLASS kernel looked up for this M
  const int64_t rows = std::max(m, pad_rows);  // the rows the CUTLASS kernel runs on
  if (rows >= (int64_t{1} << 31) || (pad_rows > m && (decode || gemm_fn == 0))) return c10::nullopt;
  if (!decode && gemm_fn != 0 && (gemm_ws_bytes < 0 || (scale_col_major && rows % 4))) return c10::nullopt;
  const int64_t wrows = sb_shift == 7 ? (n + 127) / 128 : n;
  if (!weight_scale.is_cuda() || weight_scale.get_device() != device || weight_scale.scalar_type() != at::kFloat ||
      weight_scale.dim() != 2 || weight_scale.size(0) != wrows || weight_scale.size(1) != k / block)
    return c10::nullopt;
  // the CUTLASS kernel reads a K-major weight scale with unit stride along K (its TMA / cp.async layout)
  if (!decode && gemm_fn != 0 && !weight_scale.is_contiguous()) return c10::nullopt;
  if (bias.has_value() && (!bias->is_cuda() || bias->get_device() != device || bias->scalar_type() != out_dtype ||
                           bias->numel() != n || !bias->is_contiguous() || reinterpret_cast<uintptr_t>(bias->data_ptr()) % 16))
    return c10::nullopt;
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = n;
  // The quantizer reads 16-byte vectors of rows it reaches by pointer: x contiguous (any leading dims) or a 2-D view of
  // aligned rows. Any other x, and per-block int8 above decode sizes off SM90 (the extension's tiled kernel, as the
  // op), go through the allocating calls (quant_groups copies a misaligned view once).
  const int64_t vec = 16 / x.element_size();
  const int64_t ldx = x.is_contiguous() ? k : (x.dim() == 2 ? x.stride(0) : 0);
  const bool rows_aligned = ldx > 0 && reinterpret_cast<uintptr_t>(x.data_ptr()) % 16 == 0 && k % vec == 0 &&
                            (m <= 1 || ldx % vec == 0);
  if (!rows_aligned || (!decode && gemm_fn == 0)) {
    const std::vector<at::Tensor> qs = quant_groups(x.reshape({m, k}), block, wt, false);
    if (decode) return block_gemv(qs[0], weight, qs[1], weight_scale, bias, out_dtype, block, sb_shift, act).view(shape);
    if (gemm_fn == 0) return bi8_gemm(qs[0], weight, qs[1], weight_scale, bias, out_dtype, block, act, 0).view(shape);
    return c10::nullopt;  // a misaligned x for the CUTLASS kernel: the Python path (rare; it copies as it must)
  }
  c10::cuda::OptionalCUDAGuard guard;  // the launchers set themselves up for the current device
  if (c10::cuda::current_device() != device) guard.set_index(static_cast<c10::DeviceIndex>(device));
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream();
  // One buffer: the quantized rows (rows, K), their scales (row-major (rows, K / B), or column-major with leading
  // dimension rows), the CUTLASS kernel's workspace; each part 256-byte aligned. The rows past m are left as allocated:
  // the output rows computed from them are never read (each depends on its own activation row and scales).
  const int64_t groups = k / block, q_bytes = round256(rows * k), s_bytes = round256(rows * groups * 4);
  const int64_t w_bytes = decode ? 0 : round256(std::max<int64_t>(gemm_ws_bytes, 1));
  at::Tensor buf = empty_dev({q_bytes + s_bytes + w_bytes}, at::kByte, device);
  char* base = static_cast<char*>(buf.data_ptr());
  float* scale = reinterpret_cast<float*>(base + q_bytes);
  quant_groups_to(x, m, ldx, block, wt, base, scale, !decode && scale_col_major, rows, stream);
  if (decode) {
    at::Tensor out = empty_dev(shape, out_dtype, device);
    GemvBlockCall c = gemv_call(weight, weight_scale, bias, out_dtype, block, sb_shift, act);
    c.a = base;
    c.lda = k;
    c.scale_a = scale;
    c.sa_rs = m > 1 ? groups : 0;
    c.sa_cs = groups > 1 ? 1 : 0;
    c.fp8 = wt == at::kFloat8_e4m3fn;
    c.out = out.data_ptr();
    c.m = m;
    c.stream = stream;
    if (gemv_block_launch(c) != 0) return c10::nullopt;  // nothing launched: the Python path raises the typed error
    return out;
  }
  // above decode sizes, the CUTLASS kernel the op would run (ops/blockwise.py launch, same arguments): blockwise fp8,
  // or per-block int8 on SM90 (the caller looked it up only where ops/blockwise_int8.py sm90_route serves the call)
  using BlockwiseLaunchFn = int (*)(void const*, void const*, void*, void const*, void const*, void const*, int64_t,
                                    int64_t, int64_t, int64_t, int64_t, int64_t, void*, size_t, void*);
  at::Tensor full = empty_dev(rows == m ? c10::IntArrayRef(shape) : c10::IntArrayRef({rows, n}), out_dtype, device);
  const int rc = reinterpret_cast<BlockwiseLaunchFn>(gemm_fn)(
      base, weight.data_ptr(), full.data_ptr(), scale, weight_scale.data_ptr(),
      bias.has_value() ? bias->data_ptr() : nullptr, rows, n, k, k, k, n, base + q_bytes + s_bytes,
      static_cast<size_t>(gemm_ws_bytes), stream);
  if (rc != 0) return c10::nullopt;  // nothing launched: the Python path reports the launcher's error, typed
  return rows == m ? full : leading_rows(full, shape);
}

}  // namespace cg
