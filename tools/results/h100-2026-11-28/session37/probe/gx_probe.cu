// Session 37 probe (issue 13's decode line at 16 x 4096^2 and 16 x 7168 x 2048): the W8A8 GEMV's forms at the small
// shapes. Call 2 (rd_probe) found plain 16-byte read streams of these 14.7-16.8 MB at 85-86% of the copy-rate floor with
// 1024-2048 threads per SM, against the library's GEMV at 64-72%: here the GEMV (gemv_w8a8.cuh) with x in shared memory
// (kXS: the x loads off the weight stream's registers and L1 / L2 path), deeper steps and more threads per SM, every
// warp count, per token (int8) and block-scaled (int8 B = 128 / 64, e4m3 128 x 128), against the library's rule.
// Each output against the rule's (rel. L2 error; int8 per token: bit for bit). Batches of 20 launches on weight copies
// rotated past L2, 9 rounds alternating, medians.
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o gxp gx_probe.cu && ./gxp
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../../../../../cutlass_gemm/runtime/csrc/gemv_w8a8.cu"
#include "probe_common.h"


using B = __nv_bfloat16;
using Launch = cudaError_t (*)(cg_gemv::GemvArgs, int, cudaStream_t);

struct Form { const char* name; Launch fn; };

// The forms of one kernel kind (fp8 or not, kBC): (chunks per step, x in shared memory, threads per SM).
template <bool kF, int kBC>
std::vector<Form> forms() {
  return {
      {"u4 reg 512", &cg::launch_form<kF, B, 2, kBC, 4, false, 512>},
      {"u2 reg 1024", &cg::launch_form<kF, B, 2, kBC, 2, false, 1024>},
      {"u4 xs 512", &cg::launch_form<kF, B, 2, kBC, 4, true, 512>},
      {"u4 xs 1024", &cg::launch_form<kF, B, 2, kBC, 4, true, 1024>},
      {"u8 xs 512", &cg::launch_form<kF, B, 2, kBC, 8, true, 512>},
      {"u2 xs 1024", &cg::launch_form<kF, B, 2, kBC, 2, true, 1024>},
  };
}

static float bf2f(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

int main(int argc, char** argv) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  const double copy_gbps = argc > 2 ? atof(argv[2]) : 2990.0;
  printf("%s, %d SMs; floor = weight bytes at %.0f GB/s (call 2's 1 GiB device copy)\n\n", argc > 1 ? argv[1] : "GPU",
         sms, copy_gbps);
  struct Kind { const char* name; bool fp8; int block, shift; std::vector<Form> forms; };
  std::vector<Kind> kinds = {{"int8 per-token", false, 0, 0, forms<false, 0>()},
                             {"int8 B=128", false, 128, 0, forms<false, 2>()},
                             {"int8 B=64", false, 64, 0, forms<false, 1>()},
                             {"e4m3 128x128", true, 128, 7, forms<true, 2>()}};
  const int shapes[][3] = {{16, 4096, 4096}, {16, 7168, 2048}, {16, 8192, 4096}, {8, 4096, 4096}};
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
    std::vector<float> hs(int64_t(std::max(m, n)) * (k / 64));
    for (auto& v : hs) v = 0.001f + 0.002f * (rand() / float(RAND_MAX));
    float *dsa, *dsb;
    CK(cudaMalloc(&dsa, hs.size() * 4));
    CK(cudaMalloc(&dsb, hs.size() * 4));
    CK(cudaMemcpy(dsa, hs.data(), hs.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dsb, hs.data(), hs.size() * 4, cudaMemcpyHostToDevice));
    printf("%d x %d x %d (%d weight copies rotated), floor %.2f us\n", m, n, k, copies, wbytes / (copy_gbps * 1e3));
    for (auto const& kind : kinds) {
      auto args_of = [&](int c, void* out) {
        cg_gemv::GemvArgs a{};
        a.a = dx, a.w = ws[c], a.out = out, a.scale_a = dsa, a.scale_b = dsb, a.bias = nullptr;
        a.lda = k, a.ldw = k, a.ldo = n, a.m = m, a.n = n, a.k = k;
        a.sa_vec = a.sb_vec = true;
        if (kind.block) {
          a.sa_rs = k / kind.block, a.sa_cs = 1, a.sb_rs = k / kind.block, a.sb_cs = 1, a.sb_shift = kind.shift;
        }
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
                            rc = cg::launch<false, B, true, true>(dx, ws[c], o, m, n, k, k, k, n, dsa, dsb, nullptr, nullptr,
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
      const auto plan = cg::gemv_w8a8_plan(m, n, k, kind.block);
      for (auto const& f : kind.forms)
        for (int kw : {4, 8, 16}) {
          void* o = out_buf();
          rows.push_back({std::string(f.name) + " w" + std::to_string(kw), [&, o, f, kw](int c) {
                            const cudaError_t e = f.fn(args_of(c, o), kw, st);
                            if (e != cudaSuccess) {
                              printf("    %s w%d: %s\n", f.name, kw, cudaGetErrorString(e));
                              cudaGetLastError();
                              throw 1;
                            }
                          }, o});
        }
      for (size_t i = 0; i < rows.size();) {  // a form that cannot launch here is dropped (named above)
        try {
          rows[i].call(0);
          ++i;
        } catch (int) {
          rows.erase(rows.begin() + i);
        }
      }
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
      const double floor_us = wbytes / (copy_gbps * 1e3);
      printf("  %s (rule: %lld warps, %lld chunks a step)\n", kind.name, (long long)plan[0], (long long)plan[3]);
      for (int i = 0; i < nr; ++i) {
          printf("    %-18s %7.2f us (%3.0f%%)  min %.2f max %.2f  %s\n", rows[i].name.c_str(), t[i][4], 100 * floor_us / t[i][4],
               t[i][0], t[i][8], notes[i].c_str());
      }
      fflush(stdout);
      for (auto p : outs) cudaFree(p);
    }
    printf("\n");
    for (auto p : ws) cudaFree(p);
    cudaFree(dx), cudaFree(dsa), cudaFree(dsb);
  }
  return 0;
}
