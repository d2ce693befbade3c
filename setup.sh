#!/bin/sh
# setup.sh: installs what tta needs from Debian (only what is missing, quietly when nothing
# is), then configures and builds build/tta.
#   ./setup.sh           runtime and build dependencies, Release-with-debug-info build in build/
#   ./setup.sh --test    also what the test suite needs (clang for fuzzing, chromium, valgrind, python3-jsonschema,
#                        python3-scipy for bench/accuracy_drift's test)
#   ./setup.sh --bench   also what bench/ compares against (PyTorch and NumPy from Debian, valgrind) and SciPy
#                        (bench/accuracy_drift's Welch test)
set -eu
cd "$(dirname "$0")"

pkgs="build-essential cmake pkg-config libsqlite3-dev libpcre2-dev libcjson-dev libgsl-dev libopenblas-dev
      libdnnl-dev libopenmpi-dev openmpi-bin zlib1g-dev zstd dataset-fashion-mnist bc"
if [ "${1:-}" = "--test" ]; then
    pkgs="$pkgs clang libclang-rt-14-dev chromium libxml2-utils valgrind sqlite3 python3 python3-jsonschema python3-yaml python3-scipy"
fi
if [ "${1:-}" = "--bench" ]; then
    pkgs="$pkgs valgrind sqlite3 python3 python3-numpy python3-torch python3-scipy"
fi

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: need root to run apt-get (missing:$missing)" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "setup: built build/tta" >&2
