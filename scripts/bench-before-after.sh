#!/usr/bin/env bash
# Times the ZINC-12k training step and inference pass (BenchmarkZINCTrainStep/sparse and
# BenchmarkZINCInference/sparse: 128 molecules, the ZINC recipe) of an earlier commit and of the
# working tree, side by side: the two test binaries alternate, ROUNDS times each (default 2), each
# run under GNU time for its peak RSS. Usage:
#   scripts/bench-before-after.sh COMMIT OUT   (e.g. d855947 results/benchmarks/k2-before-after.jsonl)
# OUT gets the records (internal/record) that internal/cmd/readme renders.
# The shared data must be at ../shared/data or $SGFORMER_DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?usage: $0 COMMIT OUT}
out=${2:?usage: $0 COMMIT OUT}
rounds=${ROUNDS:-2}
source scripts/lib/record.sh
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/before" 2>/dev/null; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/before" "$before" >/dev/null
(cd "$tmp/before" && go test -c -o "$tmp/before.test" ./sgformer/training)
go test -c -o "$tmp/after.test" ./sgformer/training
record_header "scripts/bench-before-after.sh $before" "$(git rev-parse --short "$before") (before) and $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!results' || echo ' with uncommitted changes') (after)" >"$tmp/out"
for round in $(seq "$rounds"); do
	for which in before after; do
		echo "== $which round $round, load $(cut -d' ' -f1 /proc/loadavg)" >>"$tmp/out"
		(cd sgformer/training && /usr/bin/time -f 'peak RSS %M kB, wall %e s' "$tmp/$which.test" -test.run '^$' \
			-test.bench '^Benchmark(ZINCTrainStep|ZINCInference)/sparse$' -test.benchtime 2x -test.benchmem) >>"$tmp/out" 2>&1
	done
done
record_write "$out" <"$tmp/out"
