#!/usr/bin/env bash
# Regenerates the README's figures into docs/figures/, as SVG and PNG:
#
#   pe-eigenvector.{svg,png}  the paper's Sec. 4.2 figure: the first non-trivial eigenvector of
#                             a molecule G and v₁(s)·v₁(v) on its product graph G□G
#                             (internal/cmd/figures; a ZINC-12k molecule when ../shared/data
#                             holds the dataset, else a built-in molecule skeleton)
#   curves-synthetic.{svg,png}  training curves of the committed run
#                             results/synthetic/subgraphormer (sgformer plot)
#
# Usage: scripts/figures.sh   (from anywhere; takes a few seconds once the code is built)
# $SGFORMER_DATA overrides the shared data directory, as for the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/figures
mkdir -p "$out"

zinc="${SGFORMER_DATA:-../shared/data}/zinc12k"
if [ -d "$zinc" ]; then
  go run ./internal/cmd/figures -zinc "$zinc" -out "$out"
else
  echo "figures.sh: $zinc not found; drawing the built-in molecule instead" >&2
  go run ./internal/cmd/figures -out "$out"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./cmd/sgformer plot --out "$tmp" results/synthetic/subgraphormer >/dev/null
for ext in svg png; do
  mv "$tmp/curves.$ext" "$out/curves-synthetic.$ext"
  echo "$out/curves-synthetic.$ext"
done
