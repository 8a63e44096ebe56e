# Session 27 call 1 (2026-11-27), carry [".whl"], from the repository root; ../suite.sh says what it does.
# (kind nvidia-h100-x4)
bash tools/results/h100-2026-11-27/session27/suite.sh /tmp/suite27a fresh
