// The GEMM plan registry of the eager fast path (fast_path.cpp) and what its callers share: the ops' `run` and the
// W8A8 layer's one-call path (w8a8_fast.cpp) look plans up here and launch through the same function.
#pragma once
#include <torch/extension.h>

#include <cstdint>

namespace cg {

// cg_launch (kernels/emit.py, GEMM launcher ABI 4): ..., workspace, workspace_bytes, stream, scale_flags, m_padded
using LaunchFn = int (*)(void const*, void const*, void*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         void const*, void const*, void const*, void const*, void const*, void const*, void*, size_t,
                         void*, int, int64_t);
using WorkspaceSizeFn = size_t (*)(int64_t, int64_t, int64_t);

enum Variant : int {
  kScaled = 0, kScaledBias = 1, kScaledAzp = 2, kScaledAzpPerToken = 3, kScaledAzpNoBias = 4,
  kScaledAzpPerTokenNoBias = 5, kNumVariants = 6
};
// A plan's code is variant | activation << kActivationShift (runtime/fastpath.py CODES); the activation
// (0 none, 1 relu, 2 relu6, 3 gelu_tanh, 4 silu) only selects the plan, i.e. the kernel registered for it.
constexpr int kActivationShift = 3;
constexpr int kNumActivations = 5;

struct PlanKey {
  int device, code, a_dtype, out_dtype, scale_a_vector, scale_b_vector;
  int64_t m, n, k;  // the tile depends on N and K too (kernels/heuristics.py NARROW, WAVES)
  bool operator==(PlanKey const& o) const {
    return device == o.device && code == o.code && a_dtype == o.a_dtype && out_dtype == o.out_dtype &&
           scale_a_vector == o.scale_a_vector && scale_b_vector == o.scale_b_vector && m == o.m && n == o.n &&
           k == o.k;
  }
};

struct Plan {
  LaunchFn fn;
  bool expand_a, expand_b;  // a per-tensor scale for a vector kernel that cannot broadcast it (SM80): a copy
  int scale_flags;          // ... or one it broadcasts itself (SM90, the GEMV): cg_launch's scale_flags
  // Stream-K / split-K kernels only (null otherwise): the kernel's cg_workspace_size, asked on every call (host
  // arithmetic, no device call).
  WorkspaceSizeFn workspace_size;
  // The rows the kernel runs on when more than the call's M (0: the call's own): the ops' `run` copies A, a per-token
  // scale_a and per-token zero points into that many rows (zero past M; pad_rows.h) and the kernel writes the
  // output's M rows only (GemmArgs::m_padded; kernels/heuristics.py padded_rows). Lookups that cannot pad (the W8A8
  // layer's, which quantizes into whole tiles itself) refuse such a plan.
  int64_t pad_rows;
};

// The plan registered for `key` into *plan; false when there is none (the Python path then makes it).
bool find_plan(PlanKey const& key, Plan* plan);

// One launch through a plan: D (m, n) = epilogue(A (m, k) row-major x B (k, n) column-major). Pointers are device
// pointers on `device`; the per-tensor / per-token azp adjustments go to exactly one of the two slots. m_padded > m:
// A, a per-token scale_a and per-token azp hold m_padded rows (whole M tiles), which the kernel computes; it writes
// D's m rows only (cg_launch's m_padded).
struct GemmArgs {
  void const* a;
  void const* b;
  void* d;
  int64_t m, n, k, lda, ldb, ldd;
  void const* scale_a;
  void const* scale_b;
  void const* azp;
  void const* azp_adj_per_token;
  void const* azp_adj_per_tensor;
  void const* bias;
  int64_t m_padded = 0;
};

// Launches on `stream`; a Stream-K / split-K plan's workspace comes from the caching allocator on the current
// stream (graph-capturable, no cudaMalloc per call). Returns the launcher's code (0: launched).
int launch_plan(Plan const& plan, GemmArgs const& g, int device, cudaStream_t stream);

bool aligned16(void const* p);
// 1 = per-tensor (one element), 2 = vector of `len` shaped (len, 1)/(len,) or (1, len)/(len,), 0 = neither.
int scale_kind(at::Tensor const& s, int64_t len, bool column, int device);
// A contiguous (len,) or (1, len) tensor of `dtype` on `device`; true when absent.
bool row_vector(c10::optional<at::Tensor> const& t, int64_t len, at::ScalarType dtype, int device);
// The launchers take M, N, K as 32-bit ints; sizes and leading dimensions at or above 2^31 go to the Python path,
// which raises InvalidArgumentError with the limit.
bool fits32(int64_t v);

// The GEMM ops' eager call (the extension's `run`): the output tensor, None when the Python path must take the call
// (no plan yet, an unusual layout or argument), or the launcher's error code (Python raises KernelLaunchError).
py::object run(int code, at::Tensor const& a, at::Tensor const& b, at::Tensor const& scale_a,
               at::Tensor const& scale_b, at::ScalarType out_dtype, c10::optional<at::Tensor> const& bias,
               c10::optional<at::Tensor> const& azp_adj, c10::optional<at::Tensor> const& azp,
               c10::optional<at::Tensor> const& out);

}  // namespace cg
