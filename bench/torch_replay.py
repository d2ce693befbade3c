#!/usr/bin/env python3
"""torch_replay.py: the PyTorch side of bench/replay: a tta replay recipe (bench/recipes/*.json)
trained the way a PyTorch user would write it, with the same data, splits, model, optimizer,
schedule, batch size, augmentation, evaluation every epoch and MLPerf-style timing as `tta replay`:

  - data: Fashion-MNIST IDX files; train = the first 50,000 training images, validation = the
    10,000 test images; pixels / 255 (as tta);
  - model: idiomatic torch.nn modules (nn.Sequential; a Residual module) equal to tta's model
    files "mlp" (784-512-512-10) and "resnet9_small" (16-32-64, global max pool, x0.125);
  - SGD (Nesterov, momentum, weight decay on every tensor), the learning rate set before every
    step from the recipe's piecewise-linear schedule at (epoch - 1) + (step + 1) / steps, as tta;
  - augmentation (random crop with zero padding, horizontal flip) on each batch with tensor ops,
    inside the timed region; shuffling with drop_last;
  - the clock starts before the data are read (run_start), evaluation (model.eval(),
    torch.no_grad(), batches of 1000) after every epoch, stop at the recipe's target.

    /usr/bin/python3 bench/torch_replay.py RECIPE.json [--threads 2] [--max-epochs E]
                                           [--thresholds 0.88,0.90] [--seed 0] [--device cpu|cuda]

--device cuda (bench/gpu_check): the model, the data and every step on the GPU (the data are copied
there once, after run_start, as tta's cuda backend does); the clock reads after a synchronize.

Prints one JSON object: per-epoch (time since run_start, train seconds, eval seconds,
validation accuracy, loss), training samples/s, the seconds reading the data before the first
epoch (data_s), TTA to each threshold, peak RSS.
"""
import argparse
import gzip
import json
import os
import resource
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, n = struct.unpack(">II", data[:8])
    if magic == 0x803:
        h, w = struct.unpack(">II", data[8:16])
        return np.frombuffer(data, np.uint8, offset=16).reshape(n, 1, h, w)
    return np.frombuffer(data, np.uint8, offset=8).astype(np.int64)


def idx_path(d, name):
    p = os.path.join(d, name)
    return p if os.path.exists(p) else p + ".gz"


def read_fmnist(d):
    """Fashion-MNIST from folder d as (train images [50000][1][28][28] / 255, their labels (int64),
    validation images [10000][1][28][28] / 255, their labels): the first 50,000 training images, and
    the 10,000 test images for validation, as tta splits them"""
    xtr = torch.from_numpy(read_idx(idx_path(d, "train-images-idx3-ubyte")).astype(np.float32) / 255.0)
    ytr = torch.from_numpy(read_idx(idx_path(d, "train-labels-idx1-ubyte")))
    xva = torch.from_numpy(read_idx(idx_path(d, "t10k-images-idx3-ubyte")).astype(np.float32) / 255.0)
    yva = torch.from_numpy(read_idx(idx_path(d, "t10k-labels-idx1-ubyte")))
    n_train = xtr.shape[0] - 10000
    return xtr[:n_train], ytr[:n_train].long(), xva, yva.long()


def model_params(text):
    """a recipe's model_params ("k=v,k=v" or space-separated) as {k: int}"""
    params = {}
    for kv in (text or "").replace(",", " ").split():
        k, v = kv.split("=")
        params[k] = int(float(v))
    return params


