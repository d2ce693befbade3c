#!/usr/bin/env python3
"""make_torch_reference.py: writes the PyTorch fixtures that tests/replay/test_torch_reference.c
checks the replay engine against (the tests read the files and need no Python).

    /usr/bin/python3 tests/replay/make_torch_reference.py [--out fixtures/replay/torch]

Needs python3-torch (Debian's 1.13) and numpy. Everything is computed in float64 from
float32-representable inputs, so the fixtures hold PyTorch's exact answers and the C side's
float32 error is what the tolerances measure. Deterministic: re-running gives the same bytes.

Models are built here from the same JSON model files the engine reads (replay/models/*.json),
by an independent implementation of the model-file rules (TtaNet below), so a fixture checks
both the layers and the meaning of the model files. bench/torch_step.py imports TtaNet.

File format (little-endian): b"TTAFIX1\\0", u32 count, then per entry: u32 name length, name,
u32 dtype (0 float32, 1 int32, 2 UTF-8 text), u32 ndim, u32 dims[ndim], data.
"""
import argparse
import json
import math
import os
import re
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MODELS = os.path.join(ROOT, "replay", "models")

OP_TYPES = {"conv", "bn", "relu", "maxpool", "avgpool", "gap", "gmp", "linear", "add", "flatten",
            "dropout", "scale"}

# ---------------------------------------------------------------------------------------------
# The dropout mask of engine.h (tta_dropout_keep), in uint64 arithmetic.

M64 = (1 << 64) - 1


def mix64(x):
    x &= M64
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M64
    x ^= x >> 31
    return x


def mix64_np(x):
    x = x.copy()
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


