#!/bin/bash
# `tta report comm` on real replays of a tiny recipe on generated data: K = 1 (plain tta replay)
# and K = 2 (mpirun -np 2; skipped with a message without mpirun). Checks the JSON and CSV
# contracts, one row per entry with its workers, no communication at K = 1 and some at K = 2,
# every share recomputed independently from the events table with sqlite3 (within 1e-9), shares
# that add up to at most the epoch time, the stacked-bar SVG, the section of the HTML page, and a
# database of published logs only: zero rows, exit 0. Needs the sqlite3 shell (exit 77 without).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v sqlite3 >/dev/null || { echo "skipped: the sqlite3 shell is not installed"; exit 77; }
work=$(mktemp -d /tmp/tta-comm.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
db="$work/db"
. "$(dirname "$0")/lib/check.sh"
# q SQL: runs SQL in the sqlite3 shell (readfile() reads the report files) on the replays' database
q() { sqlite3 "$db" "$1"; }

cat > "$work/spec.json" <<JSON
{"benchmark": "generated", "dataset": {"kind": "generated", "n": 2048},
 "model": "mlp", "model_params": "hidden1=64,hidden2=64",
 "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1, 2], "values": [0.005, 0.02, 0]},
 "batch_size": 32, "target": {"metric": "top1", "value": 0.999}, "max_epochs": 2, "seeds": [3]}
JSON

# ---- the replays ----
"$TTA" --db "$db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" --no-checkpoint --format json \
    >"$work/k1.json" 2>"$work/err"
rc=$?; check "a K = 1 replay exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
rows=1 workers="1"
if command -v mpirun >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
    export ASAN_OPTIONS=detect_leaks=0 # OpenMPI keeps its allocations until exit
    mpirun --oversubscribe -np 2 "$TTA" --db "$db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" \
        --no-checkpoint --format json >"$work/k2.json" 2>"$work/err"
    rc=$?; check "a K = 2 replay under mpirun exits 0 ($(head -3 "$work/err"))" test $rc -eq 0
    rows=2 workers="1 2"
else
    echo "K = 2 part skipped: mpirun is not installed (Debian's openmpi-bin)"
fi
check "each replay logged 2 epoch breakdowns" \
    test "$(q "SELECT group_concat(n) FROM (SELECT count(*) n FROM events WHERE key = 'tta_epoch_breakdown' GROUP BY run_id)")" \
    = "$(if [ $rows -eq 2 ]; then echo 2,2; else echo 2; fi)"

# The report reads the typed rows ingest stores (replay_epoch_breakdown, replay_rank_comm,
# replay_runs); they must say what the logged records say, field by field.
typed_vs_log="WITH e AS (SELECT run_id, row_number() OVER (PARTITION BY run_id ORDER BY seq) - 1 n, value v
                         FROM events WHERE key = 'tta_epoch_breakdown')
  SELECT count(*) FROM e JOIN replay_epoch_breakdown b ON b.run_id = e.run_id AND b.seq = e.n
  WHERE b.epoch_s IS v ->> '\$.epoch_s' AND b.data_s IS v ->> '\$.data_s' AND b.forward_s IS v ->> '\$.forward_s'
    AND b.backward_s IS v ->> '\$.backward_s' AND b.optimizer_s IS v ->> '\$.optimizer_s'
    AND b.comm_exposed_s IS v ->> '\$.comm_exposed_s' AND b.comm_total_s IS v ->> '\$.comm_total_s'
    AND b.eval_s IS v ->> '\$.eval_s'
    AND NOT EXISTS (SELECT 1 FROM json_each(v, '\$.rank_comm_total_s') j LEFT JOIN replay_rank_comm k
                    ON k.run_id = b.run_id AND k.seq = b.seq AND k.rank = j.key WHERE k.comm_total_s IS NOT j.value)
    AND (SELECT count(*) FROM replay_rank_comm k WHERE k.run_id = b.run_id AND k.seq = b.seq)
        = json_array_length(v, '\$.rank_comm_total_s')"
check "the typed breakdown rows equal the logged records ($(q "$typed_vs_log") of $(q "SELECT count(*) FROM events WHERE key = 'tta_epoch_breakdown'"))" \
    test "$(q "$typed_vs_log")" = "$(q "SELECT count(*) FROM events WHERE key = 'tta_epoch_breakdown'")"
check "no breakdown row without its record" test "$(q "SELECT count(*) FROM replay_epoch_breakdown")" = \
    "$(q "SELECT count(*) FROM events WHERE key = 'tta_epoch_breakdown'")"
check "the typed world sizes equal the logged ones" test "$(q "SELECT group_concat(world_size) FROM replay_runs ORDER BY run_id")" = \
    "$(q "SELECT group_concat(value) FROM events WHERE key = 'tta_world_size' ORDER BY run_id")"

