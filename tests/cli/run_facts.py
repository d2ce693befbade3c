#!/usr/bin/python3
"""Compares plain SQL over run_tta with `tta ls runs --format json`, run by run and field by field,
then checks the facts and flags of named real runs: of the whole corpus (--corpus), else of the
project's fixtures. Usage: run_facts.py TTA DB [--corpus]. Prints each difference and a last line
'N passed, N failed'; exits 1 when anything failed."""
import json
import math
import sqlite3
import subprocess
import sys

tta, db_path = sys.argv[1], sys.argv[2]
corpus = "--corpus" in sys.argv[3:]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def tta_out(*args):
    return subprocess.run([tta, "--db", db_path, *args], check=True, capture_output=True, text=True).stdout


# ls runs JSON key -> run_tta column; booleans are 0/1 in SQL, true/false in JSON
FIELDS = {"entry": "entry_id", "round": "round", "division": "division", "submitter": "submitter",
          "system": "system", "benchmark": "benchmark", "file": "file", "status": "status",
          "reached": "reached", "tta_s": "tta_s", "epochs": "epochs", "accelerators": "accelerators",
          "global_batch_size": "global_batch_size", "progress": "progress", "progress_unit": "progress_unit",
          "success_unmet": "success_unmet", "flags": "flags"}


def same(a, b):
    if isinstance(a, bool):
        a = int(a)
    if isinstance(b, bool):
        b = int(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9)
    return a == b


cli = json.loads(tta_out("ls", "runs", "--format", "json"))
con = sqlite3.connect(db_path)
con.row_factory = sqlite3.Row
sql = {r["file"]: r for r in con.execute("SELECT * FROM run_tta")}
check(len(cli) == len(sql), f"ls runs gives {len(cli)} runs, run_tta {len(sql)}")
check(len(cli) > (10000 if corpus else 50), f"{len(cli)} runs (expected over {10000 if corpus else 50})")
differences = 0
for row in cli:
    s = sql.get(row["file"])
    if s is None:
        differences += 1
        print("FAIL: not in run_tta:", row["file"])
        continue
    for key, col in FIELDS.items():
        if not same(row.get(key), s[col]):
            differences += 1
            if differences <= 20:
                print(f"FAIL: {row['file']}: {key}: ls runs {row.get(key)!r}, run_tta.{col} {s[col]!r}")
check(differences == 0, f"{differences} fields differ between ls runs and run_tta")
print(f"compared {len(cli)} runs x {len(FIELDS)} fields")


def flags_of(like):
    rows = con.execute("SELECT flags, flag_reasons, time_suspect FROM run_tta WHERE file LIKE ?", (like,)).fetchall()
    return rows[0] if len(rows) == 1 else None


def has_flag(like, flag, reason_part=""):
    r = flags_of(like)
    ok = r is not None and flag in r["flags"].split(",") and reason_part in r["flag_reasons"]
    check(ok, f"{like}: flag {flag} ({reason_part!r}) expected, got {tuple(r) if r else 'no such run'}")




def fixture_checks():
    # DAWNBench ranks by the time of the first row at the threshold (the published figures)
    for like, want in (("%davidcpage_resnet9_1v100-ec2_pytorch.tsv", 74.041416),
                       ("%KRes34_1GTX1080Ti_pytorch.tsv", 2136.1788),
                       ("%dawn_resnet152_b_4M60_ec2_tensorflow.tsv", 1161696.3649778366),
                       ("%claims/fmnist_mlp_pytorch_seed1.tsv", 55.08)):
        got = con.execute("SELECT tta_s FROM run_tta WHERE file LIKE ?", (like,)).fetchone()
        check(got is not None and math.isclose(got[0], want, rel_tol=1e-9), f"{like}: tta_s {got} (want {want})")
    has_flag("%quirks/run_start_before_init.txt", "impossible_timing", "before init_start")
    has_flag("%v0.6/Intel/results/clx-8260l-2s-x32/minigo/result_0.txt", "unreadable_record", "line 29")
    has_flag("%v0.5/v0.5.0/intel/intel_ncf_submission/results/skx8180/ncf/result_0.txt", "aborted", "aborted")
    clean = con.execute("SELECT count(*) FROM run_tta WHERE file LIKE '%v0.6/NVIDIA/results/dgx1_ngc19.05_mxnet/%'"
                        " AND flags = '' AND time_suspect = 0").fetchone()[0]
    check(clean == 5, f"the five v0.6 NVIDIA resnet runs carry no flag ({clean})")


