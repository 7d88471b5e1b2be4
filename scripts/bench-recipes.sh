#!/usr/bin/env bash
# The epoch times behind docs/reproduction.md's plan: BenchmarkRecipeStep (sgformer/training)
# times one training step and one inference batch of each of the paper's recipes, and of GIN and
# GNN-SSWL+ with the first recipe of the datasets whose tables have them, on real molecules from
# the shared data, on XLA's CPU backend; one process per dataset (its peak RSS after it), niced,
# each step timed BENCHTIME times after a first one that compiles. Writes OUT's records (default
# results/benchmarks/recipes.jsonl; internal/record), with the shared data's folders (a recipe
# whose dataset is missing is measured on a stand-in's molecules, see standIns) and the load
# after; each cell's epoch is the benchmark's cpu_s/epoch, which internal/cmd/readme turns into
# the plan's CPU hours.
# About 30 minutes of CPU on a quiet 2-core machine; the shared data must be at ../shared/data
# or $SGFORMER_DATA, XLA's CPU plugin installed (sgformer install-xla).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/recipes.jsonl}
source scripts/lib/record.sh
benchtime=${BENCHTIME:-2x}
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
export GOMLX_BACKEND=${GOMLX_BACKEND:-xla:cpu}
export GOMEMLIMIT=${GOMEMLIMIT:-$(($(awk '/^MemAvailable/ {print $2}' /proc/meminfo) * 1024 / 10 * 9))}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SGFORMER_XLA_CACHE="$tmp/xla-cache" # empty: compilation is part of what is measured
go test -c -o "$tmp/training.test" ./sgformer/training
{
	record_header scripts/bench-recipes.sh
	echo "# setup: $(go version | cut -d' ' -f3), -benchtime $benchtime, nice -n 10, backend $GOMLX_BACKEND; stand-ins: zinc-full on zinc12k's molecules, peptides-struct on peptides-func's (its split sizes, 11 targets); Peptides steps on 4 graphs (graphs/batch), scaled to the recipe's 128"
	echo "== shared data" # the folders present: true
	echo "{$(cd "$SGFORMER_DATA" && find . -mindepth 1 -maxdepth 1 -type d -printf '"%f":true\n' | sort | paste -sd,)}"
	for ds in zinc12k zinc-full ogbg-molesol ogbg-molbace ogbg-molhiv peptides-func peptides-struct; do
		echo "== $ds"
		(cd sgformer/training && /usr/bin/time -f 'peak RSS %M kB, wall %e s, CPU %P' nice -n 10 "$tmp/training.test" -test.run '^$' \
			-test.bench "^BenchmarkRecipeStep\$/^$ds\$/" -test.benchtime "$benchtime" -test.timeout 2h) || echo "exit status $?"
	done
	echo "== after"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$tmp/out"
record_write "$out" <"$tmp/out"
