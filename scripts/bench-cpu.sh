#!/usr/bin/env bash
# The README's CPU benchmarks, in one call on one machine (about 20 minutes on 2 cores; the
# dense training step needs about 21 GB): preprocessing (the library on all of ZINC-12k, the
# cache read back, the CLI cold and warm on ZINC-12k and ogbg-molhiv) and the model (one training
# step and one inference pass on 128 ZINC-12k molecules with the ZINC recipe, sparse and dense,
# one process each for its peak RSS). A part that fails (the dense training step does not fit
# in 23 GiB) is recorded with its exit status and the others still run. Also the host's share of
# a step (BenchmarkZINCBatch: the batch and its input tensors). Writes OUT's records (default
# results/benchmarks/cpu.jsonl), from which internal/cmd/readme renders the Benchmarks tables. The shared data must be at ../shared/data or $SGFORMER_DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/cpu.jsonl}
source scripts/lib/record.sh
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
# The Go runtime's soft memory limit the CLI sets (90 % of the memory available), for the test
# binaries too: without it the garbage of a step can double the heap.
export GOMEMLIMIT=${GOMEMLIMIT:-$(($(awk '/^MemAvailable/ {print $2}' /proc/meminfo) * 1024 / 10 * 9))}
# The pure-Go backend's figures (scripts/bench-backends.sh compares it with XLA and PyG).
export GOMLX_BACKEND=${GOMLX_BACKEND:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/sgformer" ./cmd/sgformer
go test -c -o "$tmp/preprocess.test" ./sgformer/preprocess
go test -c -o "$tmp/training.test" ./sgformer/training
timed() { /usr/bin/time -f 'peak RSS %M kB, wall %e s, CPU %P' "$@" || echo "exit status $?"; }
{
	record_header scripts/bench-cpu.sh
	echo "# setup: $(go version | cut -d' ' -f3), GOMEMLIMIT $([[ $GOMEMLIMIT =~ ^[0-9]+$ ]] && echo "$((GOMEMLIMIT >> 20)) MiB" || echo "$GOMEMLIMIT")"
	echo "== library preprocess"
	(cd sgformer/preprocess && "$tmp/preprocess.test" -test.run '^$' -test.bench '^BenchmarkZINC(CacheLoad)?$' -test.benchtime 3x -test.benchmem) || echo "exit status $?"
	for ds in zinc12k:16 ogbg_molhiv:8; do
		folder=${ds%:*} k=${ds#*:} name=${folder/_/-}
		for pass in cold warm; do
			echo "== cli preprocess $name $pass"
			timed "$tmp/sgformer" preprocess --dataset "$name" --data-dir "$SGFORMER_DATA/$folder" --pe-k "$k" --out "$tmp/cache-$folder"
			echo
		done
	done
	echo "== host batching"
	(cd sgformer/training && "$tmp/training.test" -test.run '^$' -test.bench '^BenchmarkZINCBatch/' -test.benchtime 20x -test.benchmem) || echo "exit status $?"
	for b in ZINCTrainStep/sparse ZINCInference/sparse ZINCTrainStep/dense ZINCInference/dense; do
		echo "== model $b"
		(cd sgformer/training && timed "$tmp/training.test" -test.run '^$' -test.bench "^Benchmark$b\$" -test.benchtime 2x -test.benchmem)
	done
} >"$tmp/out" 2>&1
record_write "$out" <"$tmp/out"
