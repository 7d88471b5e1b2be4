#!/usr/bin/env bash
# The backends side by side, in one call on one machine (about 25 minutes on 2 cores): the
# pure-Go backend, XLA's CPU plugin (sgformer install-xla), the same with glibc's default
# allocator (xla:cpu-system: SGFORMER_MALLOC=system, sgformer/backend/malloc.go) and PyTorch Geometric
# (bench/pyg/subgraphormer_pyg.py, torch and torch-geometric from PyPI in $SGFORMER_PYG_VENV,
# default build/venv-pyg, installed with the versions scripts/lib/pyg.sh pins when missing):
#   - ZINC-12k recipe (6 × 96, k = 8, MLP layer encoders), 128 molecules: one training step and
#     one inference pass (BenchmarkZINCTrainStep/Inference: the median of 5 executions after one
#     that compiles and one that warms up;
#     for PyG, the median over epochs 2-3 of 384 training and 384 test molecules, per batch);
#     the arithmetic of both, counted in the programs XLA compiled for them (internal/cmd/hloflops
#     on an XLA dump), against each backend's practical peak (BenchmarkMatMul);
#   - ogbg-molesol, the paper's recipe (3 × 60, batch 32): 5 epochs of sgformer train, each
#     epoch's seconds (training and evaluation; the first ones compile XLA's programs), and of
#     the authors' own code (scripts/authors-train.py, with 1 and with 2 torch threads; their
#     checkout in $SGFORMER_AUTHORS, default /tmp/subgraphormer-authors, and ogb and the other
#     packages that script names in the same venv: skipped, and said so, without them).
# Writes OUT's records (default results/benchmarks/backends.jsonl; internal/record), from which internal/cmd/readme renders
# the README's backend table. Runs nothing else: stop other work first (the header records the
# load before it starts). The shared data must be at ../shared/data or $SGFORMER_DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/backends.jsonl}
source scripts/lib/record.sh
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
export GOMEMLIMIT=${GOMEMLIMIT:-$(($(awk '/^MemAvailable/ {print $2}' /proc/meminfo) * 1024 / 10 * 9))}
source scripts/lib/pyg.sh
authors=${SGFORMER_AUTHORS:-/tmp/subgraphormer-authors}
pyg_install
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SGFORMER_XLA_CACHE="$tmp/xla-cache" # empty: compilation is part of what is measured
go build -o "$tmp/sgformer" ./cmd/sgformer
plugin=$("$tmp/sgformer" install-xla)
go test -c -o "$tmp/training.test" ./sgformer/training
go test -c -o "$tmp/backend.test" ./sgformer/backend
malloc() { [[ $1 == *-system ]] && echo system || echo sgformer; } # SGFORMER_MALLOC of a row
timed() { /usr/bin/time -f 'peak RSS %M kB, wall %e s, CPU %P' "$@" || echo "exit status $?"; }
{
	record_header scripts/bench-backends.sh
	echo "# setup: $(go version | cut -d' ' -f3), XLA CPU plugin $(echo "$plugin" | sed -n 's/.*"package":"\([^"]*\)".*"version":"\([^"]*\)".*/\1 \2/p'), $(pyg_versions)"
	for b in go xla:cpu xla:cpu-system; do
		echo "== zinc $b"
		(cd sgformer/training && GOMLX_BACKEND=${b%-system} SGFORMER_MALLOC=$(malloc "$b") timed "$tmp/training.test" -test.run '^$' -test.bench '^BenchmarkZINC(TrainStep|Inference)/sparse$' -test.benchtime 5x -test.benchmem)
	done
	echo "== zinc pyg"
	timed "$venv/bin/python" bench/pyg/subgraphormer_pyg.py --data "$SGFORMER_DATA/zinc12k" --product precomputed \
		--train-subset 384 --eval-subset 384 --epochs 3 --device cpu
	for b in go xla:cpu; do
		echo "== matmul $b"
		(cd sgformer/backend && GOMLX_BACKEND=$b "$tmp/backend.test" -test.run '^$' -test.bench '^BenchmarkMatMul$' -test.benchtime 5x)
	done
	(cd sgformer/training && GOMLX_BACKEND=xla:cpu XLA_FLAGS="--xla_dump_to=$tmp/dump --xla_dump_hlo_as_text" \
		"$tmp/training.test" -test.run '^$' -test.bench '^BenchmarkZINC(TrainStep|Inference)/sparse$' -test.benchtime 1x >/dev/null)
	record_programs flops "$tmp/dump"
	for b in go xla:cpu xla:cpu-system; do
		echo "== molesol $b"
		SGFORMER_MALLOC=$(malloc "$b") SGFORMER_XLA_CACHE="$tmp/xla-cache-$b" timed "$tmp/sgformer" train --dataset ogbg-molesol \
			--data-dir "$SGFORMER_DATA/ogbg_molesol" --epochs 5 --backend "${b%-system}" --cache-dir "$tmp/cache" --out "$tmp/molesol-$b" 2>/dev/null
		record_epochs "$tmp/molesol-$b/metrics.jsonl"
	done
	for threads in 1 2; do
		echo "== molesol authors-$threads"
		if ! "$venv/bin/python" -c "import ogb, easydict, yaml" 2>/dev/null || [[ ! -d "$authors/models" ]]; then
			echo "skipped: needs ogb, easydict and pyyaml in $venv and the authors' checkout in $authors (scripts/authors-train.py says how)"
			continue
		fi
		timed "$venv/bin/python" scripts/authors-train.py --authors "$authors" --data "$SGFORMER_DATA" --ogb-root "$tmp/ogb" \
			--out "$tmp/authors-$threads" --epochs 5 --threads "$threads" >/dev/null
		record_epochs "$tmp/authors-$threads/metrics.jsonl"
	done
} >"$tmp/out" 2>&1
record_write "$out" <"$tmp/out"