def corpus_checks():
    # v0.7 Google tpu-v3-8192-TF ssd result_0: run_start ~15 h before init_stop, 922.5 min against ~0.46.
    ssd = "%/v0.7/Google/results/tpu-v3-8192-TF/ssd/result_0.txt"
    has_flag(ssd, "far_outside_entry", "min against the median")
    has_flag(ssd, "impossible_timing", "before init")
    check((flags_of(ssd) or {"time_suspect": 0})["time_suspect"] == 1, "the v0.7 ssd run's duration is suspect")
    variance = tta_out("report", "variance", "--round", "v0.7", "--submitter", "Google", "--system", "tpu-v3-8192-TF",
                       "--benchmark", "ssd")
    check("result_0.txt" in variance, "report variance names the v0.7 ssd run it leaves out:\n" + variance)
    # compare leaves the suspect run out and names it
    ids = con.execute("SELECT DISTINCT entry_id FROM run_tta WHERE round = 'v0.7' AND benchmark = 'ssd'"
                      " AND submitter = 'Google' ORDER BY system = 'tpu-v3-8192-TF' DESC LIMIT 2").fetchall()
    compare = tta_out("report", "compare", str(ids[0][0]), str(ids[1][0]), "--format", "json")
    row = json.loads(compare)[0]
    check("far_outside_entry result_0.txt" in row.get("note", "") and row["runs_a"] == 4,
          "compare names the suspect run and compares 4 runs of its entry:\n" + compare[:600])
    # a DAWNBench inference entry (its own leaderboard, often with a training entry's name) never
    # describes the training entry's system: every training entry takes its train/ description
    bad = con.execute("SELECT count(*) FROM systems WHERE round = 'dawnbench' AND description LIKE '%\"latency\"%'").fetchone()[0]
    check(bad == 0, f"{bad} DAWNBench inference descriptions filed as training systems")
    curves = tta_out("report", "curves", "--round", "v0.7", "--submitter", "Google", "--benchmark", "ssd",
                     "--format", "json")
    check("far_outside_entry result_0.txt" in curves, "the curves of the v0.7 Google ssd entries name it")
    # the results table names the flagged runs too
    summary = tta_out("report", "summary", "--round", "v0.7", "--format", "json")
    check("flagged runs of ssd (tta ls runs says why): far_outside_entry result_0.txt" in summary,
          "the v0.7 results table names the suspect ssd run")
    # ... and so does the HTML page, in the variance section's footnotes
    import os, tempfile
    with tempfile.TemporaryDirectory(prefix="tta-facts-page.") as d:
        page = os.path.join(d, "v07.html")
        tta_out("report", "html", page, "--round", "v0.7")
        with open(page, encoding="utf-8") as f:
            html = f.read()
    check("whose time cannot be trusted" in html and "922.50 min against the median" in html,
          "the v0.7 page names the suspect ssd run in a footnote")
    # the others of that entry are not flagged
    others = con.execute("SELECT count(*) FROM run_tta WHERE file LIKE '%/v0.7/Google/results/tpu-v3-8192-TF/ssd/%'"
                         " AND flags = ''").fetchone()[0]
    check(others == 4, f"the other 4 runs of that entry carry no flag ({others})")
    # v0.6 Intel minigo: records that cannot be read
    has_flag("%/v0.6/Intel/results/clx-8260l-2s-x32/minigo/result_0.txt", "unreadable_record", "line 695")
    # DAWNBench entries whose TSV says success below the threshold
    has_flag("%/CIFAR10/train/dawn_resnet164_nb_1k80-ec2_pytorch.tsv", "success_unmet", "(93.93)")
    # aborted runs are flagged, every one of them
    n_aborted = con.execute("SELECT count(*) FROM run_tta WHERE status = 'aborted'").fetchone()[0]
    n_flagged = con.execute("SELECT count(*) FROM run_tta WHERE status = 'aborted' AND flags LIKE '%aborted%'").fetchone()[0]
    check(n_aborted > 0 and n_aborted == n_flagged, f"aborted runs {n_aborted}, flagged {n_flagged}")
    # a run published again: the later copy names the earlier round; the earliest copy is not flagged
    rep = con.execute("SELECT a.file, a.flag_reasons, b.round FROM run_tta a JOIN run_tta b ON b.run_start = a.run_start"
                      " AND b.round = 'v2.0' AND a.round = 'v2.1' LIMIT 1").fetchone()
    check(rep is not None and "of round v2.0" in rep["flag_reasons"], f"a v2.1 run republished from v2.0: {rep and tuple(rep)}")
    first = con.execute("SELECT count(*) FROM run_tta WHERE round = 'v0.5' AND flags LIKE '%republished%'").fetchone()[0]
    check(first == 0, f"no run of the first round is a republication ({first})")
    # no impossible values among the stored facts
    bad = con.execute("SELECT count(*) FROM run_tta WHERE time_suspect = 0 AND status = 'success' AND tta_s <= 0").fetchone()[0]
    check(bad == 0, f"{bad} successful runs with a non-positive duration are not flagged")
    bad = con.execute("SELECT count(*) FROM run_tta WHERE epochs < 0 OR progress < 0 OR accelerators < 0").fetchone()[0]
    check(bad == 0, f"{bad} runs with negative epochs, progress or accelerators")


(corpus_checks if corpus else fixture_checks)()

# facts left stale (an ingest stopped before its end) are worked out by the next tta to open the
# database, a reader included, and say the same
con.execute("INSERT OR IGNORE INTO facts_pending SELECT id FROM entries")
con.execute("DELETE FROM run_flags WHERE flag = 'far_outside_entry'")
con.commit()
tta_out("ls", "entries", "--round", "v0.7")
check(con.execute("SELECT count(*) FROM facts_pending").fetchone()[0] == 0, "a reader's open works out stale facts")
if corpus:
    has_flag("%/v0.7/Google/results/tpu-v3-8192-TF/ssd/result_0.txt", "far_outside_entry", "min against the median")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
