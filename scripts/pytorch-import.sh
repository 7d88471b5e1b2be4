#!/usr/bin/env bash
# Imports the model the authors' PyTorch code trained on ogbg-molesol (scripts/authors-train.py
# wrote results/pytorch-import/molesol-authors-seed0: config.yaml, best.pt, metrics.jsonl,
# summary.json) with `sgformer import`, evaluates it with `sgformer eval`, and writes the result
# to results/pytorch-import/molesol-authors-seed0/sgformer-eval.json, which docs/pytorch.md
# renders (go run ./internal/cmd/readme) beside their code's own evaluation.
#
# Usage: scripts/pytorch-import.sh [--backend B]   (the data: $SGFORMER_DATA/ogbg_molesol, else
#        ../shared/data/ogbg_molesol or where sgformer download puts it)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=results/pytorch-import/molesol-authors-seed0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/sgformer" ./cmd/sgformer
data=()
if [[ -n ${SGFORMER_DATA:-} ]]; then data=(--data-dir "$SGFORMER_DATA/ogbg_molesol"); fi
"$tmp/sgformer" import --from-pytorch "$dir/best.pt" --config "$dir/config.yaml" --out "$tmp/run" "${data[@]}" "$@" > "$tmp/import.json"
"$tmp/sgformer" eval --run "$tmp/run" --cache-dir "$tmp/cache" "$@" > "$tmp/eval.json"
# The run directory was temporary: its path is left out.
sed -e 's/"run":"[^"]*",//' "$tmp/eval.json" > "$tmp/out.json"
mv "$tmp/out.json" "$dir/sgformer-eval.json"
cat "$dir/sgformer-eval.json"
