#!/bin/bash
# ctest label: slow
# The HTML pages of every round of ../shared/corpus (an index and a page per round: MLPerf Training
# v0.5-v5.1, DAWNBench, HPC v0.7-v2.0, AlgoPerf v0.5), checked as tests/cli/report_html_layout.sh
# checks the fixtures' (links, structure, headless Chromium at 1280 px and 390 px: nothing scrolls
# sideways, no table or plot inside its frame either, and at 390 px no element at all that scrolls
# or hides its content sideways) and their size in all against the
# issue's bar (5 MB). TTA_CORPUS_DIR: the rounds already unpacked (DIR/v0.7, ...), else unpacked
# here. Skips without the corpus.
shared=${TTA_SHARED_DIR:-../shared}
if [ ! -f "$shared/corpus/mlperf-training-v0.7.tar.zst" ] && [ ! -d "${TTA_CORPUS_DIR:-/nonexistent}/v0.7" ]; then
    echo "SKIPPED: no corpus at $shared/corpus (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
TTA_HTML_ROUNDS=all exec bash "$(dirname "$0")/report_html_layout.sh"
