#!/bin/bash
# check_sgd_ptx.sh NVCC KERNELS_CU SOURCE_DIR: the SGD kernel (k_sgd) must round every product and
# sum on its own, as the host's tta_optim_step does, so that the optimizer on the device gives the
# host's bits: its PTX for sm_90 must hold mul/add/sub.rn.f32 and no fma (nvcc contracts a * b + c
# into one fma unless told not to: kernels.cu uses __fmul_rn and __fadd_rn/__fsub_rn). Runs
# wherever CUDA's compiler is, without a GPU.
set -uo pipefail
nvcc=$1 src=$2 root=$3
ptx=$(mktemp /tmp/tta-sgd.XXXXXX.ptx)
trap 'rm -f "$ptx"' EXIT
if ! "$nvcc" -arch=sm_90 -ptx -I"$root" "$src" -o "$ptx"; then
    echo "FAIL: nvcc could not compile $src to PTX"
    exit 1
fi
body=$(awk '/\.entry .*k_sgd/,/^}/' "$ptx")
fmas=$(grep -cE '^\s*fma\.' <<<"$body")
muls=$(grep -cE '^\s*mul\.rn\.f32' <<<"$body")
echo "k_sgd: $muls mul.rn.f32, $fmas fma"
[ -n "$body" ] && [ "$muls" -gt 0 ] && [ "$fmas" -eq 0 ]
