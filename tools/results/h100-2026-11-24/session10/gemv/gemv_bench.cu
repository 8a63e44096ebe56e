// Session 10 harness: the W8A8 decode GEMV's register kernel (gemv_w8a8.cuh), a double-buffered copy of it (call 4)
// and a shared-memory ring kernel (call 2)
// (cutlass_gemm/runtime/csrc/gemv_w8a8.cuh), every output checked against a naive int32 reference kernel
// (int8: the same float32 epilogue, so equal bits), timed with CUDA events on weights rotated beyond L2.
// nvcc -std=c++17 -O3 -arch=sm_90 -I cutlass_gemm/runtime/csrc gemv_bench.cu -o gemv_bench
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "gemv_w8a8.cuh"

// The double-buffered register kernel measured in call 4 (slower than the library's single-buffer kernel at every
// decode shape but 1x14336x4096; not adopted). Call 4's log calls the library kernel "v1" and this one "pipe".
namespace cg_gemv {
// kUnroll chunks of 64 k per lane per step: 32 bytes of weight per chunk, so kUnroll KB per warp in flight
// for each of the 16-32 warps an SM holds (launch bounds: 1024 threads per SM, <= 64 registers).
template <bool kFp8, typename TOut, int kMT, int kWarpsK, int kUnroll>
__global__ void __launch_bounds__(kWarpsK * 32, 1024 / (kWarpsK * 32)) gemv_w8a8_kernel_pipe(GemvArgs p) {
  using Acc = typename std::conditional<kFp8, float, int>::type;
  constexpr int kAcc = kMT * 4;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kRows;
  // Rows past N (the last CTA when N % 16 != 0) and past M read a valid row instead: their products land in
  // accumulator rows / columns that are never stored.
  const uint8_t* w0 = p.w + static_cast<int64_t>(min(n0 + g, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* w1 = p.w + static_cast<int64_t>(min(n0 + g + 8, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* xr[kMT];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) xr[mt] = p.a + static_cast<int64_t>(min(mt * 8 + g, p.m - 1)) * p.lda + 16 * t;

  // This warp's contiguous range of 64-wide chunks (the last chunk may be partial: K % 16 == 0, so a lane's
  // 16 bytes are all in K or all past it).
  const int chunks = (p.k + kChunk - 1) / kChunk;
  const int c_begin = static_cast<int>(static_cast<int64_t>(chunks) * warp / kWarpsK);
  const int c_end = static_cast<int>(static_cast<int64_t>(chunks) * (warp + 1) / kWarpsK);

  Acc acc[kMT][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[mt][i] = Acc(0);

  // Double-buffered: the loads of the next kUnroll chunks are issued before the products of the current ones,
  // so a warp always has a step of weight in flight (without it, nothing is in flight while it computes).
  auto load = [&](uint4 (&wa)[kUnroll], uint4 (&wb)[kUnroll], int c) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int off = (c + u) * kChunk;  // the lane's 16 * t is in its row pointers
      const bool ok = c + u < c_end && off + 16 * t < p.k;
      wa[u] = ok ? ld_stream(w0 + off) : make_uint4(0, 0, 0, 0);
      wb[u] = ok ? ld_stream(w1 + off) : make_uint4(0, 0, 0, 0);
    }
  };
  auto compute = [&](const uint4 (&wa)[kUnroll], const uint4 (&wb)[kUnroll], int c) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int off = (c + u) * kChunk;
      const bool ok = c + u < c_end && off + 16 * t < p.k;
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        const uint4 xv = ok ? ld_keep(xr[mt] + off) : make_uint4(0, 0, 0, 0);
        mma_k32(acc[mt], wa[u].x, wb[u].x, wa[u].y, wb[u].y, xv.x, xv.y);
        mma_k32(acc[mt], wa[u].z, wb[u].z, wa[u].w, wb[u].w, xv.z, xv.w);
      }
    }
  };
  uint4 a0[kUnroll], b0[kUnroll], a1[kUnroll], b1[kUnroll];
  int c = c_begin;
  if (c < c_end) load(a0, b0, c);
  while (c < c_end) {
    if (c + kUnroll < c_end) load(a1, b1, c + kUnroll);
    compute(a0, b0, c);
    c += kUnroll;
    if (c >= c_end) break;
    if (c + kUnroll < c_end) load(a0, b0, c + kUnroll);
    compute(a1, b1, c);
    c += kUnroll;
  }

