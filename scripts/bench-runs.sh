#!/usr/bin/env bash
# Whole runs of the paper's recipes from the CLI, each under GNU time (wall, CPU, peak RSS), so
# that what a paper cell costs on this machine is measured end to end (compilation, evaluation,
# checkpoints and all) rather than extrapolated from one step:
#   molesol-xla, molesol-go   sgformer train --dataset ogbg-molesol, 100 epochs (the paper's), on
#                             xla:cpu and on the pure-Go backend;
#   molesol-authors           the authors' own code, 100 epochs, 2 torch threads
#                             (scripts/authors-train.py; their checkout in $SGFORMER_AUTHORS,
#                             default /tmp/subgraphormer-authors, and ogb, easydict and pyyaml in
#                             the venv below);
#   zinc-xla, zinc-go         sgformer train --dataset zinc12k, one epoch (79 steps of 128
#                             molecules, then validation and test);
#   zinc-pyg                  the PyTorch Geometric peer (bench/pyg/subgraphormer_pyg.py), one
#                             epoch on all 10,000 training molecules and the 1,000 test ones;
#   peptides-xla, peptides-go sgformer train --dataset peptides-func, one epoch.
# Usage: scripts/bench-runs.sh PIECE...   (about 5, 22, 10, 3, 32, 6 minutes for the first six on
# 2 cores; a Peptides-func epoch takes hours). Each piece writes
# results/benchmarks/runs/PIECE.jsonl (records, internal/record; atomically, when it ends), which internal/cmd/readme
# renders into docs/benchmarks.md. Runs nothing else beside it: stop other work first (the
# header records the load). Each piece starts from an empty compile cache. The shared data must
# be at ../shared/data or $SGFORMER_DATA; the venv ($SGFORMER_PYG_VENV, default build/venv-pyg)
# is the one scripts/bench-backends.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/record.sh
if (($# == 0)); then
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 2
fi
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
export GOMEMLIMIT=${GOMEMLIMIT:-$(($(awk '/^MemAvailable/ {print $2}' /proc/meminfo) * 1024 / 10 * 9))}
source scripts/lib/pyg.sh
authors=${SGFORMER_AUTHORS:-/tmp/subgraphormer-authors}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/sgformer" ./cmd/sgformer
plugin=$("$tmp/sgformer" install-xla | sed -n 's/.*"package":"\([^"]*\)".*"version":"\([^"]*\)".*/\1 \2/p')
# timed CMD...: runs CMD, then prints GNU time's line (its own stderr may be discarded).
timed() {
	/usr/bin/time -o "$tmp/time" -f 'peak RSS %M kB, wall %e s, CPU %P' "$@" || echo "exit status $?"
	cat "$tmp/time"
}
# train BACKEND DATASET EPOCHS: a run of the CLI, its summary, and its epochs (record_epochs).
train() {
	SGFORMER_XLA_CACHE="$tmp/xla-cache-$1-$2" timed "$tmp/sgformer" train --dataset "$2" --epochs "$3" --backend "$1" \
		--data-dir "$SGFORMER_DATA/${2//-/_}" --cache-dir "$tmp/cache" --out "$tmp/run-$1-$2" 2>/dev/null
	record_epochs "$tmp/run-$1-$2/metrics.jsonl"
}
for piece in "$@"; do
	out=results/benchmarks/runs/$piece.jsonl
	{
		record_header "scripts/bench-runs.sh $piece"
		echo "# setup: $(go version | cut -d' ' -f3), XLA CPU plugin $plugin"
		echo "== $piece"
		case $piece in
		molesol-xla) train xla:cpu ogbg-molesol 100 ;;
		molesol-go) train go ogbg-molesol 100 ;;
		zinc-xla) train xla:cpu zinc12k 1 ;;
		zinc-go) train go zinc12k 1 ;;
		peptides-xla) train xla:cpu peptides-func 1 ;;
		peptides-go) train go peptides-func 1 ;;
		molesol-authors)
			timed "$venv/bin/python" scripts/authors-train.py --authors "$authors" --data "$SGFORMER_DATA" \
				--ogb-root "$tmp/ogb" --out "$tmp/authors" --epochs 100 --threads 2 2>/dev/null | grep -v '^{"epoch"' 
			record_epochs "$tmp/authors/metrics.jsonl"
			;;
		zinc-pyg)
			timed "$venv/bin/python" bench/pyg/subgraphormer_pyg.py --data "$SGFORMER_DATA/zinc12k" --product precomputed \
				--epochs 1 --device cpu 2>/dev/null
			;;
		*)
			echo "bench-runs: no piece $piece" >&2
			exit 2
			;;
		esac
	} >"$tmp/out"
	record_write "$out" <"$tmp/out"
	echo "wrote $out"
done
