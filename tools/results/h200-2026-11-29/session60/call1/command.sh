bash tools/results/h200-2026-11-29/session60/suite.sh /tmp/suite60 fresh   # kind nvidia-h200-x2, carry [".whl"], timeout_s 600
