// Session 8 harness (experiment, not part of the library): session 7's qt.cu (its byte-for-byte checks of every
// quant kernel against the kernels of commit 6f3f184, CUDA-graph checks and timings) run as is, then the
// per-tensor kernel's new settings swept: small tensors as a cluster of up to 8 or 16 CTAs holding 1-8 vectors
// per thread (tensor_cluster_max / tensor_small_vecs in quant_launch.cuh), large ones with the
// shared-memory stage on and off (call 1: a cp.async stage; call 2: back to the register-staged one), beside the per-token kernel and a device copy of the same bytes.
#define main qt7_main
#include "../../session7/qt/qt.cu"
#undef main

// Call 5: the row kernels at M >= 2048 under each residency cap (row_threads_per_sm_cap, threads per SM; 0 = none),
// and the per-group kernel as one capped 256-thread CTA per row (group_launch_mode 1), its bytes checked first.
static int rows_sweep() {
  int fails = 0;
  group_launch_mode() = 1;
  for (InType in : {InType::kHalf, InType::kBFloat16})
    for (OutType out : {OutType::kInt8, OutType::kFp8})
      for (auto [r, k] : std::vector<std::pair<int64_t, int64_t>>{{300, 8192}, {2048, 8192}, {1000, 6144}, {257, 4104}})
        for (int gs : {64, 128})
          if (k % gs == 0) {
            fails += check({RowMode::kGroup, in, out, r, k, k, false, false, false, gs});
            fails += check({RowMode::kGroup, in, out, r, k, k + 8, false, false, false, gs});
          }
  group_launch_mode() = 0;
  printf("ROWS SWEEP CHECKS: %d failed\n", fails);
  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("\ncopy bandwidth %.0f GB/s; row kernels, bf16 in: us and %% of the copy floor by residency cap (threads per SM)\n", bw);
  printf("%6s %6s %-26s", "M", "K", "kernel");
  const int caps[] = {512, 768, 1024, 1536, 2048, 0};
  for (int cap : caps) printf("   cap %-4d     ", cap);
  printf("\n");
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{2048, 8192}, {4096, 8192}, {2048, 4096}})
    for (int which = 0; which < 6; ++which) {
      const char* names[] = {"per_token int8", "asym int8", "rms_norm int8 +residual", "rms_norm int8", "group g128 (grid)", "group g128 (row)"};
      Case c{RowMode::kDynamic, InType::kBFloat16, OutType::kInt8, m, k, k};
      if (which == 1) c.mode = RowMode::kDynamicAsym;
      if (which == 2 || which == 3) { c.mode = RowMode::kRmsNorm; c.res = which == 2; }
      if (which >= 4) { c.mode = RowMode::kGroup; c.group = 128; }
      group_launch_mode() = which == 5 ? 1 : 0;
      Sizes z = sizes(c);
      size_t moved = z.x + z.q + 2 * z.res + (c.mode == RowMode::kRmsNorm ? k * 2 : 0);
      const float floor_us = moved / (bw * 1e3f);
      printf("%6lld %6lld %-26s", (long long)m, (long long)k, names[which]);
      for (int cap : caps) {
        row_threads_per_sm_cap() = cap;
        const float t = time_case(kNew, c);
        printf(" %7.2f %5.1f%%", t, 100.f * floor_us / t);
      }
      printf("\n");
    }
  row_threads_per_sm_cap() = 1024;
  group_launch_mode() = 0;
  return fails;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "rows") return rows_sweep();
  int fails = 0;
  // Checks under every small-tensor setting (the default last, so the timings of qt7 use it).
  for (int cmax : {16, 8})
    for (int per : {1, 4, 8, 2}) {
      tensor_cluster_max() = cmax;
      tensor_small_vecs() = per;
      for (OutType out : {OutType::kInt8, OutType::kFp8})
        for (auto [r, k] : std::vector<std::pair<int64_t, int64_t>>{{1, 4096}, {1, 8192}, {16, 8192}, {7, 20000}, {64, 8192}, {16, 8200}})
          for (InType in : {InType::kHalf, InType::kBFloat16, InType::kFloat})
            fails += check({RowMode::kPerTensor, in, out, r, k, k});
      fails += graph_check(16, 8192);
      fails += graph_check(64, 8192);
    }
  printf("SWEEP CHECKS: %d failed\n", fails);
  const char* arg[] = {argv[0], "check"};
  if (argc > 1 && std::string(argv[1]) == "check") return qt7_main(2, const_cast<char**>(arg)) || fails;
  const float bw = 2.0f * (1u << 30) / (time_copy(1u << 30, 3) * 1e-6f) / 1e9f;
  printf("\ncopy bandwidth (1 GiB device-to-device, read + written): %.0f GB/s\n", bw);
  printf("\nper-tensor fp8, bf16 in: us (median device time) by (cluster max, vectors per thread); per-token beside\n");
  printf("%6s %6s %10s", "M", "K", "per_token");
  for (int cmax : {8, 16}) for (int per : {1, 2, 4, 8}) printf("   c%-2d v%d", cmax, per);
  printf("\n");
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{1, 4096}, {1, 8192}, {4, 8192}, {16, 4096}, {16, 8192}, {32, 8192}, {64, 8192}, {128, 8192}, {16, 14336}}) {
    Case tok{RowMode::kDynamic, InType::kBFloat16, OutType::kFp8, m, k, k};
    Case c{RowMode::kPerTensor, InType::kBFloat16, OutType::kFp8, m, k, k};
    printf("%6lld %6lld %10.2f", (long long)m, (long long)k, time_case(kNew, tok));
    for (int cmax : {8, 16})
      for (int per : {1, 2, 4, 8}) {
        tensor_cluster_max() = cmax;
        tensor_small_vecs() = per;
        printf(" %8.2f", time_case(kNew, c));
      }
    printf("\n");
  }
  tensor_cluster_max() = 8;
  tensor_small_vecs() = 2;
  printf("\nper-tensor fp8 / int8, bf16 in, large: shared-memory stage on (default) vs off; %% of the copy floor; same-size copy\n");
  for (auto [m, k] : std::vector<std::pair<int64_t, int64_t>>{{2048, 4096}, {2048, 8192}, {3000, 8192}, {4096, 8192}, {8192, 8192}})
    for (OutType out : {OutType::kFp8, OutType::kInt8}) {
      Case c{RowMode::kPerTensor, InType::kBFloat16, out, m, k, k};
      Sizes z = sizes(c);
      const float floor_us = (z.x + z.q) / (bw * 1e3f);
      tensor_smem_vecs_override() = -1;
      float on = time_case(kNew, c);
      tensor_smem_vecs_override() = 0;
      float off = time_case(kNew, c);
      tensor_smem_vecs_override() = -1;
      float cp = time_copy((z.x + z.q) / 2);
      printf("%6lld %6lld per_tensor %-4s  on %7.2f us %5.1f%%   off %7.2f us %5.1f%%   same-size copy %7.2f us %5.1f%%\n",
             (long long)m, (long long)k, out == OutType::kFp8 ? "fp8" : "int8", on, 100.f * floor_us / on, off,
             100.f * floor_us / off, cp, 100.f * floor_us / cp);
    }
  printf("\n== session 7 harness (checks + timings) with the defaults ==\n");
  return qt7_main(argc, argv) || fails;
}
