// Session 9 harness: session 8's qt8.cu (and through it session 7's byte-for-byte checks of every quant kernel
// against the kernels of commit 6f3f184, its CUDA-graph checks and timings) unchanged, compiled against the
// session-9 kernels (packed 16-bit RMSNorm arithmetic, no saturation where the scale comes from the group's
// own absmax). Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 qt9.cu -o qt9
#include "../../session8/qt/qt8.cu"
