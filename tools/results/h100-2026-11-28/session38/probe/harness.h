// Session 38 probes' shared host code (nt_probe.cu, xh_probe.cu, tx_probe.cu; moved here from the three after calls 1-5
// ran, same logic): per shape, random int8 / e4m3 operands (weights in copies rotated past L2, the activation also as
// float16 for the xh forms), per kind the library's rule beside the probe's forms, each output checked against the
// rule's (bit-identical, or rel. L2 error, BAD above 1e-3), then timed in alternation (session 37's probe_common.h:
// batches of 20 launches, 9 rounds, medians). "%" is the weight bytes at the 1 GiB copy rate of the same process.
#pragma once
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "../../../../../cutlass_gemm/runtime/csrc/gemv_w8a8.cu"
#include "../../session37/probe/probe_common.h"

namespace h38 {
using B = __nv_bfloat16;
using Launch = cudaError_t (*)(cg_gemv::GemvArgs, cudaStream_t, int);
struct Form {
  std::string name;
  Launch fn;
  bool f16x = false;  // the activation as float16 (xh_kernel.cuh's kXH = 1)
};
struct Kind {
  const char* name;
  bool fp8;
  int block, shift;  // block 0: per-token x per-channel scales
  std::vector<Form> forms;
};
using Shape = std::array<int, 3>;

// A probe kernel's launch: ceil(N / (16 tiles)) CTAs of `warps` warps, each warp prefetching `warp_tiles` m16 tiles'
// first chunks before its wait (pdl.cuh's budget over the CTAs resident at once: `tps` threads and, with `smem` bytes of
// dynamic shared memory each, what 220 KB holds).
template <typename... KArgs>
cudaError_t launch_rows(void (*kernel)(KArgs...), int tiles, int warps, int warp_tiles, int tps, size_t smem,
                        cg_gemv::GemvArgs a, cudaStream_t s, int sms) {
  const dim3 grid(static_cast<unsigned>((a.n + 16 * tiles - 1) / (16 * tiles)));
  int per_sm = std::max(1, tps / (warps * 32));
  if (smem) per_sm = std::max(1, std::min<int>(per_sm, static_cast<int>((220 << 10) / (smem + warps * 1024))));
  const int64_t resident = std::min<int64_t>(grid.x, int64_t(sms) * per_sm);
  const int pf = cg_pdl::prefetch_units(resident, warps, 16 * warp_tiles * cg_gemv::kChunk);
  return cg_pdl::launch(kernel, grid, dim3(warps * 32), smem, s, true, a, pf);
}

// The value of an e4m3 code (finite codes only: the probes' data has none of 0x7f / 0xff).
inline float e4m3_value(uint8_t v) {
  const int s = v >> 7, e = (v >> 3) & 15, m = v & 7;
  const float mag = e == 0 ? std::ldexp(float(m), -9) : std::ldexp(1.0f + m / 8.0f, e - 7);
  return s ? -mag : mag;
}
inline float bf2f(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// The rule's launch of one call (the library's launcher, as the op runs it).
inline int rule_call(Kind const& kind, const uint8_t* x, const uint8_t* w, void* out, int m, int n, int k, const float* sa,
                     const float* sb, cudaStream_t st) {
  if (!kind.block) {
    auto fn = kind.fp8 ? &cg::launch<true, B, true, true> : &cg::launch<false, B, true, true>;
    return fn(x, w, out, m, n, k, k, k, n, sa, sb, nullptr, nullptr, nullptr, nullptr, nullptr, 0, st, 0);
  }
  cg::GemvBlockCall call{};
  call.a = x, call.w = w, call.out = out, call.scale_a = sa, call.scale_b = sb;
  call.lda = k, call.ldw = k, call.ldo = n, call.sa_rs = k / kind.block, call.sa_cs = 1;
  call.sb_rs = k / kind.block, call.sb_cs = 1, call.m = m, call.n = n, call.k = k;
  call.block = kind.block, call.sb_shift = kind.shift, call.fp8 = kind.fp8, call.bf16 = true;
  call.stream = st;
  return cg::gemv_block_launch(call);
}

// rel. L2 error of `got` against `ref` (bf16 bits), or "bit-identical" / "NON-FINITE".
inline std::string compare(std::vector<uint16_t> const& got, std::vector<uint16_t> const& ref) {
  double num = 0, den = 0;
  bool finite = true, same = true;
  for (size_t e = 0; e < ref.size(); ++e) {
    const double u = bf2f(got[e]), v = bf2f(ref[e]);
    finite = finite && std::isfinite(u) && std::isfinite(v);
    same = same && got[e] == ref[e];
    num += (u - v) * (u - v);
    den += v * v;
  }
  if (!finite) return "NON-FINITE";
  if (same) return "bit-identical";
  char buf[64];
  snprintf(buf, sizeof buf, "rel err %.1e%s", std::sqrt(num / den), std::sqrt(num / den) > 1e-3 ? " BAD" : "");
  return buf;
}

// Every (shape, kind): the rule and the kind's forms, checked, then timed. `before` runs first (a probe's own table).
inline int run(int argc, char** argv, std::vector<Kind> const& kinds, std::vector<Shape> const& shapes,
               std::function<void(cudaStream_t, int, int)> const& before = nullptr) {
  int sms = 0, clk = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  const double gbps = copy_gbps(st);
  printf("%s, %d SMs, %d MHz; 1 GiB device copy %.0f GB/s (read + written); floor = weight bytes at that rate\n\n",
         argc > 1 ? argv[1] : "GPU", sms, clk / 1000, gbps);
  if (before) before(st, sms, clk);
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
    const double floor_us = wbytes / (gbps * 1e3);
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
                          if (rule_call(kind, dx, ws[c], o, m, n, k, dsa, dsb, st)) {
                            printf("rule: %s\n", cg::gemv_w8a8_last_error().c_str());
                            exit(2);
                          }
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
        notes[i] = compare(got, ref);
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
}  // namespace h38
