// The activation side of the weight-only mma kernel's implicit-GEMM form (wo_gemm_kernel with kConv, session 54): a
// thread's x rows are output pixels, and each 16-byte chunk of a stage is copied from the NHWC input at the pixel's
// filter tap, or zero-filled where the tap lies in the padding or the column past k_real (WoConv, wo_common.cuh).
#pragma once
#include "wo_common.cuh"

namespace cg_wo {

// kRows rows per thread (the kernel's kXPer): row j is CTA row xr0 + j * step.
template <int kRows>
struct ConvRows {
  // Each row's input origin (oh * stride - pad, ow * stride - pad), packed as two 16-bit halves (row high), and that
  // origin's element offset in x (x holds < 2^31 elements; negative or past the image where the origin lies in the
  // padding: only offsets of taps inside the image are dereferenced). Two registers per row: the first form, with a
  // 64-bit offset and two coordinates, cost 15-35 more registers per thread and halved the 8-warp CTAs' occupancy.
  int off[kRows], hw[kRows];

  // r0: the CTA's first output pixel (its row block), m: its rows (rows >= m are never copied).
  __device__ __forceinline__ void init(WoConv const& cv, int r0, int m, int xr0, int step) {
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const int r = xr0 + j * step;
      const int pix = r0 + (r < m ? r : 0);
      const int b = pix / (cv.p * cv.q), rem = pix - b * (cv.p * cv.q);
      const int oh = rem / cv.q, ow = rem - oh * cv.q;
      const int h0 = oh * cv.stride_h - cv.pad_h, w0 = ow * cv.stride_w - cv.pad_w;
      hw[j] = static_cast<int>((static_cast<uint32_t>(h0) << 16) | (static_cast<uint32_t>(w0) & 0xffffu));
      off[j] = ((b * cv.h + h0) * cv.w + w0) * cv.c;
    }
  }

  // One stage's copies of the thread's chunk column xcc (its K column kk = (tap, channel): one division pair per
  // stage, shared by the rows) into the stage's x tile at shared address xs (rows of kRowBytes, chunks swizzled by
  // row % 8 as the GEMM's). live: the chunk lies in a K tile the stage holds.
  template <typename T, int kRowBytes>
  __device__ __forceinline__ void load(WoConv const& cv, const T* x, uint32_t xs, int kk, bool live, int m, int xr0,
                                       int step, int xcc) const {
    live = live && kk < cv.k_real;
    int dh = 0, dw = 0, koff = 0;
    if (live) {
      const int tap = kk / cv.c, ch = kk - tap * cv.c;
      const int fr = tap / cv.kw, fs = tap - fr * cv.kw;
      dh = fr * cv.dil_h;
      dw = fs * cv.dil_w;
      koff = (dh * cv.w + dw) * cv.c + ch;
    }
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const int r = xr0 + j * step;
      if (r < m) {
        const uint32_t dst = xs + r * kRowBytes + ((xcc ^ (r & 7)) * 16);
        const int hh = (hw[j] >> 16) + dh, ww = static_cast<int16_t>(hw[j] & 0xffff) + dw;
        if (live && static_cast<unsigned>(hh) < static_cast<unsigned>(cv.h) &&
            static_cast<unsigned>(ww) < static_cast<unsigned>(cv.w))
          cp_async16(dst, x + (off[j] + koff));
        else
          cp_async16_zero(dst, x);  // padding, or a column past k_real
      }
    }
  }
};

}  // namespace cg_wo
