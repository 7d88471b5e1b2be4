#!/usr/bin/env bash
# What K = 3 costs (docs/design.md): BenchmarkTupleOrder (sgformer/training), one training step
# and one inference pass of the ZINC model on the first 2 ZINC-12k training molecules with
# K = 2 and K = 3, under GNU time for the peak RSS of both. Writes OUT's records (default
# results/benchmarks/tuple-order.jsonl; internal/record), which internal/cmd/readme renders.
# About 2 minutes and 8 GiB; the shared data must be at ../shared/data or $SGFORMER_DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/tuple-order.jsonl}
source scripts/lib/record.sh
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/training.test" ./sgformer/training
{
	record_header scripts/bench-tuple-order.sh
	echo "# setup: $(go version | cut -d' ' -f3), backend ${GOMLX_BACKEND:-the default}"
	echo "== TupleOrder"
	(cd sgformer/training && /usr/bin/time -f 'peak RSS %M kB, wall %e s, CPU %P' "$tmp/training.test" -test.run '^$' \
		-test.bench '^BenchmarkTupleOrder$' -test.benchtime 1x -test.benchmem) || echo "exit status $?"
} >"$tmp/out" 2>&1
record_write "$out" <"$tmp/out"
cat "$tmp/out"