# ---- JSON contract ----
"$TTA" --db "$db" report comm --format json >"$work/r.json" 2>"$work/err"
rc=$?; check "report comm --format json exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
rep="json_each(readfile('$work/r.json'))"
check "one row per replayed entry ($rows)" test "$(q "SELECT count(*) FROM $rep")" -eq $rows
check "workers: $workers" test "$(q "SELECT group_concat(value ->> 'workers', ' ') FROM $rep")" = "$workers"
for key in entry round submitter system benchmark workers runs epochs epoch_s comm_share comm_total_share \
    compute_share data_share eval_share rank_comm_spread; do
    check "JSON has \"$key\" in every row" test "$(q "SELECT count(*) FROM $rep WHERE json_type(value, '\$.$key') IS NULL")" -eq 0
done
check "entry is the id of tta ls entries" test "$(q "SELECT group_concat(value ->> 'entry') FROM $rep")" = \
    "$("$TTA" --db "$db" ls entries --format csv | tail -n +2 | cut -d, -f1 | tr -d '\r' | paste -sd,)"
check "runs 1 and epochs 2 in every row" test "$(q "SELECT count(*) FROM $rep WHERE value ->> 'runs' = 1 AND value ->> 'epochs' = 2")" -eq $rows
k1="(SELECT value FROM $rep WHERE value ->> 'workers' = 1)"
check "K = 1: no exposed communication" test "$(q "SELECT $k1 ->> 'comm_share' = 0")" = 1
check "K = 1: no communication at all" test "$(q "SELECT $k1 ->> 'comm_total_share' = 0")" = 1
check "K = 1: no rank spread (null, with a reason)" test "$(q "SELECT json_type($k1, '\$.rank_comm_spread') || ' ' || ($k1 ->> 'note')")" = "null one worker"
if [ $rows -eq 2 ]; then
    k2="(SELECT value FROM $rep WHERE value ->> 'workers' = 2)"
    check "K = 2: some communication ($(q "SELECT $k2 ->> 'comm_total_share'"))" test "$(q "SELECT $k2 ->> 'comm_total_share' > 0")" = 1
    # Exposed time counts the calls' own overhead: with nothing to overlap (a tiny model on two
    # CPUs) it can exceed the buckets' durations by microseconds, hence the 0.5-point tolerance.
    check "K = 2: exposed communication within all of it ($(q "SELECT ($k2 ->> 'comm_share') || ' <= ' || ($k2 ->> 'comm_total_share')"))" \
        test "$(q "SELECT $k2 ->> 'comm_share' <= $k2 ->> 'comm_total_share' + 0.005")" = 1
    check "K = 2: a rank spread of at least 1 ($(q "SELECT $k2 ->> 'rank_comm_spread'"))" \
        test "$(q "SELECT $k2 ->> 'rank_comm_spread' >= 1")" = 1
fi
check "compute + data + exposed comm + eval <= 1 in every row ($(q "SELECT group_concat(value ->> 'compute_share' + (value ->> 'data_share') + (value ->> 'comm_share') + (value ->> 'eval_share'), ' ') FROM $rep"))" \
    test "$(q "SELECT count(*) FROM $rep WHERE (value ->> 'compute_share') + (value ->> 'data_share') + (value ->> 'comm_share') + (value ->> 'eval_share') > 1 + 1e-9")" -eq 0

# ---- the same numbers, independently, from the events ----
cat > "$work/recompute.sql" <<SQL
WITH b AS (SELECT r.entry_id, ev.run_id, ev.value v FROM events ev JOIN runs r ON r.id = ev.run_id
           WHERE ev.key = 'tta_epoch_breakdown'),
s AS (SELECT entry_id, count(DISTINCT run_id) runs, count(*) epochs,
             sum(json_extract(v, '\$.epoch_s') + json_extract(v, '\$.eval_s')) t,
             sum(json_extract(v, '\$.comm_exposed_s')) exposed, sum(json_extract(v, '\$.comm_total_s')) total,
             sum(json_extract(v, '\$.forward_s') + json_extract(v, '\$.backward_s') + json_extract(v, '\$.optimizer_s')) compute,
             sum(json_extract(v, '\$.data_s')) data, sum(json_extract(v, '\$.eval_s')) eval
      FROM b GROUP BY entry_id),
ranks AS (SELECT b.entry_id, k.key rank, sum(k.value) comm FROM b, json_each(b.v, '\$.rank_comm_total_s') k
          GROUP BY b.entry_id, k.key),
spread AS (SELECT entry_id, CASE WHEN count(*) > 1 THEN max(comm) / min(comm) END spread FROM ranks GROUP BY entry_id),
world AS (SELECT r.entry_id, max(CAST(json_extract(ev.value, '\$') AS INTEGER)) k FROM events ev
          JOIN runs r ON r.id = ev.run_id WHERE ev.key = 'tta_world_size' GROUP BY r.entry_id),
rep AS (SELECT value ->> 'entry' entry, value v FROM json_each(readfile('$work/r.json')))
SELECT rep.entry, s.runs = rep.v ->> 'runs' AND s.epochs = rep.v ->> 'epochs' AND coalesce(w.k, 1) = rep.v ->> 'workers',
       max(abs(s.t / s.epochs - (rep.v ->> 'epoch_s')),
           abs(s.exposed / s.t - (rep.v ->> 'comm_share')), abs(s.total / s.t - (rep.v ->> 'comm_total_share')),
           abs(s.compute / s.t - (rep.v ->> 'compute_share')), abs(s.data / s.t - (rep.v ->> 'data_share')),
           abs(s.eval / s.t - (rep.v ->> 'eval_share')),
           CASE WHEN sp.spread IS NULL AND json_type(rep.v, '\$.rank_comm_spread') = 'null' THEN 0
                ELSE abs(sp.spread - (rep.v ->> 'rank_comm_spread')) END)