  // The warps' partials meet in shared memory, then epilogue() adds them.
  __shared__ Acc red[kWarpsK * kAcc * 32];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) red[warp * kAcc * 32 + (mt * 4 + i) * 32 + lane] = acc[mt][i];
  __syncthreads();
  epilogue<kFp8, TOut, kMT, kWarpsK>(p, red, n0);
}

}  // namespace cg_gemv

// The ring variant measured in call 2 (slower than the register kernel at every decode shape; not adopted).
namespace cg_gemv {
// The same products with the weight staged through shared memory: every warp owns a ring of kStages slots of
// kPerStage chunks (1 KB of weight each) filled by cp.async, kStages - 1 slots in flight ahead of the one
// computed, so the bytes in flight do not cost registers (the register kernel above holds its kUnroll chunks
// in registers and has nothing in flight while it computes). Slot layout per chunk: row-g vectors of the 32
// lanes (512 B), then their row-(g + 8) vectors: lane-contiguous 16-byte reads, no bank conflicts. Each lane
// reads back only what it copied itself, so no barrier runs in the main loop.
__device__ __forceinline__ void cp_async16_or_zero(uint32_t dst, const void* src, bool ok) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0));
}
__device__ __forceinline__ uint4 lds128(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}

template <int kWarpsK, int kStages, int kPerStage>
struct RingShape {
  static constexpr int kSlot = kPerStage * 1024;
  static constexpr int kSmem = kWarpsK * kStages * kSlot;
};

