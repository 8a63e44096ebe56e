# Session 39 call 1 (2026-11-28, kind nvidia-h200-x4, carry [".whl"]), from the repository root:
bash tools/results/h200-2026-11-28/session39/suite.sh /tmp/suite39a fresh
