# Session 27 call 2 (2026-11-27), carry [".whl"], from the repository root; ../suite.sh says what it does.
# (same warm machine: continues)
bash tools/results/h100-2026-11-27/session27/suite.sh /tmp/suite27a
