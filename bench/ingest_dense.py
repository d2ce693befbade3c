#!/usr/bin/python3
"""bench/ingest_dense.py: tta against the official MLCommons parser on record-dense logs, side by side.

Called by bench/ingest with --official. Runs, interleaved: the official parser (mlcommons/logging's
compliance_checker mlp_parser, ruleset 0.7.0, parse only, no database) over every file of --dense, and
`tta ingest` of the same folder into a fresh database. Each run is timed from the outside as a whole
command (interpreter or program start-up included, tta's database creation and closing checkpoint
included) and from the inside (the official parse loop; tta's own "seconds"). Prints the medians and
the ratios: command wall time, and records per second inside each process.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

OFFICIAL_PARSE = r'''
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from mlperf_logging.compliance_checker.mlp_parser import ruleset_070
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(sys.argv[2]) for f in fs)
t0 = time.perf_counter(); records = 0; size = 0
for f in files:
    size += os.path.getsize(f)
    try:
        lines, errors = ruleset_070.parse_file(f)
        records += len(lines)
    except Exception:  # the official parser crashes on some logs (e.g. Alibaba's KeyError)
        pass
print(json.dumps({"records": records, "bytes": size, "seconds": time.perf_counter() - t0}))
'''


def run_official(checkout, dense):
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", OFFICIAL_PARSE, checkout, dense], check=True,
                         capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    return wall, json.loads(out)


def run_tta(tta, dense, db):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    t0 = time.perf_counter()
    out = subprocess.run([tta, "--db", db, "ingest", "--format", "json", dense], check=True,
                         capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    return wall, json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tta", required=True)
    ap.add_argument("--official", required=True)
    ap.add_argument("--dense", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--rounds", type=int, default=3, help="official runs; tta runs 3 per official run")
    a = ap.parse_args()
    off_wall, off_in, off_rec = [], [], []
    tta_wall, tta_in, tta_rec = [], [], []
    for _ in range(a.rounds):
        for _ in range(3):
            w, d = run_tta(a.tta, a.dense, a.db)
            tta_wall.append(w)
            tta_in.append(d["seconds"])
            tta_rec.append(d["events"])
            mb = d["bytes"] / 1e6
        w, d = run_official(a.official, a.dense)
        off_wall.append(w)
        off_in.append(d["seconds"])
        off_rec.append(d["records"])
    m = statistics.median
    print("%-22s %10.1f %10.3f %10.1f %12d %12.0f   (command %.3f s, median of %d)"
          % ("official v0.7 dense", mb, m(off_in), mb / m(off_in), off_rec[0], off_rec[0] / m(off_in), m(off_wall),
             len(off_wall)))
    print("%-22s %10.1f %10.3f %10.1f %12d %12.0f   (command %.3f s, median of %d)"
          % ("tta v0.7 dense", mb, m(tta_in), mb / m(tta_in), tta_rec[0], tta_rec[0] / m(tta_in), m(tta_wall),
             len(tta_wall)))
    print("ratio tta / official on record-dense logs: %.1fx by command wall time (%.3f vs %.3f s), "
          "%.1fx by records/s inside each process"
          % (m(off_wall) / m(tta_wall), m(tta_wall), m(off_wall),
             (tta_rec[0] / m(tta_in)) / (off_rec[0] / m(off_in))))


if __name__ == "__main__":
    main()
