// Torch glue of the weight-only implicit-GEMM convolution (wo_conv.cuh). Python validates the arguments first
// (cutlass_gemm/ops/conv_wo.py); the TORCH_CHECKs here are the last line only. Its kernels compile in this unit of
// their own, beside the GEMM's (wo_ops.cu), so that ninja builds the two in parallel.
#include <ATen/ATen.h>

#include <vector>

#include "alloc.h"
#include "ext_msg.h"
#include "wo_conv.cuh"
#include "wo_ops.h"
#include "wo_run.h"

namespace cg {

namespace {

constexpr int64_t kDequantConv = -1;  // wo_conv_layer's "dequant_cudnn" route (wo_ops.h)

// The "dequant_cudnn" route of the layer's eager call, as ops/conv_wo.py `_dequant_conv` takes it: x (N, C, H, W)
// channels_last; the (n, k) weight written by one dequantization kernel is the channels_last (n, C, kh, kw) weight of
// at::conv2d over its first kh * kw * C columns (the (kh, kw, C) order of quant.conv_weight_matrix), so neither needs
// a copy or a view op. A 1x1, stride-1, unpadded conv (here only where K was padded past C) is a GEMM over the pixel
// rows instead, the weight's first C columns read in place: cuDNN would copy that strided weight first.
at::Tensor dequant_conv(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                        c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias, int64_t bits,
                        int64_t group_size, int64_t n, std::vector<int64_t> const& g) {
  const int64_t c = x.size(1), k = qweight.size(1) / bits;
  TORCH_CHECK(g[0] * g[1] * c <= k, "wo_conv_layer: the packed weight's K is smaller than kh * kw * C");
  at::Tensor w2d = empty_dev({n, k}, x.scalar_type(), x.get_device());
  wo_dequant_into(qweight, scales, zeros, bits, group_size, n, k, w2d.data_ptr());
  if (g[0] == 1 && g[1] == 1 && g[2] == 1 && g[3] == 1 && g[4] == 0 && g[5] == 0) {
    const int64_t b = x.size(0), h = x.size(2), w = x.size(3), rows = b * h * w;
    at::Tensor out = empty_dev_channels_last({b, n, h, w}, x.scalar_type(), x.get_device());
    at::Tensor o2 = strided_over(out, {rows, n}, {n, 1});
    at::Tensor x2 = strided_over(x, {rows, c}, {c, 1}), wt = strided_over(w2d, {c, n}, {1, k});
    if (bias.has_value()) at::addmm_out(o2, *bias, x2, wt);
    else at::mm_out(o2, x2, wt);
    return out;
  }
  at::Tensor wt = strided_over(w2d, {n, c, g[0], g[1]}, {k, 1, g[1] * c, c});
  return at::conv2d(x, wt, bias, {g[2], g[3]}, {g[4], g[5]}, {g[6], g[7]}, 1);
}

// Both entries: x is (N, H, W, C) contiguous, or with `nchw` an (N, C, H, W) tensor in channels_last memory (the same
// bytes); the output likewise (N, P, Q, Co) contiguous, or (N, Co, P, Q) channels_last.
at::Tensor conv_call(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                     c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias, int64_t bits,
                     int64_t group_size, int64_t n, std::vector<int64_t> const& geometry, int64_t split, int64_t variant,
                     bool nchw) {
  TORCH_CHECK(geometry.size() == 8, "wo_conv: geometry is (kh, kw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w)");
  TORCH_CHECK(x.is_cuda() && x.dim() == 4, "wo_conv: x must be a 4-D CUDA tensor");
  TORCH_CHECK(nchw ? x.is_contiguous(at::MemoryFormat::ChannelsLast) : x.is_contiguous(),
              nchw ? "wo_conv_layer: x must be channels_last" : "wo_conv: x must be a contiguous (N, H, W, C) tensor");
  TORCH_CHECK(x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16, "wo_conv: x must be float16 or bfloat16");
  TORCH_CHECK(reinterpret_cast<uintptr_t>(x.data_ptr()) % 16 == 0, "wo_conv: x must be 16-byte aligned");
  TORCH_CHECK(scales.scalar_type() == x.scalar_type(), "wo_conv: scales must have x's dtype");
  TORCH_CHECK(qweight.is_cuda() && qweight.scalar_type() == at::kInt && qweight.is_contiguous(), "wo_conv: bad qweight");
  TORCH_CHECK(bits == 4 || bits == 8, "wo_conv: bits must be 4 or 8");
  const int64_t kh = geometry[0], kw = geometry[1], sh = geometry[2], sw = geometry[3], ph = geometry[4],
                pw = geometry[5], dh = geometry[6], dw = geometry[7];
  TORCH_CHECK(kh >= 1 && kw >= 1 && sh >= 1 && sw >= 1 && ph >= 0 && pw >= 0 && dh >= 1 && dw >= 1,
              "wo_conv: bad geometry");
  if (nchw && variant == kDequantConv) return dequant_conv(x, qweight, scales, zeros, bias, bits, group_size, n, geometry);
  const int64_t batch = x.size(0), h = x.size(nchw ? 2 : 1), w = x.size(nchw ? 3 : 2), c = x.size(nchw ? 1 : 3);
  TORCH_CHECK(c % 8 == 0, "wo_conv: channels must be a multiple of 8");
  // the kernel's pixel origins are 32-bit element offsets and 16-bit signed coordinates (wo_gemm.cuh)
  TORCH_CHECK(x.numel() < (int64_t{1} << 31) && h + ph < 16384 && w + pw < 16384,
              "wo_conv: x must hold < 2^31 elements, and H + pad_h, W + pad_w < 16384");
  const int64_t k = qweight.size(1) / bits, k_real = kh * kw * c;
  TORCH_CHECK(k % cg_wo::kTileK == 0 && k_real <= k && k - k_real < 128 + cg_wo::kTileK,
              msg("wo_conv: the packed weight's K = ", k, " does not fit kh * kw * C = ", k_real).c_str());
  const int64_t p = cg_wo::wo_conv_out(h, kh, sh, ph, dh), q = cg_wo::wo_conv_out(w, kw, sw, pw, dw);
  TORCH_CHECK(p >= 1 && q >= 1, "wo_conv: the filter does not fit the padded input");
  const int64_t m = batch * p * q;
  TORCH_CHECK(m <= cg_wo::kMaxRowBlockM, msg("wo_conv: at most ", cg_wo::kMaxRowBlockM, " output pixels").c_str());
  const cg_wo::ActType t = x.scalar_type() == at::kHalf ? cg_wo::ActType::kHalf : cg_wo::ActType::kBFloat16;
  const cg_wo::WoKernel kern = cg_wo::wo_conv_select(t, static_cast<int>(bits), zeros.has_value(), static_cast<int>(variant));
  TORCH_CHECK(kern.fn != nullptr, msg("wo_conv: variant ", variant, " has no convolution form").c_str());
  at::Tensor out = nchw ? empty_dev_channels_last({batch, n, p, q}, x.scalar_type(), x.get_device())
                        : empty_dev({batch, p, q, n}, x.scalar_type(), x.get_device());
  if (m == 0) return out;
  cg_wo::WoConv conv{};
  conv.h = static_cast<int>(h), conv.w = static_cast<int>(w), conv.c = static_cast<int>(c);
  conv.p = static_cast<int>(p), conv.q = static_cast<int>(q), conv.kw = static_cast<int>(kw);
  conv.stride_h = static_cast<int>(sh), conv.stride_w = static_cast<int>(sw);
  conv.pad_h = static_cast<int>(ph), conv.pad_w = static_cast<int>(pw);
  conv.dil_h = static_cast<int>(dh), conv.dil_w = static_cast<int>(dw);
  conv.k_real = static_cast<int>(k_real);
  run_wo(x, x.data_ptr(), c, m, k, qweight, scales, zeros, bias, group_size, n, split, kern, out.data_ptr(), &conv);
  return out;
}

}  // namespace

at::Tensor wo_conv(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                   c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias, int64_t bits,
                   int64_t group_size, int64_t n, std::vector<int64_t> const& geometry, int64_t split, int64_t variant) {
  return conv_call(x, qweight, scales, zeros, bias, bits, group_size, n, geometry, split, variant, false);
}

at::Tensor wo_conv_layer(at::Tensor const& x, at::Tensor const& qweight, at::Tensor const& scales,
                         c10::optional<at::Tensor> const& zeros, c10::optional<at::Tensor> const& bias, int64_t bits,
                         int64_t group_size, int64_t n, std::vector<int64_t> const& geometry, int64_t variant) {
  return conv_call(x, qweight, scales, zeros, bias, bits, group_size, n, geometry, 0, variant, true);
}

std::vector<int64_t> wo_conv_variants() {
  return std::vector<int64_t>(std::begin(cg_wo::kWoConvVariants), std::end(cg_wo::kWoConvVariants));
}

}  // namespace cg