FROM rep LEFT JOIN s ON s.entry_id = rep.entry LEFT JOIN spread sp ON sp.entry_id = rep.entry
LEFT JOIN world w ON w.entry_id = rep.entry ORDER BY rep.entry;
SQL
recomputed=$(sqlite3 -separator ' ' "$db" < "$work/recompute.sql")
check "recomputed: one result per row" test "$(wc -l <<<"$recomputed")" -eq $rows
check "recomputed: runs, epochs and workers agree" test "$(awk '$2 != 1' <<<"$recomputed" | wc -l)" -eq 0
check "recomputed: epoch_s, every share and the rank spread within 1e-9 (largest differences: $(awk '{print $3}' <<<"$recomputed" | paste -sd' '))" \
    awk '$3 == "" || $3 > 1e-9 { bad = 1 } END { exit bad }' <<<"$recomputed"

# ---- CSV, table, filters ----
"$TTA" --db "$db" report comm --format csv >"$work/r.csv"
check "report comm --format csv exits 0" test $? -eq 0
check "CSV header is the contract" test "$(head -1 "$work/r.csv" | tr -d '\r')" = \
    "entry,round,submitter,system,benchmark,workers,runs,epochs,epoch_s,comm_share,comm_total_share,compute_share,data_share,eval_share,rank_comm_spread,note"
check "CSV: one line per row" test "$(tail -n +2 "$work/r.csv" | wc -l)" -eq $rows
table=$("$TTA" --db "$db" report comm 2>"$work/err")
check "the table is printed" test -n "$table"
check "with no note on stderr" test ! -s "$work/err"
check "the table shows percentages" grep -q 'comm (%)' <<<"$table"
# Into a pipe nothing is shortened (docs/output-formats.md); on a 100-column terminal the table fits.
if command -v python3 >/dev/null && command -v script >/dev/null; then
    COLUMNS=100 NO_COLOR=1 script -qec "$TTA --db $db report comm" /dev/null >"$work/tty.txt" 2>&1 || true
    width=$(python3 -c 'import sys; print(max((len(l.rstrip("\r\n")) for l in open(sys.argv[1], encoding="utf-8")), default=0))' "$work/tty.txt")
    check "on a 100-column terminal the table fits (widest line $width)" test "$width" -le 100
fi
"$TTA" --db "$db" report comm --format markdown >/dev/null
check "markdown exits 0" test $? -eq 0
sys1=$(q "SELECT $k1 ->> 'system'")
check "a --system filter keeps its entry alone" test "$("$TTA" --db "$db" report comm --system "$sys1" --format csv | tail -n +2 | wc -l)" -eq 1
check "a filter matching nothing gives no rows" test "$("$TTA" --db "$db" report comm --round '/^v0\.7$/' --format json 2>/dev/null)" = "[]"

# ---- plot and page ----
"$TTA" --db "$db" report comm --svg "$work/comm.svg" >/dev/null
check "--svg exits 0" test $? -eq 0
if command -v xmllint >/dev/null; then
    check "--svg writes valid XML" xmllint --noout "$work/comm.svg"
fi
check "--svg writes an SVG document" grep -q '^<svg' "$work/comm.svg"
check "with a stacked bar per entry (5 parts each)" test "$(grep -c 'class="segment"' "$work/comm.svg")" -ge $((rows * 4))
check "and the exposed communication in its legend" grep -q 'exposed communication' "$work/comm.svg"
"$TTA" --db "$db" report html "$work/page.html" 2>/dev/null
check "report html exits 0" test $? -eq 0
check "the page has the comm section" grep -q 'Where the epoch time goes: compute, data and communication' "$work/page.html"
check "with its table" grep -q 'rank spread' "$work/page.html"

# ---- published logs only: nothing to show ----
"$TTA" --db "$work/pub.db" ingest fixtures/mlperf fixtures/dawnbench fixtures/claims >/dev/null 2>"$work/err"
rc=$?; check "ingest of the fixtures exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
out=$("$TTA" --db "$work/pub.db" report comm --format json 2>"$work/err")
check "published logs: exit 0" test $? -eq 0
check "published logs: zero rows" test "$out" = "[]"
out=$("$TTA" --db "$work/pub.db" report comm 2>"$work/err")
check "published logs: the empty table" grep -q '(no rows)' <<<"$out"
check "published logs: a note that comm needs replay logs" grep -q 'tta replay' "$work/err"
check "published logs: CSV is the header alone" test "$("$TTA" --db "$work/pub.db" report comm --format csv | wc -l)" -eq 1
"$TTA" --db "$work/pub.db" report html "$work/pub.html" 2>/dev/null
check "published logs: the page has no comm section" bash -c "! grep -q 'Where the epoch time goes' '$work/pub.html'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
