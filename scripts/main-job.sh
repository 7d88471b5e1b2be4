#!/usr/bin/env bash
# The README's main job, checked against its committed results: runs
# `sgformer compare --dataset synthetic` (about 5 minutes on 2 cores) into a temporary directory
# and fails when its results (parameters, epochs, best epoch, validation and test metrics, to the
# last bit) differ from results/synthetic/compare.json. It runs on the pure-Go backend, whose
# results are the same bits on every machine (XLA's vector code, and so its rounding, depends on
# the CPU). scripts/test.sh runs it; after an intended change, regenerate the results with
#   go run ./cmd/sgformer compare --dataset synthetic --backend go --out results/synthetic
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/sgformer" ./cmd/sgformer
"$tmp/sgformer" compare --dataset synthetic --backend go --out "$tmp/synthetic" >/dev/null 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
go run ./internal/cmd/samecompare results/synthetic/compare.json "$tmp/synthetic/compare.json"
