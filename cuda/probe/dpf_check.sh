#!/bin/sh
# Host check of the FP64 Montgomery product (dpf.cuh): g++ and python3, no GPU.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
g++ -std=c++17 -O2 -ffp-contract=off -o "$out/dpf_host" "$here/dpf_host.cpp"
"$out/dpf_host" | python3 "$here/dpf_check.py"
