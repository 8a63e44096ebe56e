// Session 38 probe (call 4): the e4m3 decode GEMV with the activation read as float16 (xh_kernel.cuh, kXH = 1: half the
// F2FP conversions) or converted in the kernel by explicit cvt + f16 mma (kXH = 2, the control), against the library's
// rule and its own forms (nt_kernel.cuh, kNT = 1), per-token and 128 x 128 block scales, M = 16. Each output against
// the rule's (rel. L2 error). Batches of 20 launches on weight copies rotated past L2, 9 rounds alternating, medians.
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o xhp xh_probe.cu && ./xhp H100
#include <cmath>
#include <cstring>
#include <string>

#include "../../../../../cutlass_gemm/runtime/csrc/gemv_w8a8.cu"
#include "nt_kernel.cuh"
#include "xh_kernel.cuh"
#include "probe_common.h"

using B = __nv_bfloat16;

template <bool kF, int kBC, int kNT, int kU, int kW, int kAbl = 0>
cudaError_t form(cg_gemv::GemvArgs a, cudaStream_t s, int sms) {
  const dim3 grid(static_cast<unsigned>((a.n + 16 * kNT - 1) / (16 * kNT)));
  const int per_sm = std::max(1, 512 / (kW * 32));
  const int64_t resident = std::min<int64_t>(grid.x, int64_t(sms) * per_sm);
  const int pf = cg_pdl::prefetch_units(resident, kW, 16 * kNT * cg_gemv::kChunk);
  return cg_pdl::launch(nt::gemv_nt<kF, B, 2, kW, kU, kBC, kNT, 512, kAbl>, grid, dim3(kW * 32), 0, s, true, a, pf);
}
using Launch = cudaError_t (*)(cg_gemv::GemvArgs, cudaStream_t, int);
struct Form { std::string name; Launch fn; };
template <int kBC, int kU, int kW, int kXH>
cudaError_t xhf(cg_gemv::GemvArgs a, cudaStream_t s, int sms) {
  const dim3 grid(static_cast<unsigned>((a.n + 15) / 16));
  const int per_sm = std::max(1, 512 / (kW * 32));
  const int64_t resident = std::min<int64_t>(grid.x, int64_t(sms) * per_sm);
  const int pf = cg_pdl::prefetch_units(resident, kW, 16 * cg_gemv::kChunk);
  return cg_pdl::launch(xh::gemv_xh<B, 2, kW, kU, kBC, kXH>, grid, dim3(kW * 32), 0, s, true, a, pf);
}
struct XForm { std::string name; Launch fn; bool f16x; };
template <int kBC>
std::vector<XForm> forms() {
  return {{"u4 w4", &form<true, kBC, 1, 4, 4>, false},     {"u4 w8", &form<true, kBC, 1, 4, 8>, false},
          {"u2 w8", &form<true, kBC, 1, 2, 8>, false},     {"cvt u4 w4", &xhf<kBC, 4, 4, 2>, false},
          {"cvt u4 w8", &xhf<kBC, 4, 8, 2>, false},        {"x16 u4 w4", &xhf<kBC, 4, 4, 1>, true},
          {"x16 u4 w8", &xhf<kBC, 4, 8, 1>, true},         {"x16 u2 w8", &xhf<kBC, 2, 8, 1>, true},
          {"x16 u2 w4", &xhf<kBC, 2, 4, 1>, true}};
}

// The value of an e4m3 code (finite codes only: the probe's data has none of 0x7f / 0xff).
static float e4m3_value(uint8_t v) {
  const int s = v >> 7, e = (v >> 3) & 15, m = v & 7;
  const float mag = e == 0 ? std::ldexp(float(m), -9) : std::ldexp(1.0f + m / 8.0f, e - 7);
  return s ? -mag : mag;
}