def dropout_keep(seed, step, n, p):
    h = mix64((seed * 0x9E3779B97F4A7C15 + step) & M64)
    idx = np.arange(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        v = mix64_np(np.uint64(h) ^ (idx * np.uint64(0xD6E8FEB86659FD93)))
    u = (v >> np.uint64(40)).astype(np.float32)
    return u >= np.float32(p) * np.float32(16777216.0)

# ---------------------------------------------------------------------------------------------
# Model files -> node list (the rules of replay/model_spec.c, written again from the docs)


class Node:
    def __init__(self, name, kind, inputs, shape, **attrs):
        self.name, self.kind, self.inputs, self.shape = name, kind, inputs, shape
        self.attrs = attrs


def expand(spec, in_shape, classes, overrides=None, label_smoothing=None):
    C, H, W = in_shape
    params = {"in_channels": C, "in_height": H, "in_width": W, "classes": classes}
    params.update(spec.get("params", {}))
    for kv in re.split(r"[,\s]+", overrides or ""):
        if not kv:
            continue
        k, v = kv.split("=", 1)
        assert k in spec.get("params", {}), k
        try:
            params[k] = float(v)
        except ValueError:
            params[k] = v
    blocks = spec.get("blocks", {})
    nodes, names = [], {}

    def shape_of(i):
        return in_shape if i < 0 else nodes[i].shape

    def ev(v, sc):
        if isinstance(v, bool):
            return float(v)
        if isinstance(v, (int, float)):
            return float(v)
        expr = re.sub(r"\$([A-Za-z0-9_]+)", lambda m: repr(float(sc[m.group(1)])), v)
        assert re.fullmatch(r"[0-9eE.+\-*/() ]*", expr), expr
        return float(eval(expr))

    def iv(v, sc):
        return int(math.floor(ev(v, sc) + 0.5))

    def sv(v, sc):
        return str(sc[v[1:]]) if v.startswith("$") else v

    def resolve(ref, fr):
        if ref == "prev":
            return fr["prev"]
        if ref == "input":
            return -1
        if ref == "in":
            return fr["in"]
        f = fr
        while f is not None:
            if f["prefix"] + ref in names:
                return names[f["prefix"] + ref]
            f = f["parent"]
        raise KeyError(ref)

    def add(node, fr):
        nodes.append(node)
        names[node.name] = len(nodes) - 1
        fr["prev"] = len(nodes) - 1

    def window(n, k, s, p):
        return (n + 2 * p - k) // s + 1

    def layers(lst, fr):
        for idx, l in enumerate(lst):
            sc = fr["scope"]
            typ = l["type"]
            if typ.startswith("$"):
                typ = sc[typ[1:]]
            lname = l.get("name", "%s%d" % (typ, idx))
            full = fr["prefix"] + lname
            src = resolve(l["input"], fr) if "input" in l else fr["prev"]
            c, h, w = shape_of(src)
            if typ in blocks:
                blk = blocks[typ]
                cur = src
                for r in range(iv(l.get("repeat", 1), sc)):
                    args = {}
                    for a, d in blk.get("args", {}).items():
                        given = None
                        if r == 0 and a in l.get("first_args", {}):
                            given = l["first_args"][a]
                        elif a in l.get("args", {}):
                            given = l["args"][a]
                        if given is None:
                            assert d is not None, (typ, a)
                            args[a] = d
                        elif isinstance(given, str) and given.startswith("$") and isinstance(sc.get(given[1:]), str):
                            args[a] = sc[given[1:]]
                        elif isinstance(given, str) and re.fullmatch(r"[A-Za-z][A-Za-z_]*", given):
                            args[a] = given
                        else:
                            args[a] = ev(given, sc)
                    sub = {"prefix": full + (".%d." % r if iv(l.get("repeat", 1), sc) > 1 else "."),
                           "in": cur, "prev": cur, "parent": fr, "scope": {**sc, **args}}
                    layers(blk["layers"], sub)
                    cur = sub["prev"]
                names[full] = cur
                fr["prev"] = cur
                continue
            if typ == "conv":
                k, s, p = iv(l["kernel"], sc), iv(l.get("stride", 1), sc), iv(l.get("pad", 0), sc)
                add(Node(full, "conv", [src], (iv(l["out"], sc), window(h, k, s, p), window(w, k, s, p)),
                         kernel=k, stride=s, pad=p, bias=bool(iv(l.get("bias", 1), sc))), fr)
            elif typ == "bn":
                add(Node(full, "bn", [src], (c, h, w), eps=ev(l.get("eps", 1e-5), sc),
                         momentum=ev(l.get("momentum", 0.1), sc)), fr)
            elif typ in ("maxpool", "avgpool"):
                k = iv(l["kernel"], sc)
                s, p = iv(l.get("stride", k), sc), iv(l.get("pad", 0), sc)
                add(Node(full, typ, [src], (c, window(h, k, s, p), window(w, k, s, p)), kernel=k, stride=s, pad=p), fr)
            elif typ in ("gap", "gmp"):
                add(Node(full, typ, [src], (c, 1, 1)), fr)
            elif typ == "flatten":
                add(Node(full, typ, [src], (c * h * w, 1, 1)), fr)
            elif typ == "relu":
                add(Node(full, typ, [src], (c, h, w)), fr)
            elif typ == "linear":
                assert h == 1 and w == 1
                add(Node(full, typ, [src], (iv(l["out"], sc), 1, 1), bias=bool(iv(l.get("bias", 1), sc))), fr)
            elif typ == "add":
                a, b = (resolve(r, fr) for r in l["inputs"])
                add(Node(full, typ, [a, b], shape_of(a)), fr)
            elif typ == "dropout":
                add(Node(full, typ, [src], (c, h, w), p=ev(l.get("p", 0.5), sc)), fr)
            elif typ == "scale":
                add(Node(full, typ, [src], (c, h, w), factor=ev(l["factor"], sc)), fr)
            elif typ == "shortcut":
                out, s = iv(l["out"], sc), iv(l.get("stride", 1), sc)
                opt = sv(l.get("option", "A"), sc)
                if s == 1 and out == c:
                    names[full] = src
                    fr["prev"] = src
                elif opt == "A":
                    add(Node(full, "pad_shortcut", [src], (out, (h + s - 1) // s, (w + s - 1) // s),
                             stride=s, front=(out - c) // 2), fr)
                else:
                    add(Node(full + ".conv", "conv", [src], (out, (h - 1) // s + 1, (w - 1) // s + 1),
                             kernel=1, stride=s, pad=0, bias=False), fr)
                    add(Node(full + ".bn", "bn", [len(nodes) - 1], nodes[-1].shape, eps=1e-5, momentum=0.1), fr)
                    names[full] = len(nodes) - 1
            else:
                raise ValueError("unknown layer type " + typ)

    layers(spec["layers"], {"prefix": "", "in": -1, "prev": -1, "parent": None, "scope": params})
    ls = spec.get("label_smoothing", 0.0) if label_smoothing is None else label_smoothing
    return nodes, ls


class TtaNet(torch.nn.Module):
    """A model file as a PyTorch module; parameters named as the engine names them."""

    def __init__(self, spec, in_shape, classes, overrides=None, label_smoothing=None, seed=0):
        super().__init__()
        self.nodes, self.label_smoothing = expand(spec, in_shape, classes, overrides, label_smoothing)
        self.in_shape, self.seed, self.step = in_shape, seed, 0
        self.mods = torch.nn.ModuleList()
        self.mod_of = {}
        for i, n in enumerate(self.nodes):
            cin = (in_shape if n.inputs[0] < 0 else self.nodes[n.inputs[0]].shape)
            m = None
            if n.kind == "conv":
                m = torch.nn.Conv2d(cin[0], n.shape[0], n.attrs["kernel"], n.attrs["stride"], n.attrs["pad"],
                                    bias=n.attrs["bias"])
            elif n.kind == "bn":
                m = torch.nn.BatchNorm2d(n.shape[0], eps=n.attrs["eps"], momentum=n.attrs["momentum"])
            elif n.kind == "linear":
                m = torch.nn.Linear(cin[0] * cin[1] * cin[2], n.shape[0], bias=n.attrs["bias"])
            if m is not None:
                self.mod_of[i] = len(self.mods)
                self.mods.append(m)

    def named_tta_tensors(self):
        """(engine name, tensor, is_buffer) in the engine's order."""
        out = []
        for i, n in enumerate(self.nodes):
            if i not in self.mod_of:
                continue
            m = self.mods[self.mod_of[i]]
            out.append((n.name + ".weight", m.weight, False))
            if m.bias is not None:
                out.append((n.name + ".bias", m.bias, False))
            if n.kind == "bn":
                out.append((n.name + ".running_mean", m.running_mean, True))
                out.append((n.name + ".running_var", m.running_var, True))
        return out

    def forward(self, x):
        vals = {-1: x}
        B = x.shape[0]
        for i, n in enumerate(self.nodes):
            a = vals[n.inputs[0]]
            k = n.kind
            if k in ("conv", "bn"):
                y = self.mods[self.mod_of[i]](a)
            elif k == "linear":
                y = self.mods[self.mod_of[i]](a.reshape(B, -1)).reshape(B, -1, 1, 1)
            elif k == "relu":
                y = F.relu(a)
            elif k == "maxpool":
                y = F.max_pool2d(a, n.attrs["kernel"], n.attrs["stride"], n.attrs["pad"])
            elif k == "avgpool":
                y = F.avg_pool2d(a, n.attrs["kernel"], n.attrs["stride"], n.attrs["pad"], count_include_pad=True)
            elif k == "gap":
                y = a.mean(dim=(2, 3), keepdim=True)
            elif k == "gmp":
                y = a.amax(dim=(2, 3), keepdim=True)
            elif k == "flatten":
                y = a.reshape(B, -1, 1, 1)
            elif k == "add":
                y = a + vals[n.inputs[1]]
            elif k == "scale":
                y = a * n.attrs["factor"]
            elif k == "dropout":
                if self.training:
                    keep = dropout_keep(self.seed, self.step, a.numel(), n.attrs["p"])
                    mask = torch.from_numpy(keep.reshape(a.shape)).to(a.dtype)
                    y = a * mask / (1.0 - n.attrs["p"])
                else:
                    y = a
            elif k == "pad_shortcut":
                s, front = n.attrs["stride"], n.attrs["front"]
                sub = a[:, :, ::s, ::s]
                y = F.pad(sub, (0, 0, 0, 0, front, n.shape[0] - sub.shape[1] - front))
            vals[i] = y
        if self.training:
            self.step += 1
        return vals[len(self.nodes) - 1].reshape(B, -1)


def load_spec(name_or_path):
    path = name_or_path if os.path.exists(name_or_path) else os.path.join(MODELS, name_or_path + ".json")
    with open(path) as f:
        return json.load(f)

# ---------------------------------------------------------------------------------------------
# Fixture files


class Fixture:
    def __init__(self):
        self.entries = []

    def f32(self, name, a):
        a = np.asarray(a.detach().cpu().numpy() if torch.is_tensor(a) else a, dtype=np.float32)
        self.entries.append((name, 0, a))

    def i32(self, name, a):
        a = np.asarray(a.detach().cpu().numpy() if torch.is_tensor(a) else a, dtype=np.int32)
        self.entries.append((name, 1, a))

    def text(self, name, s):
        self.entries.append((name, 2, np.frombuffer(s.encode(), dtype=np.uint8)))

    def write(self, path):
        with open(path, "wb") as f:
            f.write(b"TTAFIX1\0")
            f.write(struct.pack("<I", len(self.entries)))
            for name, dt, a in self.entries:
                nb = name.encode()
                f.write(struct.pack("<I", len(nb)) + nb)
                dims = a.shape if a.ndim else (1,)
                f.write(struct.pack("<II", dt, len(dims)) + struct.pack("<%dI" % len(dims), *dims))
                f.write(a.astype("<f4" if dt == 0 else "<i4" if dt == 1 else "u1").tobytes())


def f32round(t):
    """float64 tensor holding float32-representable values"""
    return t.float().double()


def randn(gen, *shape):
    return f32round(torch.randn(*shape, generator=gen, dtype=torch.float64))

# ---------------------------------------------------------------------------------------------
# Layer fixtures: one op, its inputs, parameters, output and gradients.


def layer_case(out_dir, name, kind, ints, fn, x, params, gen):
    """fn(x, *params) -> y; writes x, params, y, dy, dx, dparams."""
    x = x.clone().requires_grad_(True)
    ps = [p.clone().requires_grad_(True) for p in params]
    y = fn(x, *ps)
    dy = randn(gen, *y.shape)
    y.backward(dy)
    fx = Fixture()
    fx.text("kind", kind)
    fx.i32("ints", ints)
    fx.f32("x", x)
    fx.f32("y", y)
    fx.f32("dy", dy)
    fx.f32("dx", x.grad)
    for i, p in enumerate(ps):
        fx.f32("p%d" % i, p)
        fx.f32("dp%d" % i, p.grad)
    fx.write(os.path.join(out_dir, "layer_%s.bin" % name))


def make_layers(out_dir):
    g = torch.Generator().manual_seed(1)
    # conv: ints = N C H W OC K S P bias relu
    for nm, (N, C, H, OC, K, S, P, bias, relu) in {
            "conv_first": (2, 3, 9, 16, 3, 1, 1, True, False),
            "conv_s2_relu": (2, 8, 8, 16, 3, 2, 1, False, True),
            "conv_1x1": (2, 16, 7, 8, 1, 1, 0, True, False),
            "conv_nchw": (2, 6, 10, 16, 5, 1, 0, True, False)}.items():
        x = randn(g, N, C, H, H)
        w = f32round(torch.empty(OC, C, K, K, dtype=torch.float64).uniform_(-1, 1, generator=g) / math.sqrt(C * K * K))
        b = randn(g, OC) if bias else torch.zeros(OC, dtype=torch.float64)
        def fn(x, w, b, S=S, P=P, relu=relu, bias=bias):
            y = F.conv2d(x, w, b if bias else None, S, P)
            return F.relu(y) if relu else y
        layer_case(out_dir, nm, "conv", [N, C, H, H, OC, K, S, P, int(bias), int(relu)], fn, x, [w, b], g)
    # bn (training: batch statistics; running stats checked separately): ints = N C H relu
    for nm, (N, C, H, relu) in {"bn": (4, 16, 5, False), "bn_relu_nchw": (3, 6, 4, True)}.items():
        x = f32round(randn(g, N, C, H, H) * 2 + 3)
        gamma, beta = f32round(1 + 0.1 * randn(g, C)), randn(g, C)
        def fn(x, gamma, beta, relu=relu):
            y = F.batch_norm(x, None, None, gamma, beta, True, 0.1, 1e-5)
            return F.relu(y) if relu else y
        layer_case(out_dir, nm, "bn", [N, C, H, H, int(relu)], fn, x, [gamma, beta], g)
    # pooling: ints = N C H K S P
    for nm, (kind, N, C, H, K, S, P) in {
            "maxpool_7to3": ("maxpool", 2, 16, 7, 2, 2, 0), "maxpool_k3p1": ("maxpool", 2, 8, 8, 3, 2, 1),
            "avgpool_k3p1": ("avgpool", 2, 8, 7, 3, 2, 1), "gap": ("gap", 2, 16, 5, 0, 0, 0),
            "gmp": ("gmp", 2, 6, 4, 0, 0, 0)}.items():
        x = randn(g, N, C, H, H)
        fn = {"maxpool": lambda x, K=K, S=S, P=P: F.max_pool2d(x, K, S, P),
              "avgpool": lambda x, K=K, S=S, P=P: F.avg_pool2d(x, K, S, P, count_include_pad=True),
              "gap": lambda x: x.mean(dim=(2, 3), keepdim=True),
              "gmp": lambda x: x.amax(dim=(2, 3), keepdim=True)}[kind]
        layer_case(out_dir, nm, kind, [N, C, H, H, K, S, P], fn, x, [], g)
    # linear: ints = N I O bias relu
    for nm, (N, I, O, bias, relu) in {"linear": (4, 20, 10, True, False), "linear_relu": (5, 33, 16, True, True)}.items():
        x = randn(g, N, I, 1, 1)
        w = f32round(torch.empty(O, I, dtype=torch.float64).uniform_(-1, 1, generator=g) / math.sqrt(I))
        b = randn(g, O)
        def fn(x, w, b, relu=relu):
            y = F.linear(x.reshape(x.shape[0], -1), w, b).reshape(x.shape[0], -1, 1, 1)
            return F.relu(y) if relu else y
        layer_case(out_dir, nm, "linear", [N, I, O, int(bias), int(relu)], fn, x, [w, b], g)
    # relu, dropout (p 0.3, seed 7, step 3), scale, shortcut (option A), flatten: ints = N C H [extra]
    x = randn(g, 2, 16, 5, 5)
    layer_case(out_dir, "relu", "relu", [2, 16, 5, 5], F.relu, x, [], g)
    keep = torch.from_numpy(dropout_keep(7, 3, x.numel(), 0.3).reshape(x.shape)).double()
    layer_case(out_dir, "dropout", "dropout", [2, 16, 5, 5, 7, 3], lambda x: x * keep / 0.7, x, [], g)
    layer_case(out_dir, "scale", "scale", [2, 16, 5, 5], lambda x: x * 0.125, x, [], g)
    layer_case(out_dir, "flatten", "flatten", [2, 16, 5, 5], lambda x: x.reshape(2, -1, 1, 1), x, [], g)
    layer_case(out_dir, "shortcut", "pad_shortcut", [2, 16, 5, 5, 32, 2, 8],
               lambda x: F.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, 8, 8)), x, [], g)
    # cross-entropy with label smoothing 0.1: x = logits [6, 10], labels
    z = randn(g, 6, 10, 1, 1) * 2
    labels = torch.tensor([0, 3, 9, 2, 2, 5])
    fx_fn = lambda z: F.cross_entropy(z.reshape(6, 10), labels, label_smoothing=0.1).reshape(1, 1, 1, 1)
    zz = z.clone().requires_grad_(True)
    loss = fx_fn(zz)
    loss.backward(torch.ones_like(loss))
    fx = Fixture()
    fx.text("kind", "xent")
    fx.i32("ints", [6, 10])
    fx.i32("labels", labels)
    fx.f32("x", z)
    fx.f32("y", loss.reshape(1))
    fx.f32("dx", zz.grad)
    fx.f32("smoothing", [0.1])
    fx.write(os.path.join(out_dir, "layer_xent.bin"))

# ---------------------------------------------------------------------------------------------
# Model fixtures: parameters, one forward/backward, ten steps of SGD (and with momentum).

CUSTOM = {
    "name": "fixture-mix",
    "params": {"c": 8},
    "label_smoothing": 0.1,
    "layers": [
        {"name": "conv1", "type": "conv", "out": "$c", "kernel": 3, "pad": 1},
        {"name": "bn1", "type": "bn"},
        {"name": "relu1", "type": "relu"},
        {"name": "pool1", "type": "avgpool", "kernel": 3, "stride": 2, "pad": 1},
        {"name": "drop", "type": "dropout", "p": 0.3},
        {"name": "conv2", "type": "conv", "out": "2 * $c", "kernel": 3, "stride": 2, "pad": 1, "bias": False},
        {"name": "relu2", "type": "relu"},
        {"name": "pool2", "type": "maxpool", "kernel": 2},
        {"name": "flatten", "type": "flatten"},
        {"name": "fc1", "type": "linear", "out": 24},
        {"name": "relu3", "type": "relu"},
        {"name": "fc2", "type": "linear", "out": "$classes"},
    ],
}

MODEL_CASES = [
    # name, spec, overrides, (C, H), batch, seed
    ("mlp", "mlp", "hidden1=32,hidden2=16", (1, 8), 8, 11),
    ("lenet", "lenet", None, (1, 28), 4, 12),
    ("resnet9", "resnet9", "width=0.125", (3, 16), 8, 13),
    ("resnet9_gap", "resnet9", "width=0.0625,global_pool=gap", (1, 28), 4, 14),
    ("resnet20_a", "resnet20", "width=0.5", (3, 16), 8, 15),
    ("resnet20_b", "resnet20", "width=0.25,shortcut=B,n=2", (1, 12), 6, 16),
    ("mix", CUSTOM, None, (3, 12), 8, 17),
]


def make_model(out_dir, name, spec_ref, overrides, shape, batch, seed, classes=10):
    spec = spec_ref if isinstance(spec_ref, dict) else load_spec(spec_ref)
    torch.manual_seed(seed)
    fx = Fixture()
    fx.text("json", json.dumps(spec))
    fx.text("overrides", overrides or "")
    fx.i32("config", [shape[0], shape[1], shape[1], classes, batch])
    g = torch.Generator().manual_seed(seed)
    x = randn(g, batch, shape[0], shape[1], shape[1])
    y = torch.randint(0, classes, (batch,), generator=g)
    fx.f32("x", x)
    fx.i32("labels", y)
    init = None
    for momentum in (0.0, 0.9):
        torch.manual_seed(seed)
        net = TtaNet(spec, (shape[0], shape[1], shape[1]), classes, overrides, seed=0).double()
        with torch.no_grad():  # float32-representable initial parameters
            for _, t, _ in net.named_tta_tensors():
                t.copy_(f32round(t))
        if init is None:
            init = [(n, t.detach().clone()) for n, t, buf in net.named_tta_tensors()]
            for n, t in init:
                fx.f32("init:" + n, t)
        net.train()
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=momentum)
        losses = []
        for step in range(10):
            opt.zero_grad()
            logits = net(x)
            loss = F.cross_entropy(logits, y, label_smoothing=net.label_smoothing)
            loss.backward()
            if step == 0 and momentum == 0.0:
                fx.f32("logits", logits)
                fx.f32("loss", loss.reshape(1))
                for n, t, buf in net.named_tta_tensors():
                    if buf:
                        fx.f32("step1:" + n, t)
                    else:
                        fx.f32("grad:" + n, t.grad)
            losses.append(loss.item())
            opt.step()
        fx.f32("losses_sgd" if momentum == 0.0 else "losses_momentum", losses)
        if momentum == 0.9:
            net.eval()
            with torch.no_grad():
                logits = net(x)
                fx.f32("eval_loss", F.cross_entropy(logits, y, label_smoothing=net.label_smoothing).reshape(1))
    fx.write(os.path.join(out_dir, "model_%s.bin" % name))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "fixtures", "replay", "torch"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    make_layers(args.out)
    for case in MODEL_CASES:
        make_model(args.out, *case)
    print("wrote fixtures to", args.out, "with torch", torch.__version__)


if __name__ == "__main__":
    main()
