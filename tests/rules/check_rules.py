#!/usr/bin/env python3
"""check_rules.py: schemas/benchmark_rules.json is consistent, and agrees with MLCommons' own code.

Usage: check_rules.py [RULES.json]      (default: schemas/benchmark_rules.json of this checkout)

Part 1, always: the file's internal consistency. Every fact of a benchmark names its sources and every
source key is defined in "sources"; every ruleset of "rounds" has benchmarks and every benchmark's ruleset
is a round's; metric2/target2/higher_is_better2 are all given or all null; quality_scale, progress and
progress_unit come from the allowed sets; numbers are in range; aliases are folded names of known
benchmarks, without two meanings for one round; every rcp=true has its rcps_<name>.json in the shared
RCP folder (../shared/rcp, or $TTA_SHARED_DIR/rcp) when that folder exists, and no rcp=false has one.

Part 2, when a checkout of mlcommons/logging is found ($MLPERF_LOGGING, else /tmp/mlperf_logging; skipped
with a message otherwise): each target (and second target) whose source is the compliance checker equals
the threshold of the closed_<name>.yaml it cites, in the same direction, in tta's stored scale (BLEU x 100);
each ruleset's benchmarks are those of closed_common.yaml and benchmark_meta.py; runs_required equals
rcp_checker's submission_runs, olympic_drop and max_failed the result summarizer's, and progress is the
reading rcp_checker.read_submission_file applies to that benchmark.

Prints one line per failure ("FAIL: <where>: <what>") and exits 1 when there is any; python3 standard
library plus PyYAML (Debian python3-yaml) for part 2.
"""
import ast
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

SCALES = {"fraction", "bleu", "percent", "asis"}
PROGRESS = {"epoch_of_first_meeting", "epoch_num", "train_samples", "samples_count", "first_passing_step_num",
            "first_passing_samples_count"}
UNITS = {"epochs", "samples", "steps", "tokens"}
FACTS = ["metric", "log_key", "higher_is_better", "target", "metric2", "target2", "higher_is_better2",
         "quality_scale", "progress", "progress_unit", "train_set_size", "runs_required", "runs_scored",
         "olympic_drop", "max_failed", "rcp", "rcp_name"]
SUITES = {"mlperf", "hpc", "dawnbench"}
REQUIRED = ["ruleset", "benchmark", "metric", "log_key", "higher_is_better", "target", "quality_scale", "progress",
            "progress_unit", "olympic_drop", "max_failed", "rcp", "sources"]

failures = []


def fail(where, what):
    failures.append(f"FAIL: {where}: {what}")
    print(failures[-1])


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def ruleset_key(rs):
    """Sort key of a ruleset ("0.7.0" < "1.0.0" < "10.0.0"); None for a non-numeric one (dawnbench, hpc_1.0.0)."""
    parts = rs.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def usage_of(rs):
    """MLCommons' usage and version of a ruleset: ("training", "3.1.0"), ("hpc", "1.0.0") for hpc_1.0.0
    (the name of its compliance_checker and rcp_checker folders); (None, rs) for others (dawnbench)."""
    if rs.startswith("hpc_"):
        return "hpc", rs[4:]
    return ("training", rs) if ruleset_key(rs) else (None, rs)


def checker_folder(rs):
    """The ruleset's folder under compliance_checker/ and rcp_checker/ (training_3.1.0, hpc_1.0.0)."""
    usage, version = usage_of(rs)
    return f"{usage}_{version}"


def fold(name):
    return name.lower().replace("-", "_").replace(" ", "_")


def log_name(r):
    """The name the ruleset's logs, checker configs and RCP files use for the benchmark."""
    return r.get("rcp_name") or r["benchmark"]


# ---- part 1: internal consistency ------------------------------------------------------------------------

