# tests/cli/lib/fmnist.sh, sourced by the CLI tests that train on Fashion-MNIST:
#   skip_without_fmnist   exits 77 (ctest's skip) with the reason where Debian's
#                         dataset-fashion-mnist is not installed
skip_without_fmnist() {
    local dir=/usr/share/datasets/fashion-mnist
    if [ ! -f "$dir/train-images-idx3-ubyte.gz" ] && [ ! -f "$dir/train-images-idx3-ubyte" ]; then
        echo "SKIPPED: no Fashion-MNIST in $dir (Debian's dataset-fashion-mnist)"
        exit 77
    fi
}
