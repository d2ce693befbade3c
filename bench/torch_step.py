#!/usr/bin/env python3
"""torch_step.py: the PyTorch side of bench/bench_engine.c and of bench/contention: the same models,
the same training step (forward, cross-entropy, backward, SGD momentum 0.9 weight decay 5e-4) and
the same evaluation (model.eval(), torch.no_grad(), batches of --eval-batch).

    /usr/bin/python3 bench/torch_step.py [--model mlp|cnn|all] [--threads 2] [--steps N]
                                         [--eval-images 10000] [--eval-batch 1000] [--width 0.25]
                                         [--recipe bench/recipes/X.json] [--data DIR] [--json]

The data are Fashion-MNIST's, read from --data (default /usr/share/datasets/fashion-mnist, or the
recipe's dataset path) as bench/torch_replay.py reads them: the batches come from the first 50,000
training images / 255, gathered by a shuffled index each step as a training loop does, and the
evaluation's images from the 10,000 test images. Why not synthetic tensors, as before: PyTorch's
speed here depends on what the process allocated before its steps. glibc's malloc gives freed
memory back to the kernel above a threshold that it raises when a block of up to 32 MiB that it
had mapped is freed; reading the test images (a 7.8 MB buffer, freed) raises it above one step's
gradients and activations, while a process that made only small tensors first gives them back at
the end of every step and faults them in again at the next: 1.2-1.6 M page faults for 1,170 mlp
steps against 58 k for bench/torch_replay.py's 1,170 on the same machine, and the steps a third
slower (15-19 k against 25-30 k samples/s, Zen 4 VM, 2026-12-07). Reading the same data as
bench/torch_replay.py puts both PyTorch sides in the state a training script is in.

--model steps the models of bench_engine (built from tta's model files by
tests/replay/make_torch_reference.py's TtaNet). --recipe steps a replay recipe's model as
bench/torch_replay.py writes it (idiomatic torch.nn modules: bench/replay's PyTorch side), with its
batch size, SGD momentum/Nesterov/weight decay at learning rate 0.01 and its augmentation: the step
`tta profile RECIPE` times (bench/contention); --model is then ignored.

Run it next to build-*/bench/bench_engine with the same options and compare samples/s.
Set OMP_WAIT_POLICY the same for both: bench_engine, where it is unset, sets tta's own wait (PASSIVE
after GOMP_SPINCOUNT=TTA_OMP_SPINCOUNT of replay/replay.h); set both variables for the two alike.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "replay"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_torch_reference import TtaNet, load_spec  # noqa: E402
from torch_replay import augment, build, model_params, read_fmnist  # noqa: E402

FMNIST = "/usr/share/datasets/fashion-mnist"


def fmnist(d):
    """(train images, their labels, validation images) of bench/torch_replay.py's read_fmnist, with
    a clear error where the dataset is missing"""
    try:
        xtr, ytr, xva, _ = read_fmnist(d)
    except OSError as e:
        raise SystemExit("torch_step.py: Fashion-MNIST in %s: %s (Debian's dataset-fashion-mnist)" % (d, e))
    return xtr, ytr, xva


def step_flops(net, batch):
    """forward + backward FLOPs of the convolutions and linear layers (2 per MAC; the first
    layer's input gradient is not computed), for GFLOP/s comparable with bench_engine's count
    of the same layers"""
    total, first = 0.0, True
    for i, n in enumerate(net.nodes):
        if n.kind not in ("conv", "linear"):
            continue
        cin = net.in_shape if n.inputs[0] < 0 else net.nodes[n.inputs[0]].shape
        fan = (cin[0] * n.attrs["kernel"] ** 2) if n.kind == "conv" else cin[0] * cin[1] * cin[2]
        f = 2.0 * batch * n.shape[0] * n.shape[1] * n.shape[2] * fan
        total += f * (2 if first else 3)
        first = False
    return total


def run(label, model, overrides, batch, args, data, momentum=0.9, nesterov=False, weight_decay=5e-4,
        idiomatic=False, aug=None):
    """times args.steps training steps (after args.warmup) and an evaluation; data: (images,
    labels, validation images): the batches are drawn from the first two, the evaluation's images
    from the third; idiomatic: the model as bench/torch_replay.py builds it
    (else TtaNet from tta's model file); aug: the recipe's augmentation"""
    torch.manual_seed(1)
    gen = torch.Generator().manual_seed(2)
    counted = TtaNet(load_spec(model), (1, 28, 28), 10, overrides)  # the FLOP count's layers
    net = build(model, model_params(overrides)) if idiomatic else counted
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=momentum, nesterov=nesterov,
                          weight_decay=weight_decay)
    xtr, ytr, xva = data
    per_epoch = xtr.shape[0] // batch
    pad, flip = (aug or {}).get("crop_pad", 0), (aug or {}).get("flip", False)
    net.train()
    for s in range(args.warmup + args.steps):
        if s == args.warmup:
            t0 = time.perf_counter()
        if s % per_epoch == 0:
            perm = torch.randperm(xtr.shape[0], generator=gen)
        idx = perm[(s % per_epoch) * batch:(s % per_epoch + 1) * batch]
        x, y = xtr[idx], ytr[idx]
        if pad or flip:
            x = augment(x, pad, flip, gen)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
    dt = time.perf_counter() - t0
    sps = batch * args.steps / dt
    gflops = step_flops(counted, batch) * args.steps / dt * 1e-9
    net.eval()
    n = args.eval_images
    ex = xva.repeat((n + xva.shape[0] - 1) // xva.shape[0], 1, 1, 1)[:n].contiguous()
    with torch.no_grad():
        net(ex[: min(n, args.eval_batch)])
        e0 = time.perf_counter()
        for i in range(0, n, args.eval_batch):
            net(ex[i:i + args.eval_batch])
        edt = time.perf_counter() - e0
    if args.json:
        print(json.dumps({"workload": label, "engine": "pytorch " + torch.__version__, "batch": batch,
                          "steps": args.steps, "samples_per_s": round(sps, 1), "conv_linear_gflops": round(gflops, 2),
                          "eval_images": n, "eval_s": round(edt, 3), "eval_images_per_s": round(n / edt, 1),
                          "threads": torch.get_num_threads()}))
    else:
        print("%-11s torch batch %3d: %8.1f samples/s  %6.1f GFLOP/s (conv+linear)   eval %d images in %.2f s "
              "(%.0f images/s)" % (label, batch, sps, gflops, n, edt, n / edt))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="all", choices=["mlp", "cnn", "all"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--eval-images", type=int, default=10000)
    ap.add_argument("--eval-batch", type=int, default=1000)
    ap.add_argument("--width", default="0.25")
    ap.add_argument("--recipe", default=None)
    ap.add_argument("--data", default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if not args.json:
        print("torch %s, %d threads, OMP_WAIT_POLICY=%s" % (torch.__version__, torch.get_num_threads(),
                                                            os.environ.get("OMP_WAIT_POLICY", "(unset)")),
              file=sys.stderr)
    if args.recipe:
        with open(args.recipe) as f:
            r = json.load(f)
        o = r.get("optimizer", {})
        if o.get("kind", "sgd") != "sgd":
            raise SystemExit("torch_step.py: --recipe steps SGD recipes only, not %s" % o.get("kind"))
        a = argparse.Namespace(**vars(args))
        a.steps = args.steps or 20
        data = fmnist(args.data or r.get("dataset", {}).get("path", FMNIST))
        run(os.path.splitext(os.path.basename(args.recipe))[0], r["model"], r.get("model_params"), r["batch_size"], a,
            data, o.get("momentum", 0.0), o.get("nesterov", False), o.get("weight_decay", 0.0), idiomatic=True,
            aug=r.get("augment"))
        return
    data = fmnist(args.data or FMNIST)
    if args.model in ("mlp", "all"):
        a = argparse.Namespace(**vars(args))
        a.steps = args.steps or 300
        run("fmnist-mlp", "mlp", None, 128, a, data)
    if args.model in ("cnn", "all"):
        a = argparse.Namespace(**vars(args))
        a.steps = args.steps or 20
        run("fmnist-cnn", "resnet9", "width=" + args.width, 256, a, data)


if __name__ == "__main__":
    main()