def check_internal(doc):
    if not isinstance(doc.get("version"), int) or isinstance(doc.get("version"), bool) or doc["version"] < 1:
        fail("version", "must be an integer >= 1")
    sources = doc.get("sources")
    if not isinstance(sources, dict) or not sources:
        fail("sources", "must be a non-empty object")
        sources = {}
    for k, v in sources.items():
        if not isinstance(v, str) or not v.strip():
            fail(f"sources.{k}", "must be a non-empty text")
        if not re.fullmatch(r"[A-Za-z0-9._-]+", k):
            fail(f"sources.{k}", "a source key must be one word (keys are separated by spaces where cited)")

    def cited(where, text):
        if not isinstance(text, str) or not text.split():
            fail(where, "names no source")
            return
        for key in text.split():
            if key not in sources:
                fail(where, f"source \"{key}\" is not defined in \"sources\"")

    rounds = doc.get("rounds", [])
    round_names, round_rulesets = [], []
    for i, rr in enumerate(rounds):
        if not isinstance(rr.get("round"), str) or not isinstance(rr.get("ruleset"), str):
            fail(f"rounds[{i}]", "needs \"round\" and \"ruleset\" strings")
            continue
        round_names.append(rr["round"])
        round_rulesets.append(rr["ruleset"])
        for k in rr:
            if k not in ("round", "ruleset", "suite", "source", "rcp_folder"):
                fail(f"rounds[{i}]", f"unknown field \"{k}\"")
        if "rcp_folder" in rr and rr["rcp_folder"] != checker_folder(rr["ruleset"]):
            fail(f"rounds[{i}]", f"rcp_folder {rr['rcp_folder']}, but the RCP checker's folder of "
                                 f"{rr['ruleset']} is {checker_folder(rr['ruleset'])}")
        if (rr.get("suite") == "hpc") != rr["ruleset"].startswith("hpc_"):
            fail(f"rounds[{i}]", "an MLPerf HPC round (suite hpc) and only one has a ruleset hpc_X.Y.Z")
        if rr.get("suite") not in SUITES:
            fail(f"rounds[{i}]", f"suite \"{rr.get('suite')}\" is not one of {sorted(SUITES)}")
        cited(f"rounds[{i}] source", rr.get("source"))
        m = re.fullmatch(r"v(\d+)\.(\d+)", rr["round"])
        h = re.fullmatch(r"hpc-v(\d+)\.(\d+)", rr["round"])
        if h and rr["ruleset"] != f"hpc_{h.group(1)}.{h.group(2)}.0":
            fail(f"rounds[{i}]", f"round {rr['round']} governed by ruleset {rr['ruleset']} (expected "
                                 f"hpc_{h.group(1)}.{h.group(2)}.0)")
        if m and rr["ruleset"] != f"{m.group(1)}.{m.group(2)}.0":
            fail(f"rounds[{i}]", f"round {rr['round']} governed by ruleset {rr['ruleset']} (expected "
                                 f"{m.group(1)}.{m.group(2)}.0)")
    if len(set(round_names)) != len(round_names):
        fail("rounds", "a round is listed twice")
    numeric = [ruleset_key(rs) for rs in round_rulesets if ruleset_key(rs)]
    if numeric != sorted(numeric):
        fail("rounds", "MLPerf rounds are not in time order")
    hpc = [ruleset_key(usage_of(rs)[1]) for rs in round_rulesets if usage_of(rs)[0] == "hpc"]
    if hpc != sorted(hpc):
        fail("rounds", "MLPerf HPC rounds are not in time order")

    rules = doc.get("benchmarks", [])
    seen = set()
    benchmarks = set()
    by_ruleset = {}
    for i, r in enumerate(rules):
        where = f"benchmarks[{i}]"
        if not isinstance(r, dict):
            fail(where, "not an object")
            continue
        if isinstance(r.get("ruleset"), str) and isinstance(r.get("benchmark"), str):
            where = f"{r['ruleset']} {r['benchmark']}"
        for k in REQUIRED:
            if k not in r or r[k] is None:
                fail(where, f"\"{k}\" is missing")
        for k in r:
            if k not in FACTS and k not in ("ruleset", "benchmark", "sources"):
                fail(where, f"unknown field \"{k}\"")
        key = (r.get("ruleset"), r.get("benchmark"))
        if key in seen:
            fail(where, "listed twice")
        seen.add(key)
        benchmarks.add(r.get("benchmark"))
        by_ruleset.setdefault(r.get("ruleset"), []).append(r)
        if r.get("ruleset") not in round_rulesets:
            fail(where, f"ruleset {r.get('ruleset')} governs no round of \"rounds\"")
        if r.get("benchmark") != fold(str(r.get("benchmark"))).replace("_", "-") and \
                r.get("benchmark") != fold(str(r.get("benchmark"))):
            fail(where, "a canonical name is lowercase")

        # Types and allowed values.
        for k in ("metric", "log_key"):
            if not isinstance(r.get(k), str) or not r.get(k):
                fail(where, f"\"{k}\" must be a non-empty string")
        if not isinstance(r.get("higher_is_better"), bool):
            fail(where, "\"higher_is_better\" must be true or false")
        if not is_num(r.get("target")):
            fail(where, "\"target\" must be a number")
        trio = [r.get("metric2"), r.get("target2"), r.get("higher_is_better2")]
        if any(x is not None for x in trio) and not all(x is not None for x in trio):
            fail(where, "metric2, target2 and higher_is_better2 go together (all three or none)")
        if r.get("metric2") is not None:
            if not isinstance(r["metric2"], str) or not is_num(r.get("target2")) or \
                    not isinstance(r.get("higher_is_better2"), bool):
                fail(where, "metric2 must be a string, target2 a number, higher_is_better2 a boolean")
            if r.get("metric2") == r.get("metric"):
                fail(where, "metric2 repeats metric")
        if r.get("quality_scale") not in SCALES:
            fail(where, f"quality_scale \"{r.get('quality_scale')}\" is not one of {sorted(SCALES)}")
        if r.get("progress") not in PROGRESS:
            fail(where, f"progress \"{r.get('progress')}\" is not one of {sorted(PROGRESS)}")
        if r.get("progress_unit") not in UNITS:
            fail(where, f"progress_unit \"{r.get('progress_unit')}\" is not one of {sorted(UNITS)}")
        tss = r.get("train_set_size")
        if tss is not None:
            if not is_num(tss) or tss <= 0:
                fail(where, "train_set_size must be a positive number or null")
            elif r.get("progress_unit") != "samples":
                fail(where, "train_set_size is given but progress is not counted in samples")
        runs = r.get("runs_required")
        drop, failed = r.get("olympic_drop"), r.get("max_failed")
        for k, v in (("olympic_drop", drop), ("max_failed", failed)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                fail(where, f"\"{k}\" must be an integer >= 1")
        if runs is not None:
            if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1:
                fail(where, "runs_required must be a positive integer or null")
            elif isinstance(drop, int) and runs < 2 * drop + 1:
                fail(where, f"runs_required {runs} leaves nothing once {drop} runs are dropped from each end")
        scored = r.get("runs_scored")
        if scored is not None and (not isinstance(scored, int) or isinstance(scored, bool) or scored < 3
                                   or (isinstance(runs, int) and scored > runs)):
            fail(where, "runs_scored must be an integer from 3 (an olympic mean) to runs_required, or absent")
        if not isinstance(r.get("rcp"), bool):
            fail(where, "\"rcp\" must be true or false")
        if "rcp_name" in r and (not isinstance(r["rcp_name"], str) or not r["rcp_name"]
                                or r["rcp_name"] == r.get("benchmark")):
            fail(where, "rcp_name, when given, is a name that differs from the benchmark's")
        # How progress is read follows from whether the ruleset has an RCP checker.
        rk = ruleset_key(usage_of(str(r.get("ruleset")))[1])
        has_checker = rk is not None and rk >= (1, 0, 0)
        if has_checker and r.get("progress") == "epoch_of_first_meeting":
            fail(where, "a ruleset with an RCP checker reads progress as the checker does")
        if not has_checker:
            if r.get("progress") != "epoch_of_first_meeting":
                fail(where, "a ruleset without an RCP checker has progress epoch_of_first_meeting")
            if r.get("rcp"):
                fail(where, "rcp is true in a ruleset without an RCP checker")
        if r.get("progress") in ("train_samples", "samples_count", "first_passing_samples_count") \
                and r.get("progress_unit") != "samples":
            fail(where, f"progress {r.get('progress')} counts samples, but progress_unit is {r.get('progress_unit')}")
        if r.get("progress") == "first_passing_step_num" and r.get("progress_unit") != "steps":
            fail(where, f"progress {r.get('progress')} counts steps, but progress_unit is {r.get('progress_unit')}")

        # Sources: every fact given has one, every cited key exists, every sourced fact exists.
        src = r.get("sources")
        if not isinstance(src, dict) or not src:
            fail(where, "\"sources\" must name the source of each fact")
            src = {}
        for fact, text in src.items():
            if fact not in FACTS:
                fail(where, f"sources name \"{fact}\", which is not a fact of a benchmark")
            elif fact not in r:
                fail(where, f"sources name \"{fact}\", which this benchmark does not give")
            cited(f"{where} sources.{fact}", text)
        for fact in FACTS:
            if r.get(fact) is not None and fact not in src:
                fail(where, f"\"{fact}\" has no source")

    for rs in dict.fromkeys(round_rulesets):
        if not by_ruleset.get(rs):
            fail(f"ruleset {rs}", "a round's ruleset has no benchmarks")

    # The summarizer's results-table columns: per ruleset of an MLPerf round, once, names that
    # benchmarks of the rules (or their aliases) go by, each once.
    alias_to = {}
    for a in doc.get("aliases", []):
        alias_to.setdefault(a.get("name"), set()).add(a.get("benchmark"))
    mlperf_rulesets = {rr.get("ruleset") for rr in rounds if rr.get("suite") in ("mlperf", "hpc")}
    seen_cols = set()
    for i, c in enumerate(doc.get("summary_columns", [])):
        where = f"summary_columns[{i}]"
        rs, names = c.get("ruleset"), c.get("benchmarks")
        for k in c:
            if k not in ("ruleset", "benchmarks", "source"):
                fail(where, f"unknown field \"{k}\"")
        cited(f"{where} source", c.get("source"))
        if rs not in mlperf_rulesets:
            fail(where, f"ruleset {rs} governs no MLPerf round of \"rounds\"")
        if rs in seen_cols:
            fail(where, f"ruleset {rs} listed twice")
        seen_cols.add(rs)
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
            fail(where, "\"benchmarks\" must be a non-empty list of names")
            continue
        if len(set(names)) != len(names):
            fail(where, "a benchmark column is listed twice")
        for n in names:  # 0.6's list keeps ncf, which no 0.6.0 rule has: any known benchmark
            if n not in benchmarks and not (alias_to.get(fold(n), set()) & benchmarks):
                fail(where, f"column {n} names no benchmark the rules know")

    # Aliases.
    order = {name: i for i, name in enumerate(round_names)}
    spans = {}
    for i, a in enumerate(doc.get("aliases", [])):
        where = f"aliases[{i}] \"{a.get('name')}\""
        name, bench = a.get("name"), a.get("benchmark")
        if not isinstance(name, str) or not name or fold(name) != name:
            fail(where, "an alias name is lowercase with '_' for '-' and ' ' (tta folds what it reads so)")
        if bench not in benchmarks and bench not in doc.get("replay_only", []):
            fail(where, f"names {bench}, which no ruleset has (nor replay_only)")
        for k in a:
            if k not in ("name", "benchmark", "from", "before", "source"):
                fail(where, f"unknown field \"{k}\"")
        cited(f"{where} source", a.get("source"))
        lo, hi = 0, len(round_names)
        for k in ("from", "before"):
            if a.get(k) is not None and a[k] not in order:
                fail(where, f"\"{k}\": {a[k]} is not a round of \"rounds\"")
        if a.get("from") in order:
            lo = order[a["from"]]
        if a.get("before") in order:
            hi = order[a["before"]]
        if lo >= hi:
            fail(where, "applies to no round (from is not before before)")
        for (lo2, hi2, bench2) in spans.get(name, []):
            if lo < hi2 and lo2 < hi and bench2 != bench:
                fail(where, f"means both {bench2} and {bench} in some round")
            if lo < hi2 and lo2 < hi and bench2 == bench:
                fail(where, "listed twice")
        spans.setdefault(name, []).append((lo, hi, bench))
    for b in benchmarks:
        if b not in {a.get("benchmark") for a in doc.get("aliases", []) if fold(b) == a.get("name")}:
            fail(f"benchmark {b}", f"no alias \"{fold(b)}\" maps its own name to it (tta looks names up only "
                                   "through aliases)")
    return rules


def check_rcp_files(rules, doc):
    shared = os.environ.get("TTA_SHARED_DIR") or os.path.join(os.path.dirname(REPO), "shared")
    rcp_dir = os.path.join(shared, "rcp")
    if not os.path.isdir(rcp_dir):
        print(f"skip: no RCP folder at {rcp_dir}: rcp flags not checked against files")
        return
    alias_of = {a["name"]: a["benchmark"] for a in doc.get("aliases", []) if "name" in a and "benchmark" in a}
    for r in rules:
        where = f"{r.get('ruleset')} {r.get('benchmark')}"
        path = os.path.join(rcp_dir, checker_folder(str(r.get("ruleset"))), f"rcps_{log_name(r)}.json")
        exists = os.path.isfile(path)
        if r.get("rcp") and not exists:
            fail(where, f"rcp is true but {path} does not exist")
        if not r.get("rcp") and exists:
            fail(where, f"rcp is false but {path} exists")
        if r.get("rcp") and exists:
            try:
                records = json.load(open(path))
            except (OSError, ValueError) as e:
                fail(where, f"{path}: {e}")
                continue
            for rec_name, rec in records.items():
                named = rec.get("Benchmark")
                if named not in (log_name(r), r.get("benchmark")) and alias_of.get(fold(str(named))) != r.get("benchmark"):
                    fail(where, f"{path} record {rec_name} is for benchmark {named}")
                    break


# ---- part 2: the official configs ----------------------------------------------------------------------------

BOUND = re.compile(r"v\['value'\](?:\['(\w+)'\])?\s*(>=|<=|>|<)\s*(s\['\w+'\]|-?[0-9.]+(?:e-?\d+)?)")
BOUND_REV = re.compile(r"(-?[0-9.]+(?:e-?\d+)?)\s*(<=|<)\s*v\['value'\](?:\['(\w+)'\])?")
FIELD = {"bbox_mAP": "BBOX", "segm_mAP": "SEGM", "FID": "FID", "CLIP": "CLIP"}


def thresholds(check, state):
    """{field: ([lower bounds], [upper bounds])} of an ATLEAST_ONE_CHECK expression; field None = the value."""
    out = {}

    def num(tok):
        m = re.fullmatch(r"s\['(\w+)'\]", tok)
        return state.get(m.group(1)) if m else float(tok)

    for field, op, tok in BOUND.findall(check):
        val = num(tok)
        if val is None:
            continue
        lo, hi = out.setdefault(field or None, ([], []))
        (lo if op in (">=", ">") else hi).append(val)
    for tok, op, field in BOUND_REV.findall(check):
        lo, hi = out.setdefault(field or None, ([], []))
        lo.append(float(tok))
    return out


def load_yaml(path, yaml):
    with open(path) as f:
        return yaml.safe_load(f) or []


def eval_check(items):
    """The target check of a closed_<benchmark>.yaml and the state its BEGIN code sets (numbers only)."""
    state, check = {}, None
    for it in items:
        if "BEGIN" in it:
            code = str(it["BEGIN"].get("CODE", ""))
            for k, v in re.findall(r"'(\w+)'\s*:\s*(-?[0-9.]+(?:e-?\d+)?)\s*[,}\n]", code):
                state[k] = float(v)
        key = it.get("KEY") if isinstance(it, dict) else None
        if key and key.get("NAME") in ("eval_accuracy", "aggregated_eval_accuracy", "eval_error") and \
                key.get("ATLEAST_ONE_CHECK"):
            check = key["ATLEAST_ONE_CHECK"]
    return check, state


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_target(where, rule, metric, target, hib, bounds):
    field = FIELD.get(metric) if rule.get("metric2") else None
    if field not in bounds and None in bounds and not rule.get("metric2"):
        field = None
    if field not in bounds:
        fail(where, f"the checker's target check has no bound for {metric}")
        return
    lo, hi = bounds[field]
    scale = 100.0 if rule.get("quality_scale") == "bleu" else 1.0
    if hib:
        # The threshold is the largest lower bound (BERT 0.7.0 has a second, smaller one for big batches).
        lo = [x for x in lo if x > 0]
        if not lo:
            fail(where, f"{metric} is higher-is-better, but the checker gives it no lower bound (upper: {hi})")
        elif not close(max(lo) * scale, target):
            fail(where, f"{metric} target {target} differs from the checker's >= {max(lo)} (x{scale:g})")
    else:
        hi = [x for x in hi if x not in (1.0,) or not lo]
        if not hi:
            fail(where, f"{metric} is lower-is-better, but the checker gives it no upper bound (lower: {lo})")
        elif not close(min(hi) * scale, target):
            fail(where, f"{metric} target {target} differs from the checker's <= {min(hi)} (x{scale:g})")


def literal_assignment(path, name):
    tree = ast.parse(open(path).read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise KeyError(f"{name} not found in {path}")


def check_official(rules, root, doc):
    try:
        import yaml
    except ImportError:
        print("skip: PyYAML is not installed (apt-get install python3-yaml): targets not cross-checked")
        return
    pkg = os.path.join(root, "mlperf_logging")
    cc_root = os.path.join(pkg, "compliance_checker")
    by_ruleset = {}
    for r in rules:
        by_ruleset.setdefault(r["ruleset"], []).append(r)

    def cites_cc(r):
        """Does the rule's target cite a compliance checker that checks it (cc*, hpc-cc; not cc-0.6, hpc-cc-0.7)?"""
        return any((s.startswith("cc") and s != "cc-0.6") or s == "hpc-cc"
                   for s in str(r.get("sources", {}).get("target", "")).split())

    # Targets against closed_<name>.yaml, wherever a target cites the compliance checker.
    n_checked = 0
    for r in rules:
        where = f"{r['ruleset']} {r['benchmark']}"
        if not cites_cc(r):
            continue
        folder = os.path.join(cc_root, checker_folder(r['ruleset']))
        path = next((p for p in (os.path.join(folder, f"closed_{n}.yaml") for n in (log_name(r), r["benchmark"]))
                     if os.path.isfile(p)), None)
        if not path:
            fail(where, f"cites the compliance checker, but {folder}/closed_{log_name(r)}.yaml does not exist")
            continue
        check, state = eval_check(load_yaml(path, yaml))
        if not check:
            fail(where, f"{path} has no eval_accuracy (or eval_error) ATLEAST_ONE_CHECK")
            continue
        bounds = thresholds(check, state)
        check_target(where, r, r["metric"], r["target"], r["higher_is_better"], bounds)
        if r.get("metric2"):
            check_target(where, r, r["metric2"], r["target2"], r["higher_is_better2"], bounds)
        n_checked += 1

    # Each ruleset's benchmarks: closed_common.yaml's submission_benchmark list and benchmark_meta.py.
    all_meta = literal_assignment(os.path.join(pkg, "benchmark_meta.py"), "_ALL_ALLOWED_BENCHMARKS")
    for rs, rs_rules in sorted(by_ruleset.items()):
        if not any(cites_cc(r) for r in rs_rules):
            continue
        ours = {log_name(r) for r in rs_rules}
        usage, version = usage_of(rs)
        common = os.path.join(cc_root, checker_folder(rs), "closed_common.yaml")
        listed = None
        for it in load_yaml(common, yaml):
            key = it.get("KEY") if isinstance(it, dict) else None
            if key and key.get("NAME") == "submission_benchmark":
                m = re.search(r"in\s*(\[[^\]]*\])", str(key.get("CHECK", "")))
                listed = set(ast.literal_eval(m.group(1))) if m else None
        if listed is None:
            fail(f"ruleset {rs}", f"{common} lists no submission_benchmark values")
            continue
        for name in sorted(ours - listed):
            fail(f"ruleset {rs}", f"{name} is not a submission_benchmark that {common} accepts")
        for name in sorted(listed - ours):
            if os.path.isfile(os.path.join(cc_root, checker_folder(rs), f"closed_{name}.yaml")):
                fail(f"ruleset {rs}", f"{name} is accepted by closed_common.yaml and has closed_{name}.yaml, "
                                      "but the rules do not list it")
        short = version.rsplit(".", 1)[0]
        if short in all_meta[usage] and set(all_meta[usage][short]) != ours:
            fail(f"ruleset {rs}", f"benchmark_meta.py lists {sorted(set(all_meta[usage][short]))}, "
                                  f"the rules {sorted(ours)}")

    # The results table's columns: benchmark_meta.py's list, in its order, each name once (the
    # summarizer's column dict keeps the first of a repeated name).
    columns = {c["ruleset"]: c["benchmarks"] for c in doc.get("summary_columns", [])}
    for usage, prefix in (("training", ""), ("hpc", "hpc_")):
        for key, names in sorted(all_meta[usage].items()):
            rs = prefix + (key if key.count(".") == 2 else key + ".0")
            want = list(dict.fromkeys(names))
            if rs in {r["ruleset"] for r in rules} and columns.get(rs) != want:
                fail(f"summary_columns {rs}", f"{columns.get(rs)}, benchmark_meta.py's columns {want}")
    # The MLPerf HPC runs: benchmark_meta.py's result file counts (the strong folder's runs, a weak folder's
    # instances), where a rule cites them.
    hpc_counts = literal_assignment(os.path.join(pkg, "benchmark_meta.py"), "_ALL_RESULT_FILE_COUNTS")["hpc"]
    for r in rules:
        if "hpc-meta" in str(r.get("sources", {}).get("runs_required", "")).split() and \
                hpc_counts.get(log_name(r)) != r.get("runs_required"):
            fail(f"{r['ruleset']} {r['benchmark']}", f"runs_required {r.get('runs_required')}, benchmark_meta.py's "
                                                     f"hpc result file count {hpc_counts.get(log_name(r))}")

    # Runs, dropped runs and how progress is read, from rcp_checker.py and the summarizer.
    rcp_py = os.path.join(pkg, "rcp_checker", "rcp_checker.py")
    all_runs = literal_assignment(rcp_py, "submission_runs")
    text = open(rcp_py).read()
    m = re.search(r"elif benchmark in (\{[^}]*\}) and", text)
    by_samples = ast.literal_eval(m.group(1)) if m else set()
    m = re.search(r'step_unit = "step_num" if ruleset in (\[[^\]]*\])', text)
    step_rulesets = ast.literal_eval(m.group(1)) if m else []
    rs_text = open(os.path.join(pkg, "result_summarizer", "result_summarizer.py")).read()
    m = re.search(r'max_dropped_scores = (\d+) if benchmark == "(\w+)" else (\d+)', rs_text)
    if not m:
        fail("result_summarizer.py", "max_dropped_scores rule not found")
    for r in rules:
        where = f"{r['ruleset']} {r['benchmark']}"
        src = r.get("sources", {})
        name = log_name(r)
        usage = usage_of(r["ruleset"])[0]
        runs = all_runs.get(usage, {})
        if {"rcp", "hpc-rcp"} & set(str(src.get("runs_required", "")).split()):
            if name not in runs:
                fail(where, f"runs_required cites rcp_checker, whose submission_runs has no {name}")
            elif runs[name] != r.get("runs_required"):
                fail(where, f"runs_required {r.get('runs_required')}, rcp_checker's submission_runs {runs[name]}")
        for fact in ("olympic_drop", "max_failed"):
            if m and {"rs", "hpc-rs"} & set(str(src.get(fact, "")).split()):
                want = int(m.group(1)) if r["benchmark"] == m.group(2) else int(m.group(3))
                if r.get(fact) != want:
                    fail(where, f"{fact} {r.get(fact)}, the summarizer's max_dropped_scores {want}")
        if not {"rcp", "hpc-rcp"} & set(str(src.get("progress", "")).split()):
            continue
        if name == "stable_diffusion":
            want = "first_passing_step_num" if r["ruleset"] in step_rulesets else "first_passing_samples_count"
        elif name in by_samples:
            want = "samples_count"
        elif r.get("progress") == "train_samples" and name == "bert":
            want = "train_samples"   # the checker's --bert_train_samples reading (its source says why)
        else:
            want = "epoch_num"
        if r.get("progress") != want:
            fail(where, f"progress {r.get('progress')}, but read_submission_file reads {want} for {name}")
    print(f"checked {n_checked} targets against the compliance checker at {root}")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "schemas", "benchmark_rules.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL: {path}: {e}")
        return 1
    rules = check_internal(doc)
    check_rcp_files([r for r in rules if isinstance(r, dict)], doc)
    root = os.environ.get("MLPERF_LOGGING") or "/tmp/mlperf_logging"
    if os.path.isdir(os.path.join(root, "mlperf_logging", "compliance_checker")):
        if not failures:
            check_official(rules, root, doc)
        else:
            print("skip: the official cross-check needs a consistent file first")
    else:
        print(f"skip: no mlcommons/logging checkout at {root} (set MLPERF_LOGGING): targets not cross-checked "
              "against the compliance checker")
    n = len(rules)
    if failures:
        print(f"{len(failures)} failure(s) in {path} ({n} benchmark rules)")
        return 1
    print(f"ok: {path}: {n} benchmark rules, {len(doc.get('aliases', []))} aliases, {len(doc.get('rounds', []))} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
