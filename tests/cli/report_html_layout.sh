#!/bin/bash
# The HTML page (`tta report html`) of the fixtures (also with two replays of a claim stored, so that
# verify's section is on it) and, with ../shared/corpus, of MLPerf v0.7: every
# link to an entry (href="#entry-N" in the results tables) has its target (the variance table's
# row id="entry-N"), and in headless Chromium at a 1280 px window the page lays out without
# horizontal scrolling (document.scrollWidth <= 1280, measured by a script added to a copy of the
# page, whose own policy forbids scripts), with a screenshot at that width (kept in TTA_HTML_OUT
# when set). The link checks always run; the browser's part skips (77) without chromium, which
# `./setup.sh --test` installs.
set -uo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the page"; exit 77; }
case "$TTA" in /*) ;; *) TTA="$PWD/$TTA" ;; esac
work=$(mktemp -d /tmp/tta-html-layout.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { local what="$1"; shift; if "$@"; then ok; else bad "$what"; fi; }

pages=()
"$TTA" --db "$work/fx.db" ingest --quiet fixtures >/dev/null 2>&1
"$TTA" --db "$work/fx.db" report html --quiet "$work/fixtures.html" 2>/dev/null
check "fixtures: page written" test -s "$work/fixtures.html"
pages+=(fixtures)
# the fixtures with two replays of a claim: the page gains verify's section
if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    cp "$work/fx.db" "$work/vf.db"
    "$TTA" --db "$work/vf.db" verify 'dawnbench/open/tta anchors (PyTorch reference run)/fmnist_mlp_pytorch/fashion-mnist' \
        --runs 2 --max-epochs 1 --threshold 0.5 --threads 1 --log-dir "$work/vlogs" >/dev/null 2>&1
    "$TTA" --db "$work/vf.db" report html --quiet "$work/verify.html" 2>/dev/null
    check "verify: page written, with verify's section" grep -q '<h2>Claims replayed on this machine</h2>' "$work/verify.html"
    pages+=(verify)
else
    echo "NOTE: no Fashion-MNIST (dataset-fashion-mnist): no page with verify's section"
fi
if [ -f "$shared/corpus/mlperf-training-v0.7.tar.zst" ]; then
    mkdir -p "$work/v0.7"
    tar --zstd -xf "$shared/corpus/mlperf-training-v0.7.tar.zst" -C "$work/v0.7"
    "$TTA" --db "$work/v07.db" ingest --quiet "$work/v0.7" >/dev/null 2>&1
    "$TTA" --db "$work/v07.db" report html --quiet --round v0.7 "$work/v0.7.html" 2>/dev/null
    check "v0.7: page written" test -s "$work/v0.7.html"
    pages+=(v0.7)
else
    echo "NOTE: no corpus at $shared/corpus: the fixtures' page only"
fi

# Links: prints "links missing targets ids duplicate_ids".
cat >"$work/links.py" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
links = re.findall(r'href="#(entry-\d+)"', html)
ids = re.findall(r'\sid="([^"]+)"', html)
entry_ids = [i for i in ids if i.startswith("entry-")]
missing = sorted(set(links) - set(ids))
for m in missing[:5]: print("no target:", m, file=sys.stderr)
print(len(links), len(missing), len(entry_ids), len(ids) - len(set(ids)))
PY
for p in "${pages[@]}"; do
    read -r links missing targets dups < <(python3 "$work/links.py" "$work/$p.html")
    check "$p: the results table links entries ($links links)" test "$links" -gt 0
    check "$p: every href=#entry-N has its target ($missing without)" test "$missing" -eq 0
    check "$p: entries are link targets ($targets), ids unique ($dups repeated)" test "$targets" -gt 0 -a "$dups" -eq 0
done

if ! command -v chromium >/dev/null; then
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] || exit 1
    echo "SKIPPED: chromium not installed (./setup.sh --test installs it): the layout at 1280 px was not measured"
    exit 77
fi

# The page forbids scripts (Content-Security-Policy): a copy allows one inline script that writes
# the laid-out width into the DOM, which --dump-dom prints.
chrome() {
    timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
        --user-data-dir="$work/profile" --window-size=1280,900 "$@" 2>>"$work/chromium.log"
}
for p in "${pages[@]}"; do
    python3 - "$work/$p.html" "$work/$p.measure.html" <<'PY'
import sys
html = open(sys.argv[1], encoding="utf-8").read()
html = html.replace("default-src 'none'; style-src 'unsafe-inline'",
                    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'")
script = ("<script>document.body.setAttribute('data-scroll-width',"
          "Math.max(document.documentElement.scrollWidth,document.body.scrollWidth));</script>")
html = html.replace("</body>", script + "\n</body>")
open(sys.argv[2], "w", encoding="utf-8").write(html)
PY
    chrome --dump-dom "file://$work/$p.measure.html" >"$work/$p.dom"
    width=$(grep -o 'data-scroll-width="[0-9]*"' "$work/$p.dom" | grep -o '[0-9]*')
    echo "$p: document.scrollWidth at a 1280 px window: ${width:-none}"
    check "$p: measured in chromium (width ${width:-none})" test -n "$width"
    check "$p: no horizontal scrolling at 1280 px (document.scrollWidth ${width:-?})" test "${width:-99999}" -le 1280
    chrome --screenshot="$work/$p.png" "file://$work/$p.html" >/dev/null
    check "$p: a screenshot at 1280 px" bash -c "head -c 4 '$work/$p.png' | grep -q PNG"
    if [ -n "${TTA_HTML_OUT:-}" ]; then cp "$work/$p.html" "$work/$p.png" "$TTA_HTML_OUT/"; fi
done
echo "$passed passed, $failed failed"
test "$failed" -eq 0