class Residual(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return x + self.inner(x)


class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def build(model, params):
    if model == "mlp":
        h1, h2 = params.get("hidden1", 512), params.get("hidden2", 512)
        return nn.Sequential(nn.Flatten(), nn.Linear(784, h1), nn.ReLU(inplace=True), nn.Linear(h1, h2),
                             nn.ReLU(inplace=True), nn.Linear(h2, 10))
    if model == "resnet9_small":
        c0, c1, c2 = params.get("c_prep", 16), params.get("c1", 32), params.get("c2", 64)
        return nn.Sequential(
            conv_bn(1, c0),
            conv_bn(c0, c1), nn.MaxPool2d(2), Residual(nn.Sequential(conv_bn(c1, c1), conv_bn(c1, c1))),
            conv_bn(c1, c2), nn.MaxPool2d(2), Residual(nn.Sequential(conv_bn(c2, c2), conv_bn(c2, c2))),
            nn.AdaptiveMaxPool2d(1), nn.Flatten(), nn.Linear(c2, 10, bias=False), Scale(0.125))
    raise SystemExit("torch_replay.py: model %s: only mlp and resnet9_small are written here" % model)


def lr_at(sched, epochs):
    """piecewise linear through (epochs[i], values[i]), flat outside"""
    xs, ys = sched["epochs"], sched["values"]
    return float(np.interp(epochs, xs, ys))


def augment(x, pad, flip, gen):
    """random crop of the zero-padded batch and horizontal flip, per sample, with tensor ops"""
    n, c, h, w = x.shape
    if pad:
        xp = F.pad(x, (pad, pad, pad, pad))
        d = x.device  # the draws come from the CPU generator (the same on either device), used on x's
        dy = torch.randint(0, 2 * pad + 1, (n,), generator=gen).to(d)
        dx = torch.randint(0, 2 * pad + 1, (n,), generator=gen).to(d)
        rows = (dy[:, None] + torch.arange(h, device=d)[None, :])  # n x h
        cols = (dx[:, None] + torch.arange(w, device=d)[None, :])  # n x w
        x = xp[torch.arange(n, device=d)[:, None, None, None], torch.arange(c, device=d)[None, :, None, None],
               rows[:, None, :, None], cols[:, None, None, :]]
    if flip:
        m = (torch.rand(n, generator=gen) < 0.5).to(x.device)
        x = torch.where(m[:, None, None, None], x.flip(3), x)
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("recipe")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-epochs", type=int, default=0)
    ap.add_argument("--thresholds", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    a = ap.parse_args()
    if a.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("torch_replay.py: --device cuda: this PyTorch (%s) sees no CUDA device" % torch.__version__)
    dev = torch.device(a.device)

    def sync():
        if a.device == "cuda":
            torch.cuda.synchronize()
    with open(a.recipe) as f:
        r = json.load(f)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    gen = torch.Generator().manual_seed(a.seed + 1)
    net = build(r["model"], model_params(r.get("model_params"))).to(dev)
    o = r["optimizer"]
    opt = torch.optim.SGD(net.parameters(), lr=0.0, momentum=o.get("momentum", 0), nesterov=o.get("nesterov", False),
                          weight_decay=o.get("weight_decay", 0))
    bs, max_epochs = r["batch_size"], a.max_epochs or r["max_epochs"]
    thresholds = sorted(float(t) for t in a.thresholds.split(",") if t) or [r["target"]["value"]]
    aug = r.get("augment", {})
    pad, flip = aug.get("crop_pad", 0), aug.get("flip", False)

    t0 = time.perf_counter()  # run_start: data are touched
    d = r["dataset"].get("path", "/usr/share/datasets/fashion-mnist")
    xtr, ytr, xva, yva = read_fmnist(d)
    n_train = xtr.shape[0]
    xtr, ytr = xtr.to(dev), ytr.to(dev)
    xva, yva = xva.to(dev), yva.to(dev)
    sync()
    data_s = time.perf_counter() - t0  # reading the data, before the first epoch
    steps = n_train // bs
    epochs, tta, train_time, trained = [], {}, 0.0, 0
    for epoch in range(1, max_epochs + 1):
        net.train()
        te = time.perf_counter()
        perm = torch.randperm(n_train, generator=gen).to(dev)
        loss_sum = 0.0
        for s in range(steps):
            idx = perm[s * bs:(s + 1) * bs]
            x, y = xtr[idx], ytr[idx]
            if pad or flip:
                x = augment(x, pad, flip, gen)
            for g in opt.param_groups:
                g["lr"] = lr_at(r["schedule"], (epoch - 1) + (s + 1) / steps)
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            loss_sum += loss.item()
        sync()
        t_train = time.perf_counter() - te
        train_time += t_train
        trained += steps * bs
        tv = time.perf_counter()
        net.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, xva.shape[0], 1000):
                correct += (net(xva[i:i + 1000]).argmax(1) == yva[i:i + 1000]).sum().item()
        acc = correct / xva.shape[0]
        sync()
        now = time.perf_counter()
        epochs.append({"epoch": epoch, "t": now - t0, "train_s": t_train, "eval_s": now - tv, "val_acc": acc,
                       "loss": loss_sum / steps})
        print("torch epoch %d: loss %.4f val %.2f%% %.0f samples/s" % (epoch, loss_sum / steps, acc * 100,
                                                                     steps * bs / t_train), file=sys.stderr)
        for th in thresholds:
            if th not in tta and acc >= th * (1 - 1e-6):
                tta[th] = now - t0
        if acc >= thresholds[-1] * (1 - 1e-6):
            break
    print(json.dumps({"engine": "pytorch " + torch.__version__, "device": a.device,
                      "device_name": torch.cuda.get_device_name(0) if a.device == "cuda" else None,
                      "threads": torch.get_num_threads(),
                      "recipe": os.path.basename(a.recipe), "epochs": epochs,
                      "samples_per_s": trained / train_time if train_time else None, "data_s": data_s,
                      "s_per_epoch": train_time / len(epochs) if epochs else None,
                      "tta_s": {"%.4g" % th: tta.get(th) for th in thresholds},
                      "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


if __name__ == "__main__":
    main()
