bash tools/results/h200-2026-11-29/session58/suite.sh /tmp/suite58 fresh   # kind nvidia-h200-x4, carry [".whl"]