static float bf2f(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

int main(int argc, char** argv) {
  int sms = 0, clk = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  const double copy_gbps = ::copy_gbps(st);
  printf("%s, %d SMs, %d MHz; 1 GiB device copy %.0f GB/s (read + written); floor = weight bytes at that rate\n\n",
         argc > 1 ? argv[1] : "GPU", sms, clk / 1000, copy_gbps);
  struct Kind { const char* name; bool fp8; int block, shift; std::vector<XForm> forms; };
  std::vector<Kind> kinds = {{"e4m3 per-token", true, 0, 0, forms<0>()}, {"e4m3 128x128", true, 128, 7, forms<2>()}};
  const int shapes[][3] = {{16, 4096, 4096}, {16, 7168, 2048}, {16, 6144, 4096}, {16, 8192, 4096},
                           {16, 8192, 8192}, {16, 14336, 4096}, {16, 28672, 4096}, {8, 4096, 4096}};
  for (auto const& sh : shapes) {
    const int m = sh[0], n = sh[1], k = sh[2];
    const int64_t wbytes = int64_t(n) * k;
    const int copies = std::max(2, static_cast<int>((256ll << 20) / wbytes) + 1);
    std::vector<uint8_t*> ws(copies);
    std::vector<uint8_t> hw(wbytes);
    srand(n + k + m);
    for (auto& v : hw) v = static_cast<uint8_t>(rand()) & 0x7e;
    for (int c = 0; c < copies; ++c) {
      CK(cudaMalloc(&ws[c], wbytes));
      CK(cudaMemcpy(ws[c], hw.data(), wbytes, cudaMemcpyHostToDevice));
    }
    std::vector<uint8_t> hx(int64_t(m) * k);
    for (auto& v : hx) v = static_cast<uint8_t>(rand()) & 0x7e;
    uint8_t* dx;
    CK(cudaMalloc(&dx, hx.size()));
    CK(cudaMemcpy(dx, hx.data(), hx.size(), cudaMemcpyHostToDevice));
    std::vector<__half> hxh(hx.size());
    for (size_t i = 0; i < hx.size(); ++i) hxh[i] = __float2half_rn(e4m3_value(hx[i]));  // exact
    __half* dxh;
    CK(cudaMalloc(&dxh, hxh.size() * 2));
    CK(cudaMemcpy(dxh, hxh.data(), hxh.size() * 2, cudaMemcpyHostToDevice));
    std::vector<float> hs(int64_t(std::max(m, n)) * (k / 64));
    for (auto& v : hs) v = 0.001f + 0.002f * (rand() / float(RAND_MAX));
    float *dsa, *dsb;
    CK(cudaMalloc(&dsa, hs.size() * 4));
    CK(cudaMalloc(&dsb, hs.size() * 4));
    CK(cudaMemcpy(dsa, hs.data(), hs.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dsb, hs.data(), hs.size() * 4, cudaMemcpyHostToDevice));
    const double floor_us = wbytes / (copy_gbps * 1e3);
    printf("%d x %d x %d (%d weight copies rotated), floor %.2f us\n", m, n, k, copies, floor_us);
    for (auto const& kind : kinds) {
      auto args_of = [&](int c, void* out, bool f16x) {
        cg_gemv::GemvArgs a{};
        a.a = f16x ? reinterpret_cast<const uint8_t*>(dxh) : dx;
        a.w = ws[c], a.out = out, a.scale_a = dsa, a.scale_b = dsb, a.bias = nullptr;
        a.lda = k, a.ldw = k, a.ldo = n, a.m = m, a.n = n, a.k = k;
        a.sa_vec = a.sb_vec = true;
        if (kind.block) a.sa_rs = k / kind.block, a.sa_cs = 1, a.sb_rs = k / kind.block, a.sb_cs = 1, a.sb_shift = kind.shift;
        return a;
      };
      struct Row { std::string name; std::function<void(int)> call; void* out; };
      std::vector<Row> rows;
      std::vector<void*> outs;
      auto out_buf = [&] {
        void* p;
        CK(cudaMalloc(&p, int64_t(m) * n * 2));
        CK(cudaMemset(p, 0xff, int64_t(m) * n * 2));
        outs.push_back(p);
        return p;
      };
      {
        void* o = out_buf();
        rows.push_back({"library rule", [&, o](int c) {
                          int rc;
                          if (!kind.block) {
                            rc = cg::launch<true, B, true, true>(dx, ws[c], o, m, n, k, k, k, n, dsa, dsb, nullptr, nullptr,
                                                                  nullptr, nullptr, nullptr, 0, st, 0);
                          } else {
                            cg::GemvBlockCall call{};
                            call.a = dx, call.w = ws[c], call.out = o, call.scale_a = dsa, call.scale_b = dsb;
                            call.lda = k, call.ldw = k, call.ldo = n, call.sa_rs = k / kind.block, call.sa_cs = 1;
                            call.sb_rs = k / kind.block, call.sb_cs = 1, call.m = m, call.n = n, call.k = k;
                            call.block = kind.block, call.sb_shift = kind.shift, call.fp8 = kind.fp8, call.bf16 = true;
                            call.stream = st;
                            rc = cg::gemv_block_launch(call);
                          }
                          if (rc) { printf("rule: %s\n", cg::gemv_w8a8_last_error().c_str()); exit(2); }
                        }, o});
      }
      for (auto const& f : kind.forms) {
        void* o = out_buf();
        rows.push_back({f.name, [&, o, f](int c) {
                          const cudaError_t e = f.fn(args_of(c, o, f.f16x), st, sms);
                          if (e != cudaSuccess) { printf("    %s: %s\n", f.name.c_str(), cudaGetErrorString(e)); exit(3); }
                        }, o});
      }
      for (auto& r : rows) r.call(0);
      CK(cudaStreamSynchronize(st));
      std::vector<uint16_t> ref(int64_t(m) * n), got(int64_t(m) * n);
      CK(cudaMemcpy(ref.data(), rows[0].out, ref.size() * 2, cudaMemcpyDeviceToHost));
      std::vector<std::string> notes(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        CK(cudaMemcpy(got.data(), rows[i].out, got.size() * 2, cudaMemcpyDeviceToHost));
        double num = 0, den = 0;
        bool finite = true, same = true;
        for (size_t e = 0; e < ref.size(); ++e) {
          const double u = bf2f(got[e]), v = bf2f(ref[e]);
          finite = finite && std::isfinite(u) && std::isfinite(v);
          same = same && got[e] == ref[e];
          num += (u - v) * (u - v);
          den += v * v;
        }
        char buf[96];
        snprintf(buf, sizeof buf, "%s", !finite ? "NON-FINITE" : same ? "bit-identical" : "");
        if (finite && !same) snprintf(buf, sizeof buf, "rel err %.1e%s", std::sqrt(num / den), std::sqrt(num / den) > 1e-3 ? " BAD" : "");
        notes[i] = buf;
      }
      const int nr = static_cast<int>(rows.size());
      auto t = time_alternating(nr, [&](int i, int c) { rows[i].call(c); }, copies, st);
      const auto plan = cg::gemv_w8a8_plan(m, n, k, kind.block);
      printf("  %s (rule: %lld warps, %lld chunks a step)\n", kind.name, (long long)plan[0], (long long)plan[3]);
      for (int i = 0; i < nr; ++i)
        printf("    %-14s %7.2f us (%3.0f%%)  min %.2f max %.2f  %s\n", rows[i].name.c_str(), t[i][4], 100 * floor_us / t[i][4],
               t[i][0], t[i][8], notes[i].c_str());
      fflush(stdout);
      for (auto p : outs) cudaFree(p);
    }
    printf("\n");
    for (auto p : ws) cudaFree(p);
    cudaFree(dx), cudaFree(dxh), cudaFree(dsa), cudaFree(dsb);
  }
  return 0;
}
