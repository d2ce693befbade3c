#!/bin/bash
# The page's one script (reports/html.c, page_script): a click on a table's heading sorts its rows,
# a table of more than 10 rows gets a filter box. Checked:
#  - the page holds one inline <script>, whose SHA-256 is the one its Content-Security-Policy names
#    (the browser runs it and nothing else), and the page reads without it (every row is in the
#    HTML, nothing is hidden until the script hides it);
#  - headless Chromium (skipped without it): on the page as written, the script runs under the
#    page's own policy (its headings get their "sorts" class, the filter boxes appear); on a copy
#    whose policy also lets a test script run, a click on a table's "id" heading orders the rows by
#    id, a second click reverses them, and typing a submitter in a filter box leaves exactly the
#    rows that name it. On the fixtures, and on MLPerf v0.7 of ../shared/corpus where present.
set -uo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the page"; exit 77; }
case "$TTA" in /*) ;; *) TTA="$PWD/$TTA" ;; esac
work=$(mktemp -d /tmp/tta-html-script.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"

"$TTA" --db "$work/fx.db" ingest --quiet fixtures/mlperf >/dev/null 2>&1
"$TTA" --db "$work/fx.db" report html --quiet --round v0.7 "$work/fx.html" >/dev/null 2>&1
pages=(fx)
corpus="$shared/corpus"
if [ -f "$corpus/mlperf-training-v0.7.tar.zst" ]; then
    mkdir -p "$work/v0.7" && tar --zstd -xf "$corpus/mlperf-training-v0.7.tar.zst" -C "$work/v0.7"
    "$TTA" --db "$work/c.db" ingest --quiet "$work/v0.7" >/dev/null 2>&1
    "$TTA" --db "$work/c.db" report html --quiet "$work/v07.html" >/dev/null 2>&1
    pages+=(v07)
else
    echo "NOTE: no corpus at $corpus: the fixtures' page only"
fi

for p in "${pages[@]}"; do
    check "$p: one script, the one the page's policy names by its SHA-256" python3 -c '
import base64, hashlib, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
csp = re.search(r"script-src (\x27sha256-[^\x27]*\x27)\"", html)
assert len(scripts) == 1 and html.count("<script") == 1, "scripts: %d" % len(scripts)
want = "\x27sha256-" + base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode() + "\x27"
assert csp and csp.group(1) == want, (csp and csp.group(1), want)
assert " hidden" not in html.split("<script>")[0]  # the HTML hides no row' "$work/$p.html"
done

if ! command -v chromium >/dev/null; then
    echo "NOTE: no chromium (./setup.sh --test): the browser's part is skipped"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
fi
chrome() {
    timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
        --user-data-dir="$work/profile" --window-size=1280,900 --dump-dom "file://$1" 2>>"$work/chromium.log"
}
for p in "${pages[@]}"; do
    chrome "$work/$p.html" >"$work/$p.dom"
    check "$p: the script runs under the page's own policy (headings get class sorts)" grep -q 'class=" sorts"' "$work/$p.dom"
    # a copy whose policy lets a test script run after the page's: clicks and typing, the result
    # in an attribute of <body>
    python3 - "$work/$p.html" "$work/$p-test.html" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
html = re.sub(r"script-src '[^']*'", "script-src 'unsafe-inline'", html)
test = r"""<script>
(function(){
var out=[];
var tables=[].slice.call(document.querySelectorAll(".table-wrap table")).filter(function(t){
  return !t.closest(".sortable")&&t.tBodies[0]&&t.tBodies[0].rows.length>=3&&t.tHead&&t.tHead.rows[0].cells[0].textContent==="id";});
if(tables.length){
  var t=tables[0],b=t.tBodies[0],h=t.tHead.rows[0].cells[0];
  function ids(){return [].map.call(b.rows,function(r){return parseFloat(r.cells[0].textContent);});}
  h.click();var up=ids();h.click();var down=ids();
  var asc=up.every(function(v,i){return i===0||up[i-1]<=v;}),desc=down.every(function(v,i){return i===0||down[i-1]>=v;});
  out.push("sorted="+(asc&&desc&&up.length===down.length?"yes":"no")+":"+up.length);
}
var box=document.querySelector("input.filter");
if(box){
  var w=box.nextElementSibling,rows=[].slice.call(w.querySelectorAll("tbody tr"));
  var q=rows[0].cells[3].textContent;box.value=q;box.dispatchEvent(new Event("input"));
  var right=rows.every(function(r){return r.hidden===(r.textContent.toLowerCase().indexOf(q.toLowerCase())<0);});
  var shown=rows.filter(function(r){return !r.hidden;}).length;
  out.push("filtered="+(right&&shown>0&&shown<rows.length?"yes":"no")+":"+shown+"/"+rows.length);
}
document.body.setAttribute("data-test",out.join(" "));
})();
</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(html.replace("</body>", test + "\n</body>"))
PY
    res=$(chrome "$work/$p-test.html" | grep -o 'data-test="[^"]*"')
    echo "$p: $res"
    check "$p: a heading's clicks sort the rows by id, up then down ($res)" grep -q 'sorted=yes' <<<"$res"
    if [ "$p" = v07 ]; then
        check "$p: a filter box leaves the rows that name what is typed ($res)" grep -q 'filtered=yes' <<<"$res"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
