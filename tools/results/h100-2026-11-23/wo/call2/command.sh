# the same command as tools/results/h100-2026-11-23/quant_v2/call2/command.sh (one device call served both records)
