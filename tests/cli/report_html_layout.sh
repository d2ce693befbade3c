#!/bin/bash
# The HTML pages (`tta report html`): of the fixtures (several rounds: an index and a page per round
# beside it; also with two replays of a claim stored, so that verify's section is on round local's
# page) and, with ../shared/corpus, of MLPerf v0.7 (one round: one page); with TTA_HTML_ROUNDS=all
# (tests/cli/report_html_rounds.sh, a slow test) also of every round of the corpus (an index and 14
# round pages: MLPerf Training, DAWNBench, HPC, AlgoPerf), read from TTA_CORPUS_DIR when it holds
# them unpacked (DIR/v0.7, DIR/mlperf-hpc-v1.0, ...), else unpacked here: their size in all at most
# the issue's bar, 5 MB.
#  - links: every href="#X" of a page has its id="X" there (the results tables' #entry-N, the table
#    of contents' sections), every other link names a file written beside the page (a round's page,
#    or a section of one, with its id; a long table's CSV; a plot's SVG) or, from an entry's system,
#    where it is published (the repositories of schemas/benchmark_rules.json), ids are unique, the
#    page loads nothing from elsewhere;
#  - structure: a table of contents, <h2>s with ids, a section per benchmark, each plot's title
#    names its benchmark, long tables folded or a link away, an MLPerf round's page has no profile
#    of this machine, the leaderboard on top;
#  - headless Chromium, at a 1280 px and a 390 px (phone) window: no horizontal scrolling
#    (document.scrollWidth, measured by a script added to a copy of the page, whose own policy
#    forbids scripts), not inside a table's or a plot's own frame either (its scrollWidth within
#    its width); at 390 px no element at all that scrolls or hides its content sideways (overflow
#    auto, scroll, hidden or clip with a scrollWidth above its clientWidth: a phone shows each
#    table's row as a card, each cell with its column's name, and scales a wide plot); at both
#    widths a results table's heading links sort it without script (after following each, its
#    rows stand top to bottom in that column's order); and each link of the table of contents lands on its section (its heading at
#    the top of the window after following the link, or the page scrolled to its end); screenshots
#    at both widths (kept in TTA_HTML_OUT when set). The browser's part skips (77) without chromium,
#    which `./setup.sh --test` installs.
set -uo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the page"; exit 77; }
case "$TTA" in /*) ;; *) TTA="$PWD/$TTA" ;; esac
work=$(mktemp -d /tmp/tta-html-layout.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"

pages=() # page files (under $work) to check, without .html
"$TTA" --db "$work/fx.db" ingest --quiet fixtures >/dev/null 2>&1
"$TTA" --db "$work/fx.db" report html --quiet "$work/fixtures.html" 2>/dev/null
check "fixtures: index written" test -s "$work/fixtures.html"
check "fixtures: a page per round beside it (v0.7)" test -s "$work/fixtures-v0.7.html"
check "fixtures: the index links each round's page" grep -q 'href="fixtures-v0.7.html"' "$work/fixtures.html"
check "fixtures: a round's page links the index" grep -q 'href="fixtures.html"' "$work/fixtures-v0.7.html"
check "fixtures: the index has the leaderboard and the trend" \
    bash -c "grep -q 'id=\"leaderboard\"' '$work/fixtures.html' && grep -q 'id=\"trend-across-rounds\"' '$work/fixtures.html'"
check "fixtures: a round's page leaves the trend to the index" bash -c "! grep -q 'id=\"trend-across-rounds\"' '$work/fixtures-v0.7.html'"
for f in "$work"/fixtures*.html; do pages+=("$(basename "$f" .html)"); done
# the fixtures with two replays of a claim: round local's page gains verify's section
if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    cp "$work/fx.db" "$work/vf.db"
    "$TTA" --db "$work/vf.db" verify 'dawnbench/open/tta anchors (PyTorch reference run)/fmnist_mlp_pytorch/fashion-mnist' \
        --runs 2 --max-epochs 1 --threshold 0.5 --threads 1 --log-dir "$work/vlogs" >/dev/null 2>&1
    "$TTA" --db "$work/vf.db" report html --quiet "$work/verify.html" 2>/dev/null
    check "verify: round local's page has verify's section" \
        grep -q '<h2 id="claims-replayed-on-this-machine">Claims replayed on this machine</h2>' "$work/verify-local.html"
    pages+=(verify-local)
else
    echo "NOTE: no Fashion-MNIST (dataset-fashion-mnist): no page with verify's section"
fi
if [ -f "$shared/corpus/mlperf-training-v0.7.tar.zst" ]; then
    mkdir -p "$work/v0.7"
    tar --zstd -xf "$shared/corpus/mlperf-training-v0.7.tar.zst" -C "$work/v0.7"
    "$TTA" --db "$work/v07.db" ingest --quiet "$work/v0.7" >/dev/null 2>&1
    # a profile stored here must not reach an MLPerf round's page
    "$TTA" --db "$work/v07.db" profile bench/recipes/fmnist-mlp.json --threads 1 --steps 3 >/dev/null 2>&1 ||
        echo "NOTE: no profile stored (tta profile failed): the profile check runs on nothing"
    "$TTA" --db "$work/v07.db" report html --quiet --round v0.7 "$work/v0.7.html" 2>/dev/null
    check "v0.7: one round, one page" test -s "$work/v0.7.html"
    check "v0.7: the curves' long tables are a CSV beside the page" test -s "$work/v0.7-curves.csv"
    check "v0.7: no profile of this machine on an MLPerf round's page" bash -c "! grep -q 'Profile of a training step' '$work/v0.7.html'"
    pages+=(v0.7)
else
    echo "NOTE: no corpus at $shared/corpus: the fixtures' pages only"
fi
# every round of the corpus: an index and a page per round
if [ "${TTA_HTML_ROUNDS:-}" = all ]; then
    every="v0.5 v0.6 v0.7 v2.0 v2.1 v3.0 v3.1 v4.1 v5.1 dawnbench mlperf-hpc-v0.7 mlperf-hpc-v1.0 mlperf-hpc-v2.0 algoperf-v0.5"
    dirs=() unpacked="${TTA_CORPUS_DIR:-}"
    for r in $every; do
        if [ -n "$unpacked" ] && [ -d "$unpacked/$r" ]; then
            dirs+=("$unpacked/$r")
            continue
        fi
        a="$shared/corpus/mlperf-training-$r.tar.zst"
        case "$r" in dawnbench | mlperf-hpc-* | algoperf-*) a="$shared/corpus/$r.tar.zst" ;; esac
        if [ -f "$a" ]; then
            mkdir -p "$work/every/$r" && tar --zstd -xf "$a" -C "$work/every/$r" && dirs+=("$work/every/$r")
        fi
    done
    if [ "${#dirs[@]}" -eq 14 ]; then
        "$TTA" --db "$work/every.db" ingest --quiet "${dirs[@]}" >/dev/null 2>&1
        rm -rf "$work/every" # 4 GB unpacked
        "$TTA" --db "$work/every.db" report html --quiet "$work/rounds.html" 2>/dev/null
        n_pages=$(ls "$work"/rounds*.html | wc -l)
        check "every round: an index and 14 round pages ($n_pages pages)" test "$n_pages" -eq 15
        bytes=$(cat "$work"/rounds*.html | wc -c)
        echo "every round: $n_pages pages, $bytes bytes in all"
        check "every round: the pages at most 5 MB in all ($bytes bytes)" test "$bytes" -le 5000000
        for f in "$work"/rounds*.html; do pages+=("$(basename "$f" .html)"); done
    else
        echo "NOTE: ${#dirs[@]} of the 14 rounds found: every round's pages not checked"
    fi
fi

# Links and structure: prints "entry_links missing_targets entry_ids duplicate_ids missing_files
# h2_without_id toc_links sections untitled_plots outside published".
cat >"$work/links.py" <<'PY'
import os, re, sys
path = sys.argv[1]
html = open(path, encoding="utf-8").read()
hrefs = re.findall(r'href="([^"]*)"', html)
ids = re.findall(r'\sid="([^"]+)"', html)
local = [h[1:] for h in hrefs if h.startswith("#")]
missing = sorted(set(local) - set(ids))
for m in missing[:5]: print("no target:", m, file=sys.stderr)
files = [h for h in hrefs if not h.startswith("#")]
outside = [h for h in files if "//" in h or ":" in h]
# an entry's system links to where it is published: the repositories the rules name, nothing else
published = [h for h in outside if h.startswith(("https://github.com/mlcommons/training_results_v",
                                                   "https://github.com/mlcommons/hpc_results_v",
                                                   "https://github.com/stanford-futuredata/dawn-bench-entries/"))]
outside = [h for h in outside if h not in published]
for m in outside[:5]: print("outside:", m, file=sys.stderr)
# a file beside the page, or a section of one (index.html#id: the file has that id)
def beside(h):
    f, _, frag = h.partition("#")
    f = os.path.join(os.path.dirname(path), f)
    return os.path.exists(f) and (not frag or ('id="%s"' % frag) in open(f, encoding="utf-8").read())
missing_files = [h for h in files if h not in outside and h not in published and not beside(h)]
for m in missing_files[:5]: print("no file:", m, file=sys.stderr)
h2_no_id = len(re.findall(r"<h2>", html))
nav = re.search(r'<nav class="toc">(.*?)</nav>', html, re.S)
toc = len(re.findall(r'href="#', nav.group(1))) if nav else 0
sections = len(re.findall(r'<h2 id="bench-', html))
# each plot of a benchmark's section names it in its title
untitled = 0
for m in re.finditer(r'<h2 id="bench-([^"]+)">(.*?)(?=<h2 |</main>)', html, re.S):
    for t in re.findall(r"<svg[^>]*>\s*<title>(.*?)</title>", m.group(2)):
        if not t.startswith(m.group(1) + ":"):
            untitled += 1
            print("plot without its benchmark:", t, file=sys.stderr)
print(len([l for l in local if l.startswith("entry-")]), len(missing), len([i for i in ids if i.startswith("entry-")]),
      len(ids) - len(set(ids)), len(missing_files), h2_no_id, toc, sections, untitled, len(outside), len(published))
PY
for p in "${pages[@]}"; do
    read -r links missing targets dups nofile noid toc sections untitled outside published < <(python3 "$work/links.py" "$work/$p.html")
    check "$p: every href=#X has its target ($missing without)" test "$missing" -eq 0
    check "$p: every file it links is beside it ($nofile missing)" test "$nofile" -eq 0
    check "$p: no link elsewhere but to the published results ($outside links)" test "$outside" -eq 0
    check "$p: the page loads nothing (its policy: default-src 'none')" grep -q "default-src 'none'" "$work/$p.html"
    check "$p: ids unique ($dups repeated)" test "$dups" -eq 0
    check "$p: every <h2> has an id ($noid without)" test "$noid" -eq 0
    check "$p: a table of contents ($toc links)" test "$toc" -ge 2
    check "$p: every plot of a benchmark's section names it ($untitled do not)" test "$untitled" -eq 0
    case "$p" in
    fixtures | verify-local | rounds) ;;
    *)
        check "$p: a section per benchmark ($sections)" test "$sections" -ge 1
        ;;
    esac
    case "$p" in
    v0.7 | fixtures-v0.7)
        check "$p: the results table links entries ($links links) to their rows ($targets)" test "$links" -gt 0 -a "$targets" -gt 0
        check "$p: entries link where they are published ($published links)" test "$published" -gt 0
        ;;
    esac
done
if [ -f "$work/v0.7.html" ]; then
    python3 - "$work/v0.7.html" >"$work/v07.facts" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
sections = re.findall(r'<h2 id="bench-([^"]+)"', html)
print(len(sections), html.count("<details>"), html.count("-curves.csv"), html.find('id="leaderboard"') < html.find('id="results-table-v0-7"'),
      max(len(re.findall(r"<tr", t)) for t in re.findall(r"<table.*?</table>", html, re.S)))
PY
    read -r nsec folded csv lb_first longest <"$work/v07.facts"
    check "v0.7: a section per benchmark (8, got $nsec)" test "$nsec" -eq 8
    check "v0.7: the curves tables are a link away ($csv links)" test "$csv" -ge 8
    check "v0.7: the leaderboard before the results table" test "$lb_first" = True
    check "v0.7: no table of more than 200 rows on the page (longest $longest)" test "$longest" -le 200
fi

if ! command -v chromium >/dev/null; then
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] || exit 1
    echo "SKIPPED: chromium not installed (./setup.sh --test installs it): the layout was not measured"
    exit 77
fi

# The page forbids scripts (Content-Security-Policy): a copy allows one inline script that writes
# what it measures into the DOM, which --dump-dom prints: the laid-out width, and for each link of
# the table of contents where its section's heading stands after following it. Headless Chromium's
# window is 500 px wide at least: the copy is measured in an <iframe> of the width asked for, inside
# a page of its own that it writes its figures into (file pages read each other with
# --allow-file-access-from-files).
chrome() {
    timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
        --allow-file-access-from-files --user-data-dir="$work/profile" "$@" 2>>"$work/chromium.log"
}
for p in "${pages[@]}"; do
    python3 - "$work/$p.html" "$work/$p.measure.html" <<'PY'
import sys
html = open(sys.argv[1], encoding="utf-8").read()
html = html.replace("default-src 'none'; style-src 'unsafe-inline'",
                    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'")
script = """<script>
var b = document.body, bad = [], frames = [];
b.setAttribute('data-scroll-width', Math.max(document.documentElement.scrollWidth, b.scrollWidth));
// a table or a plot that scrolls inside its own frame: its heading and by how much
document.querySelectorAll('.table-wrap, figure').forEach(function (e) {
  if (e.scrollWidth <= e.clientWidth + 1) return;
  var h = e, t = null;
  while (h && !t) { t = h.previousElementSibling; while (t && !/^H[23]$/.test(t.tagName)) t = t.previousElementSibling; h = h.parentElement; }
  frames.push(((t ? t.textContent.slice(0, 30) : '?') + ':' + (e.scrollWidth - e.clientWidth)).replace(/[" ]/g, '_'));
});
b.setAttribute('data-frames', frames.length ? frames.join(' ') : 'none');
// any element that scrolls or hides its content sideways (overflow auto, scroll, hidden or clip,
// its content wider than its box): its tag, class and by how much; the first 8
var cut = [], ncut = 0;
document.querySelectorAll('body *').forEach(function (e) {
  if (!(e instanceof HTMLElement) || e.scrollWidth <= e.clientWidth + 1) return;
  if (!/^(auto|scroll|hidden|clip)$/.test(getComputedStyle(e).overflowX)) return;
  if (ncut++ < 8) cut.push((e.tagName + '.' + (e.className || '') + ':' + (e.scrollWidth - e.clientWidth)).replace(/[" ]/g, '_'));
});
b.setAttribute('data-cut', ncut ? ncut + ':' + cut.join(' ') : 'none');
document.querySelectorAll('nav.toc a').forEach(function (a) {
  var id = a.getAttribute('href').slice(1), el = document.getElementById(id);
  if (!el) { bad.push(id + ':none'); return; }
  a.click();
  var top = el.getBoundingClientRect().top;
  var end = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
  if (!(Math.abs(top) <= 12 || (end && top >= 0 && top < window.innerHeight))) bad.push(id + ':' + Math.round(top));
});
b.setAttribute('data-toc-bad', bad.length ? bad.join(' ') : 'none');
// the results tables sort without script: after following a heading's link (its hidden target)
// the rows stand in the order of their --kN, top to bottom (at 390 px: each row a card)
var unsorted = [], nsorted = 0;
document.querySelectorAll('.sortable').forEach(function (s) {
  var rows = [].slice.call(s.querySelectorAll('tbody tr')).filter(function (r) { return r.cells.length > 1; });
  s.querySelectorAll(':scope > span[id]').forEach(function (k) {
    if (rows.length < 2) return;
    location.hash = k.id;
    var key = '--' + k.className, at = rows.map(function (r) {
      return [r.cells[0].getBoundingClientRect().top, +r.style.getPropertyValue(key)]; });
    at.sort(function (x, y) { return x[0] - y[0]; });
    nsorted++;
    for (var i = 1; i < at.length; i++) if (at[i][1] < at[i - 1][1]) { unsorted.push(k.id); break; }
  });
});
b.setAttribute('data-sorted', nsorted + ':' + (unsorted.length ? unsorted.slice(0, 5).join(' ') : 'none'));
if (window.parent !== window) {
  parent.document.body.setAttribute('data-scroll-width', b.getAttribute('data-scroll-width'));
  parent.document.body.setAttribute('data-toc-bad', b.getAttribute('data-toc-bad'));
  parent.document.body.setAttribute('data-frames', b.getAttribute('data-frames'));
  parent.document.body.setAttribute('data-cut', b.getAttribute('data-cut'));
  parent.document.body.setAttribute('data-sorted', b.getAttribute('data-sorted'));
}
</script>"""
html = html.replace("</body>", script + "\n</body>")
open(sys.argv[2], "w", encoding="utf-8").write(html)
PY
    for w in 1280 390; do
        printf '<!DOCTYPE html><html><body style="margin:0"><iframe src="%s" style="width:%spx;height:900px;border:0">' \
            "$p.measure.html" "$w" >"$work/$p.$w.frame.html"
        echo '</iframe></body></html>' >>"$work/$p.$w.frame.html"
        chrome --window-size=$((w + 40)),1000 --dump-dom "file://$work/$p.$w.frame.html" >"$work/$p.$w.dom"
        width=$(grep -o 'data-scroll-width="[0-9]*"' "$work/$p.$w.dom" | grep -o '[0-9]*')
        tocbad=$(grep -o 'data-toc-bad="[^"]*"' "$work/$p.$w.dom" | sed 's/data-toc-bad="//; s/"$//')
        echo "$p at $w px: document.scrollWidth ${width:-none}; table of contents links off target: ${tocbad:-not measured}"
        check "$p at $w px: measured in chromium (width ${width:-none})" test -n "$width"
        check "$p at $w px: no horizontal scrolling (document.scrollWidth ${width:-?})" test "${width:-99999}" -le "$w"
        frames=$(grep -o 'data-frames="[^"]*"' "$work/$p.$w.dom" | sed 's/data-frames="//; s/"$//')
        check "$p at $w px: no table or plot scrolls in its own frame (${frames:-not measured})" test "$frames" = none
        sorted=$(grep -o 'data-sorted="[^"]*"' "$work/$p.$w.dom" | sed 's/data-sorted="//; s/"$//')
        echo "$p at $w px: results tables' sort links followed ${sorted%%:*}, rows out of order after: ${sorted#*:}"
        check "$p at $w px: a results table's heading link sorts its rows without script (${sorted:-not measured})" \
            test "${sorted#*:}" = none
        if [ "$w" = 390 ]; then # at 1280 px a long description is cut with "…" (whole in its tooltip)
            cut=$(grep -o 'data-cut="[^"]*"' "$work/$p.$w.dom" | sed 's/data-cut="//; s/"$//')
            check "$p at $w px: no element scrolls or hides its content sideways (${cut:-not measured})" test "$cut" = none
        fi
        check "$p at $w px: every link of the table of contents lands on its section (${tocbad:-not measured})" \
            test "$tocbad" = none
        sed "s/$p.measure.html/$p.html/" "$work/$p.$w.frame.html" >"$work/$p.$w.show.html"
        chrome --window-size=$((w + 40)),1000 --screenshot="$work/$p.$w.png" "file://$work/$p.$w.show.html" >/dev/null
        check "$p at $w px: a screenshot" bash -c "head -c 4 '$work/$p.$w.png' | grep -q PNG"
    done
    if [ -n "${TTA_HTML_OUT:-}" ]; then cp "$work/$p.html" "$work/$p".*.png "$TTA_HTML_OUT/"; fi
done
echo "$passed passed, $failed failed"
test "$failed" -eq 0
