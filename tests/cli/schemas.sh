#!/bin/bash
# Every shipped model file (replay/models) validates against schemas/model.schema.json and every
# shipped replay SPEC (bench/recipes, fixtures/replay/specs) against schemas/replay-spec.schema.json,
# with Debian's python3-jsonschema; files with a wrong field are rejected by the schema.
set -uo pipefail
if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
    echo "SKIPPED: python3-jsonschema is not installed (setup.sh --test installs it)"
    exit 77
fi
/usr/bin/python3 - <<'PY'
import glob, json, sys
from jsonschema import Draft202012Validator
passed = failed = 0
def check(what, ok):
    global passed, failed
    if ok: passed += 1
    else:
        failed += 1
        print("FAIL:", what)
model = Draft202012Validator(json.load(open("schemas/model.schema.json")))
spec = Draft202012Validator(json.load(open("schemas/replay-spec.schema.json")))
for f in sorted(glob.glob("replay/models/*.json")):
    errs = [e.message for e in model.iter_errors(json.load(open(f)))]
    check("%s: %s" % (f, errs[:2]), not errs)
for f in sorted(glob.glob("bench/recipes/*.json") + glob.glob("fixtures/replay/specs/*.json")):
    errs = [e.message for e in spec.iter_errors(json.load(open(f)))]
    check("%s: %s" % (f, errs[:2]), not errs)
bad = json.load(open("replay/models/mlp.json"))
bad["layers"][1]["kernel"] = 3  # a linear layer has no kernel
check("a linear layer with a kernel is rejected", any(True for _ in model.iter_errors(bad)))
bad = json.load(open("bench/recipes/fmnist-cnn.json"))
bad["augment"]["rotate"] = 15
check("an unknown augmentation is rejected", any(True for _ in spec.iter_errors(bad)))
bad["augment"].pop("rotate"); bad["dataset"] = {"kind": "cifar10"}
check("cifar10 without a path is rejected", any(True for _ in spec.iter_errors(bad)))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
