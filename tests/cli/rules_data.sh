#!/bin/bash
# schemas/benchmark_rules.json is consistent (every fact sourced, units and progress kinds allowed,
# aliases unambiguous) and, where mlcommons/logging is checked out ($MLPERF_LOGGING or
# /tmp/mlperf_logging), agrees with its compliance-checker targets, rcp_checker and summarizer.
set -euo pipefail
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed"; exit 77; }
python3 -c 'import yaml' 2>/dev/null || { echo "SKIPPED: python3-yaml is needed (./setup.sh --test)"; exit 77; }
exec python3 tests/rules/check_rules.py
