#!/usr/bin/env bash
# Where a ZINC-12k step's time goes on xla:cpu (about 6 minutes on 2 cores): CPU samples (perf)
# of the steady executions of BenchmarkZINCTrainStep/sparse and BenchmarkZINCInference/sparse
# (128 molecules, the ZINC recipe), by the code they fell in:
#   - plugin: the plugin's own code: the matrix products (YNNPACK's and Eigen's kernels and
#     their packing of operands), XLA's runtime (the plugin is stripped: its functions have no
#     names to tell these apart);
#   - generated: the kernels XLA generated for the program (its fusions: elementwise work,
#     reductions, gathers and scatters), in memory perf sees as [JIT];
#   - kernel (page faults, scheduling), libc (malloc, memset), go (this process's Go code).
# Each benchmark runs twice under perf record, with 2 and with 10 timed executions (30 for the
# short inference pass); the difference of the two runs' samples is that of 8 (28) executions,
# setup cancelled (both load their programs from a compile cache filled by a run before them).
# Then the step's matrix products one by one (BenchmarkProducts) beside the square product that
# gives the backend's peak (BenchmarkMatMul), and the census of the programs XLA compiled for
# the step and the pass (internal/cmd/hloflops on an XLA dump).
# Writes OUT's records (default results/benchmarks/xla-cpu-profile.jsonl; internal/record), which internal/cmd/readme renders
# into docs/benchmarks.md. Run it on a quiet machine (the header records the load); needs perf
# (Debian: linux-perf) with perf_event_paranoid ≤ 2, and the shared data at ../shared/data or
# $SGFORMER_DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/xla-cpu-profile.jsonl}
source scripts/lib/record.sh
if ! command -v perf >/dev/null || ! perf record -q -o /dev/null -- true 2>/dev/null; then
	echo "profile-xla-cpu: perf is missing or may not record here (Debian: apt-get install linux-perf; /proc/sys/kernel/perf_event_paranoid ≤ 2)" >&2
	exit 1
fi
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
export GOMLX_BACKEND=xla:cpu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$out.tmp"' EXIT
export SGFORMER_XLA_CACHE="$tmp/xla-cache" # filled by the first run, loaded by the others
go build -o "$tmp/sgformer" ./cmd/sgformer
installed=$("$tmp/sgformer" install-xla)
plugin=$(sed -n 's/.*"plugin":"\([^"]*\)".*/\1/p' <<<"$installed")
version=$(sed -n 's/.*"package":"\([^"]*\)".*"version":"\([^"]*\)".*/\1 \2/p' <<<"$installed")
go test -c -o "$tmp/training.test" ./sgformer/training
go test -c -o "$tmp/backend.test" ./sgformer/backend
hz=499

# samples FILE: the samples of a perf recording, per category, as "category count" lines.
samples() {
	perf report -i "$1" -n --sort dso --stdio 2>/dev/null | awk -v plugin="$(basename "$plugin")" '
		/^#/ || NF < 3 { next }
		$3 == plugin { s["plugin"] += $2; next }
		$3 == "[JIT]" { s["generated"] += $2; next }
		$3 == "[kernel.kallsyms]" { s["kernel"] += $2; next }
		$3 ~ /^lib(c|m)\.so/ { s["libc"] += $2; next }
		$3 ~ /\.test$/ { s["go"] += $2; next }
		{ s["other"] += $2 }
		END { for (c in s) print c, s[c] }'
}

{
	record_header scripts/profile-xla-cpu.sh
	echo "# setup: $(go version | cut -d' ' -f3), XLA CPU plugin $version, $(perf --version), $hz samples a second per core"
	for b in TrainStep Inference; do
		long=10
		[[ $b == Inference ]] && long=30 # a pass is short beside the setup both runs share
		(cd sgformer/training && "$tmp/training.test" -test.run '^$' -test.bench "^BenchmarkZINC$b/sparse\$" -test.benchtime 1x >/dev/null) # compiles into the cache
		for n in 2 $long; do
			(cd sgformer/training && perf record -q -F $hz -o "$tmp/$b-$n.data" -- "$tmp/training.test" -test.run '^$' \
				-test.bench "^BenchmarkZINC$b/sparse\$" -test.benchtime ${n}x) >"$tmp/$b-$n.out"
		done
		echo "== $b"
		grep '^Benchmark' "$tmp/$b-$long.out"
		samples "$tmp/$b-2.data" >"$tmp/$b-2.samples"
		samples "$tmp/$b-$long.data" >"$tmp/$b-$long.samples"
		# Per category, the long run's samples less the 2-execution run's.
		awk -v executions=$((long - 2)) -v hz=$hz 'NR == FNR { short[$1] = $2; next }
			{ d = $2 - short[$1]; s = s sep "\"" $1 "\":" (d > 0 ? d : 0); sep = "," }
			END { print "{\"executions\":" executions ",\"hz\":" hz ",\"samples\":{" s "}}" }' \
			"$tmp/$b-2.samples" "$tmp/$b-$long.samples"
	done
	echo "== products"
	(cd sgformer/backend && "$tmp/backend.test" -test.run '^$' -test.bench '^Benchmark(Products|MatMul)$' -test.benchtime 20x | grep '^Benchmark')
	(cd sgformer/training && XLA_FLAGS="--xla_dump_to=$tmp/dump --xla_dump_hlo_as_text" SGFORMER_XLA_CACHE=off \
		"$tmp/training.test" -test.run '^$' -test.bench '^BenchmarkZINC(TrainStep|Inference)/sparse$' -test.benchtime 1x >/dev/null)
	record_programs census "$tmp/dump"
} >"$tmp/out"
record_write "$out" <"$tmp/out"
echo "wrote $out"