template <bool kFp8, typename TOut, int kMT, int kWarpsK, int kStages, int kPerStage>
__global__ void __launch_bounds__(kWarpsK * 32, 1024 / (kWarpsK * 32)) gemv_w8a8_ring_kernel(GemvArgs p) {
  using Acc = typename std::conditional<kFp8, float, int>::type;
  using R = RingShape<kWarpsK, kStages, kPerStage>;
  constexpr int kAcc = kMT * 4;
  extern __shared__ __align__(128) uint8_t ring_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kRows;
  const uint8_t* w0 = p.w + static_cast<int64_t>(min(n0 + g, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* w1 = p.w + static_cast<int64_t>(min(n0 + g + 8, p.n - 1)) * p.ldw + 16 * t;
  const uint8_t* xr[kMT];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) xr[mt] = p.a + static_cast<int64_t>(min(mt * 8 + g, p.m - 1)) * p.lda + 16 * t;
  const int chunks = (p.k + kChunk - 1) / kChunk;
  const int c_begin = static_cast<int>(static_cast<int64_t>(chunks) * warp / kWarpsK);
  const int c_end = static_cast<int>(static_cast<int64_t>(chunks) * (warp + 1) / kWarpsK);
  const int iters = (c_end - c_begin + kPerStage - 1) / kPerStage;
  const uint32_t ring = static_cast<uint32_t>(__cvta_generic_to_shared(ring_smem)) + warp * kStages * R::kSlot;

  auto load = [&](int slot, int j) {
#pragma unroll
    for (int u = 0; u < kPerStage; ++u) {
      const int c = c_begin + j * kPerStage + u;
      const bool ok = c < c_end && c * kChunk + 16 * t < p.k;
      const int off = ok ? c * kChunk : 0;  // a valid address even when nothing is read
      const uint32_t dst = ring + slot * R::kSlot + u * 1024 + lane * 16;
      cp_async16_or_zero(dst, w0 + off, ok);
      cp_async16_or_zero(dst + 512, w1 + off, ok);
    }
  };

  Acc acc[kMT][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[mt][i] = Acc(0);

#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < iters) load(i, i);
    asm volatile("cp.async.commit_group;");
  }
  for (int j = 0; j < iters; ++j) {
    uint4 xv[kPerStage][kMT];  // the activation (L1 / L2 hits) first, so its latency overlaps the wait
#pragma unroll
    for (int u = 0; u < kPerStage; ++u) {
      const int c = c_begin + j * kPerStage + u;
      const bool ok = c < c_end && c * kChunk + 16 * t < p.k;
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) xv[u][mt] = ok ? ld_keep(xr[mt] + c * kChunk) : make_uint4(0, 0, 0, 0);
    }
    asm volatile("cp.async.wait_group %0;" ::"n"(kStages - 2) : "memory");
    const int next = j + kStages - 1;
    if (next < iters) load(next % kStages, next);
    asm volatile("cp.async.commit_group;");
    const uint32_t slot = ring + (j % kStages) * R::kSlot;
#pragma unroll
    for (int u = 0; u < kPerStage; ++u) {
      const uint4 wa = lds128(slot + u * 1024 + lane * 16), wb = lds128(slot + u * 1024 + 512 + lane * 16);
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        mma_k32(acc[mt], wa.x, wb.x, wa.y, wb.y, xv[u][mt].x, xv[u][mt].y);
        mma_k32(acc[mt], wa.z, wb.z, wa.w, wb.w, xv[u][mt].z, xv[u][mt].w);
      }
    }
  }
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();  // every warp is done with its ring: the partials reuse the shared memory
  Acc* red = reinterpret_cast<Acc*>(ring_smem);
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int i = 0; i < 4; ++i) red[warp * kAcc * 32 + (mt * 4 + i) * 32 + lane] = acc[mt][i];
  __syncthreads();
  epilogue<kFp8, TOut, kMT, kWarpsK>(p, red, n0);
}

}  // namespace cg_gemv

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__global__ void ref_kernel(cg_gemv::GemvArgs p) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= p.n) return;
  int acc = 0;
  const int8_t* a = reinterpret_cast<const int8_t*>(p.a) + (int64_t)row * p.lda;
  const int8_t* w = reinterpret_cast<const int8_t*>(p.w) + (int64_t)col * p.ldw;
  for (int k = 0; k < p.k; ++k) acc += int(a[k]) * int(w[k]);
  float v = p.scale_a[p.sa_vec ? row : 0] * (p.scale_b[p.sb_vec ? col : 0] * static_cast<float>(acc));
  if (p.bias) v = v + __bfloat162float(static_cast<const __nv_bfloat16*>(p.bias)[col]);
  static_cast<__nv_bfloat16*>(p.out)[(int64_t)row * p.ldo + col] = __float2bfloat16_rn(v);
}

__global__ void fill(uint8_t* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (uint8_t)h;
  }
}

// A read-only stream (the same 16-byte no-L1 loads as the GEMV, four in flight per thread): the bandwidth a
// kernel that only reads can reach, for comparison with the copy rate the floors use.
__global__ void read_only(const uint8_t* p, int64_t nvec, uint32_t* sink) {
  uint32_t x = 0;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < nvec; i += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = i + u * stride < nvec ? cg_gemv::ld_stream(p + 16 * (i + u * stride)) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < 4; ++u) x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (x == 0x9e3779b9u) sink[0] = x;
}

using Launch = std::function<void(cg_gemv::GemvArgs const&)>;

