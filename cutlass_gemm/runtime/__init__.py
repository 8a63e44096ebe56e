"""Turning kernel descriptions into callable code: nvcc build and disk cache, library loader,
the compiled torch extension (C++ fast path and activation-quant kernels), autotuning."""
