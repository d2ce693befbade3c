# Prints the torch.optim reference values pasted into tests/replay/test_optim.c.
# Run with Debian python3-torch: /usr/bin/python3 tests/replay/make_optim_reference.py
import torch
torch.set_default_dtype(torch.float32)
def run(make, steps=5, lrs=None):
    p = torch.tensor([0.5, -1.0, 2.0, 0.25], requires_grad=True)
    b = torch.tensor([0.1, -0.2], requires_grad=True)
    opt = make([{'params': [p]}, {'params': [b], 'weight_decay': 0.0}])
    for s in range(steps):
        if lrs:
            for gr in opt.param_groups: gr['lr'] = lrs[s]
        opt.zero_grad()
        loss = (p * torch.tensor([1.0, 2.0, -1.0, 0.5])).pow(2).sum() + (b * b * 3).sum() + (p.sum() * b.sum())
        loss.backward()
        opt.step()
    return [float(x) for x in p.detach()] + [float(x) for x in b.detach()]
print("sgd_nesterov", run(lambda g: torch.optim.SGD(g, lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)))
print("sgd_lrs", run(lambda g: torch.optim.SGD(g, lr=0.1, momentum=0.9, weight_decay=5e-4), lrs=[0.1, 0.05, 0.2, 0.02, 0.1]))
print("adam", run(lambda g: torch.optim.Adam(g, lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2)))
print("adamw", run(lambda g: torch.optim.AdamW(g, lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2)))
