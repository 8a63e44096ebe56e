bash tools/results/h200-2026-11-29/session61/oob.sh   # FRESH unset: the cache /tmp/cgc61 of the first attempt (below), same machine
