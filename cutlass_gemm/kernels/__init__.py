"""Kernel descriptions and their emission: configs, epilogues, CUTLASS emission, generation, heuristics.

Nothing here needs a GPU; emission needs `nvidia-cutlass` (imported lazily)."""