template <int kMT, int kW, int kU>
Launch reg() {
  return [](cg_gemv::GemvArgs const& a) {
    cg_gemv::gemv_w8a8_kernel<false, __nv_bfloat16, kMT, kW, kU><<<(a.n + 15) / 16, kW * 32>>>(a);
  };
}
template <int kMT, int kW, int kU>
Launch pipe() {
  return [](cg_gemv::GemvArgs const& a) {
    cg_gemv::gemv_w8a8_kernel_pipe<false, __nv_bfloat16, kMT, kW, kU><<<(a.n + 15) / 16, kW * 32>>>(a);
  };
}
template <int kMT, int kW, int kS, int kU>
Launch ring() {
  return [](cg_gemv::GemvArgs const& a) {
    auto k = cg_gemv::gemv_w8a8_ring_kernel<false, __nv_bfloat16, kMT, kW, kS, kU>;
    constexpr int smem = cg_gemv::RingShape<kW, kS, kU>::kSmem;
    static bool once = [&] { CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); return true; }();
    (void)once;
    k<<<(a.n + 15) / 16, kW * 32, smem>>>(a);
  };
}

int main() {
  float bw;
  {
    int64_t nb = 1ll << 30;
    void *s, *d;
    CK(cudaMalloc(&s, nb)); CK(cudaMalloc(&d, nb));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    std::vector<float> ts;
    for (int r = 0; r < 5; ++r) { cudaEventRecord(e0); CK(cudaMemcpyAsync(d, s, nb, cudaMemcpyDeviceToDevice)); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end());
    bw = 2.0f * nb / (ts[2] * 1e-3f) / 1e9f;
    printf("copy bandwidth (1 GiB cudaMemcpy, read + written): %.0f GB/s\n", bw);
    for (int blocks : {132 * 4, 132 * 8, 132 * 16}) {
      ts.clear();
      for (int r = 0; r < 5; ++r) {
        cudaEventRecord(e0);
        read_only<<<blocks, 256>>>(static_cast<const uint8_t*>(s), nb / 16, static_cast<uint32_t*>(d));
        cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms);
      }
      std::sort(ts.begin(), ts.end());
      const float rb = nb / (ts[2] * 1e-3f) / 1e9f;
      printf("read-only stream, 1 GiB, %d CTAs of 256: %.0f GB/s = %.1f%% of the copy rate\n", blocks, rb, 100.f * rb / bw);
    }
    cudaFree(s); cudaFree(d);
  }
  struct Shape { int m, n, k; };
  std::vector<Shape> shapes = {{1, 8192, 8192}, {16, 8192, 8192}, {1, 4096, 14336}, {16, 4096, 14336},
                               {1, 14336, 4096}, {16, 14336, 4096}, {1, 28672, 4096}, {8, 1024, 4096}, {13, 2064, 4160}};
  int failures = 0;
  for (auto sh : shapes) {
    const int64_t wbytes = (int64_t)sh.n * sh.k;
    const int copies = std::max<int64_t>(2, (200ll << 20) / wbytes + 1);
    std::vector<uint8_t*> ws(copies);
    for (auto& w : ws) { CK(cudaMalloc(&w, wbytes)); fill<<<1024, 256>>>(w, wbytes, 17u + (uint32_t)(&w - ws.data())); }
    uint8_t* a; float *sa, *sb; __nv_bfloat16 *bias, *out, *ref;
    CK(cudaMalloc(&a, (int64_t)sh.m * sh.k)); fill<<<64, 256>>>(a, (int64_t)sh.m * sh.k, 99);
    std::vector<float> hs(std::max(sh.m, sh.n));
    for (size_t i = 0; i < hs.size(); ++i) hs[i] = 1e-3f * (1 + (i * 37 % 101));
    CK(cudaMalloc(&sa, sh.m * 4)); CK(cudaMemcpy(sa, hs.data(), sh.m * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&sb, sh.n * 4)); CK(cudaMemcpy(sb, hs.data(), sh.n * 4, cudaMemcpyHostToDevice));
    std::vector<__nv_bfloat16> hb(sh.n);
    for (int i = 0; i < sh.n; ++i) hb[i] = __float2bfloat16(0.01f * (i % 13) - 0.05f);
    CK(cudaMalloc(&bias, sh.n * 2)); CK(cudaMemcpy(bias, hb.data(), sh.n * 2, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&out, (int64_t)sh.m * sh.n * 2)); CK(cudaMalloc(&ref, (int64_t)sh.m * sh.n * 2));
    cg_gemv::GemvArgs p{};
    p.a = a; p.w = ws[0]; p.out = ref; p.scale_a = sa; p.scale_b = sb; p.bias = bias;
    p.lda = sh.k; p.ldw = sh.k; p.ldo = sh.n; p.m = sh.m; p.n = sh.n; p.k = sh.k; p.sa_vec = true; p.sb_vec = true;
    ref_kernel<<<dim3((sh.n + 127) / 128, sh.m), 128>>>(p);
    CK(cudaDeviceSynchronize());
    std::vector<uint16_t> href((int64_t)sh.m * sh.n), hout(href.size());
    CK(cudaMemcpy(href.data(), ref, href.size() * 2, cudaMemcpyDeviceToHost));
    const double floor_us = (double)(wbytes + (int64_t)sh.m * sh.k + 2ll * sh.m * sh.n) / (bw * 1e3);
    std::vector<std::pair<std::string, Launch>> vars;
    if (sh.m <= 8) {
      vars = {{"v1 w8 u3", reg<1, 8, 3>()}, {"v1 w16 u3", reg<1, 16, 3>()},
              {"pipe w8 u1", pipe<1, 8, 1>()}, {"pipe w16 u1", pipe<1, 16, 1>()},
              {"pipe w4 u2", pipe<1, 4, 2>()}, {"pipe w8 u2", pipe<1, 8, 2>()}, {"pipe w16 u2", pipe<1, 16, 2>()},
              {"ring w8 s3 u2", ring<1, 8, 3, 2>()}};
    } else {
      vars = {{"v1 w8 u2", reg<2, 8, 2>()}, {"v1 w16 u2", reg<2, 16, 2>()},
              {"pipe w4 u1", pipe<2, 4, 1>()}, {"pipe w8 u1", pipe<2, 8, 1>()}, {"pipe w16 u1", pipe<2, 16, 1>()},
              {"pipe w8 u2", pipe<2, 8, 2>()}, {"pipe w16 u2", pipe<2, 16, 2>()}};
    }
    printf("%dx%dx%d (floor %.2f us, %d weight copies):", sh.m, sh.n, sh.k, floor_us, copies);
    for (auto& [name, fn] : vars) {
      CK(cudaMemset(out, 0xff, (int64_t)sh.m * sh.n * 2));  // NaN poison
      p.out = out; p.w = ws[0];
      fn(p);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hout.data(), out, hout.size() * 2, cudaMemcpyDeviceToHost));
      int64_t bad = 0;
      for (size_t i = 0; i < href.size(); ++i) bad += href[i] != hout[i];
      if (bad) { ++failures; printf("\n  %s: %lld of %zu outputs differ from the reference", name.c_str(), (long long)bad, href.size()); }
      cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
      std::vector<float> ts;
      for (int r = 0; r < 9; ++r) {
        cudaEventRecord(e0);
        for (int i = 0; i < 20; ++i) { p.w = ws[(r * 20 + i) % copies]; fn(p); }
        cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms * 1e3f / 20);
      }
      std::sort(ts.begin(), ts.end());
      printf("\n  %-16s %7.2f us  %5.1f%% of floor", name.c_str(), ts[4], 100.0 * floor_us / ts[4]);
      cudaEventDestroy(e0); cudaEventDestroy(e1);
    }
    printf("\n");
    for (auto w : ws) cudaFree(w);
    cudaFree(a); cudaFree(sa); cudaFree(sb); cudaFree(bias); cudaFree(out); cudaFree(ref);
  }
  printf("%d variant/shape failures\n", failures);
  return failures != 0;
}
