"""(Session 11 copy) Print `--name NAME` arguments for the SM90 kernels the GPU tests need beyond the default set and the
`--blockwise` / `--mixed` sets: the activation test's list, the stream-K / split-K test's list and the int8
conv test's list (tools/conv_kernels_needed.py; printed alone with --conv, for generate_kernels.py --conv).
Run from the repository root."""
import subprocess
import sys

sys.path.insert(0, "tests")
import test_activation_gpu  # noqa: E402
import test_streamk_gpu  # noqa: E402

names = set(test_activation_gpu.KERNELS)
names |= {c.name for c in test_streamk_gpu.KERNELS}
conv = set(subprocess.run([sys.executable, "tools/conv_kernels_needed.py", "tests"], capture_output=True, text=True,
                            check=True).stdout.split())
print(" ".join(f"--name {n}" for n in sorted(conv if "--conv" in sys.argv else names)))
