#!/bin/bash
# The live progress line (cli/progress.h) of `tta ingest` and `tta report html`: drawn on a terminal (a
# pseudo-terminal made by script(1)), rewritten in place and erased before the summary; never drawn with
# NO_COLOR, with --quiet or when stderr is a file, and the summary is the same in every case. `report html`
# draws only past 1 s: TTA_PROGRESS_AFTER_MS=0 forces it here (fixtures take a fraction of a second).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
TTA=$(realpath "$TTA")
command -v script >/dev/null || { echo "SKIPPED: script(1) (bsdutils) is needed for a pseudo-terminal"; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the terminal output"; exit 77; }
work=$(mktemp -d /tmp/tta-progress.XXXXXX)
trap 'rm -rf "$work"' EXIT
inputs="fixtures/mlperf fixtures/quirks" # quirks: one malformed file, whose error line the display must not cut
fail=0

# run NAME PTY ENV ARGS...: `tta ARGS` with a fresh database per ingest; the terminal's bytes (PTY=1: stdout
# and stderr through a pseudo-terminal) or stderr alone (PTY=0, stderr a file) in $work/NAME.out, the exit
# status in $work/NAME.rc. stty -onlcr: the terminal passes "\n" as is, so that any "\r" is tta's.
run() {
    local name=$1 pty=$2 env=$3
    shift 3
    local cmd="env $env $TTA --db $work/$name.db $*"
    if [ "$pty" = 1 ]; then
        script -qfec "stty -onlcr; $cmd" /dev/null >"$work/$name.out" </dev/null
    else
        $cmd 2>"$work/$name.out" >/dev/null </dev/null
    fi
    echo $? >"$work/$name.rc"
}

# --- ingest ---
run ingest_tty 1 "" ingest $inputs
run ingest_nocolor 1 NO_COLOR=1 ingest $inputs
run ingest_quiet 1 "" ingest --quiet $inputs
run ingest_file 0 "" ingest $inputs

# --- report html over the fixtures' database ---
"$TTA" --db "$work/html.db" ingest --quiet $inputs 2>/dev/null
for m in tty nocolor quiet file fast; do cp "$work/html.db" "$work/html_$m.db"; done
run html_tty 1 TTA_PROGRESS_AFTER_MS=0 report html "$work/html_tty.html"
run html_nocolor 1 "TTA_PROGRESS_AFTER_MS=0 NO_COLOR=1" report html "$work/html_nocolor.html"
run html_quiet 1 TTA_PROGRESS_AFTER_MS=0 report html --quiet "$work/html_quiet.html"
run html_file 0 TTA_PROGRESS_AFTER_MS=0 report html "$work/html_file.html"
start=$(date +%s%N)
run html_fast 1 "" report html "$work/html_fast.html"
fast_ms=$((($(date +%s%N) - start) / 1000000))

python3 - "$work" "$fast_ms" <<'PY' || fail=1
import re, sys
work, fast_ms = sys.argv[1], int(sys.argv[2])
failed = []
def check(what, ok):
    if not ok:
        failed.append(what)
def read(name):
    return open("%s/%s.out" % (work, name), "rb").read().decode("utf-8", "replace"), \
        open("%s/%s.rc" % (work, name)).read().strip()

ERASE = "\r\x1b[K"
DRAW = re.compile(r"\r\x1b\[K[^\r\n]+(?=\r)")  # a drawing of the line: the next "\r" rewrites it
def lines_without_progress(text):
    return DRAW.sub("", text).replace(ERASE, "").split("\n")
def mask(line):  # the summary's timing is the only thing that may differ between runs
    return re.sub(r"in [0-9.]+ s \([0-9]+ MB/s\)", "in T s (R MB/s)", line)

def check_shows(name, word, summary):
    text, rc = read(name)
    draws = DRAW.findall(text)
    check("%s: a progress line with '\\r' and '%s' (got %r)" % (name, word, text[:200]),
          draws and all(word in d for d in draws))
    if draws:
        check("%s: at most 10 lines a second plus the first and the last (%d drawn)" % (name, len(draws)),
              len(draws) <= 12 + 10 * 30)
    # erased before the summary: after the last erasure, whole lines only, the summary among them
    tail = text[text.rfind(ERASE) + len(ERASE):] if draws else ""
    check("%s: the line is erased before the summary" % name, "\r" not in tail and summary in tail)
    check("%s: every line outside the progress line is whole" % name,
          all("\r" not in l and "\x1b" not in l for l in lines_without_progress(text)))
    return [mask(l) for l in lines_without_progress(text)], rc

def check_quiet(name, why):
    text, rc = read(name)
    check("%s: no '\\r' and no escape with %s (got %r)" % (name, why, text[:200]),
          "\r" not in text and "\x1b" not in text)
    return [mask(l) for l in text.split("\n")], rc

# ingest
tty, tty_rc = check_shows("ingest_tty", "files", " files seen, ")
check("ingest_tty: the progress line counts files done/total, MB, runs and MB/s",
      re.search(r"ingest: \d+/\d+ files, [0-9.]+ MB, \d+ runs, \d+ MB/s", read("ingest_tty")[0]))
check("ingest_tty: the malformed file's error line is printed whole",
      any(l.startswith("fixtures/quirks/malformed_no_start.txt:") for l in tty))
summary = [l for l in tty if " files seen, " in l]
check("ingest_tty: one summary line (%r)" % summary, len(summary) == 1)
for name, why in (("ingest_nocolor", "NO_COLOR=1"), ("ingest_quiet", "--quiet"), ("ingest_file", "stderr a file")):
    lines, rc = check_quiet(name, why)
    check("%s: exit status %s as on a terminal (%s)" % (name, rc, tty_rc), rc == tty_rc)
    check("%s: the same summary as on a terminal (%r)" % (name, [l for l in lines if " files seen, " in l]),
          [l for l in lines if " files seen, " in l] == summary)
    if name != "ingest_quiet":
        check("%s: the same lines as on a terminal" % name, [l for l in lines if l] == [l for l in tty if l])

# report html
tty, tty_rc = check_shows("html_tty", "sections", "tta report html: wrote ")
check("html_tty: sections done/total, up to all of them",
      re.search(r"report html: (\d+)/\1 sections", read("html_tty")[0]))
def wrote(lines):  # the index OUT.html and the rounds' pages beside it, OUT-<round>.html
    return [re.sub(r"html_[a-z]+(-[\w.]+)?\.html", r"OUT\1.html", l) for l in lines if l]
def page(name):  # the page, without its minute stamp, its links to the rounds' pages named as OUT's
    return re.sub(r"Generated [^<]*", "", open("%s/%s.html" % (work, name)).read()).replace(name + "-", "OUT-")
for name, why in (("html_nocolor", "NO_COLOR=1"), ("html_quiet", "--quiet"), ("html_file", "stderr a file"),):
    lines, rc = check_quiet(name, why)
    check("%s: exit status and summary as on a terminal" % name, rc == tty_rc and wrote(lines) == wrote(tty))
    check("%s: the same page as on a terminal" % name, page(name) == page("html_tty"))
text, rc = read("html_fast")
if fast_ms < 800:  # the default waits 1 s: a report that took less draws nothing
    check("html_fast: no line within the first second (took %d ms)" % fast_ms, "\r" not in text)

for f in failed:
    print("FAIL:", f)
sys.exit(1 if failed else 0)
PY

[ $fail = 0 ] && echo "progress: ok"
exit $fail
