bash tools/results/h200-2026-11-29/session58/suite.sh /tmp/suite58   # kind nvidia-h200-x4, carry [".whl"], issued right after the previous call on the warm machine
