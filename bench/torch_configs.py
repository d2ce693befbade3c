"""torch_configs.py: the environments in which bench/replay and bench/contention run PyTorch beside
PASSIVE, each a configuration where PyTorch may be at its best on a host (the benches report tta
against every one asked for)."""

# PyTorch on huge pages (bench/replay --torch-wait huge, bench/contention --torch-huge): glibc (2.35
# and later) advises MADV_HUGEPAGE for the blocks it maps, which holds PyTorch's tensors; Debian 12's
# PyTorch 1.13 has no switch of its own
TORCH_HUGE_ENV = {"OMP_WAIT_POLICY": "PASSIVE", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
# PyTorch with glibc's malloc keeping freed memory (bench/replay --torch-wait keep, bench/contention
# --torch-keep): no trimming of the heap, and blocks up to 32 MiB (the most the tunable takes) from
# the heap rather than mapped apart. PyTorch frees a step's activations and gradients at its end and
# allocates them again at the next; with glibc's default thresholds the cnn's (tens of MB a step)
# are given back to the kernel and faulted in again, about 40,000 page faults a step, and its steps
# ran 12-15 % slower than with these (bench/torch_step.py, Zen 4 VM, 2026-12-07)
TORCH_KEEP_ENV = {"OMP_WAIT_POLICY": "PASSIVE",
                  "GLIBC_TUNABLES": "glibc.malloc.trim_threshold=4294967295:glibc.malloc.mmap_threshold=33554432"}
