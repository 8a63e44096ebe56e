// Session 32 probe: one build of the weight-only small-M launcher (wo_launch.cuh from the -I folder) behind a plain C
// entry, compiled twice, once from the committed headers and once from the old copy (-DAB_OLD renames the namespaces),
// so that ab_main.cu can time both kernels of one variant in one process (call 4: "old" is the committed tree and
// "new" the copy in pf_csrc/ with an L2 prefetch ahead in the direct kernels' loop, -DAB_PF). A probe, not a design.
#ifdef AB_OLD
#define cg_wo cg_wo_old
#define cg_pdl cg_pdl_old
#define AB_FN(name) old_##name
#else
#define AB_FN(name) new_##name
#endif
#include <cstdlib>

#include "wo_launch.cuh"

struct AbCall {
  cg_wo::WoPlan plan;
  cg_wo::WoArgs args;
};

// A call of `variant` for an (m, n, k) problem (bits 4 / 8, bf16 or fp16 x, group_shift log2(group) or 30 per channel);
// workspace and counters allocated here. Returns null on error.
extern "C" void* AB_FN(prepare)(int variant, int bf16, int bits, int zero, int m, int n, int k, int group_shift) {
  using namespace cg_wo;
  auto* c = new AbCall{};
  const WoKernel kern = wo_select(bf16 ? ActType::kBFloat16 : ActType::kHalf, bits, zero != 0, m, variant, k);
  c->plan = wo_plan(kern, n, k);
  if (c->plan.err != cudaSuccess) return nullptr;
  c->args.m = m, c->args.n = n, c->args.k = k, c->args.group_shift = group_shift;
  c->args.ldx = k, c->args.ldo = n;
#ifdef AB_PF
  if (const char* e = getenv("PF_AHEAD")) c->args.pf_ahead = atoi(e);
#endif
  if (c->plan.splits > 1) {
    cudaMalloc(&c->args.workspace, c->plan.ws_floats * sizeof(float));
    cudaMalloc(&c->args.counters, c->plan.ntiles * sizeof(int));
    cudaMemset(c->args.counters, 0, c->plan.ntiles * sizeof(int));
  }
  return c;
}

extern "C" int AB_FN(launch)(void* h, const void* x, const void* w, const void* scales, const void* zeros, void* out,
                             cudaStream_t s) {
  auto* c = static_cast<AbCall*>(h);
  cg_wo::WoArgs a = c->args;
  a.x = x, a.w = static_cast<const uint32_t*>(w), a.scales = scales, a.zeros = zeros, a.bias = nullptr, a.out = out;
  return static_cast<int>(cg_wo::launch_wo_gemm(a, c->plan, s));
}

extern "C" void AB_FN(info)(void* h, int* splits, int* ctas, int* threads) {
  auto* c = static_cast<AbCall*>(h);
  *splits = c->plan.splits, *ctas = c->plan.ntiles * c->plan.splits, *threads = c->plan.kernel.threads;
}
