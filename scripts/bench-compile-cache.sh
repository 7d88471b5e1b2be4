#!/usr/bin/env bash
# XLA's compile cache (sgformer/backend, compilecache.go), measured from the command line: the
# paper's ogbg-molesol recipe for 2 epochs on xla:cpu, twice, with one empty cache folder: the
# first run ("cold") compiles its programs and stores them, the second ("warm") loads them
# (each run prepares its product graphs afresh, in a --cache-dir of its own).
# Each run's wall time and peak RSS (GNU time), its summary's programs and compile seconds,
# the cache's files and bytes after it, and whether the two runs' metrics are the same bits.
# Writes OUT's records (default results/benchmarks/compile-cache.jsonl; internal/record), from which internal/cmd/readme
# renders docs/benchmarks.md's table; the header records the machine and its load.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/compile-cache.jsonl}
source scripts/lib/record.sh
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/sgformer" ./cmd/sgformer
"$tmp/sgformer" install-xla >/dev/null
export SGFORMER_XLA_CACHE="$tmp/xla-cache"
# value FILE KEY: a number of sgformer's pretty-printed summary.json.
value() { sed -n "s/^ *\"$2\": *\([0-9.e+-]*\),*$/\1/p" "$1"; }
# metrics RUN: the run's per-epoch losses and metrics, without its times.
metrics() { grep -o '"train_loss":[^,]*,"val":[^,]*,"test":[^,]*' "$tmp/$1/metrics.jsonl"; }
{
	record_header scripts/bench-compile-cache.sh
	echo "# setup: sgformer train --dataset ogbg-molesol --epochs 2 --backend xla:cpu, twice with SGFORMER_XLA_CACHE an empty folder"
	for run in cold warm; do
		/usr/bin/time -o "$tmp/$run.time" -f '%e %M' "$tmp/sgformer" train --dataset ogbg-molesol \
			--data-dir "$SGFORMER_DATA/ogbg_molesol" --epochs 2 --backend xla:cpu --cache-dir "$tmp/data-$run" \
			--out "$tmp/$run" >/dev/null 2>"$tmp/$run.err" || { cat "$tmp/$run.err" >&2; exit 1; }
		read -r wall rss <"$tmp/$run.time"
		files=$(find "$SGFORMER_XLA_CACHE" -name '*.pjrt' | wc -l)
		bytes=$(find "$SGFORMER_XLA_CACHE" -name '*.pjrt' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
		same=null
		[[ $run == warm ]] && { cmp -s <(metrics cold) <(metrics warm) && same=true || same=false; }
		echo "== $run"
		echo "{\"wall_s\":$wall,\"peak_rss_kb\":$rss,\"seconds\":$(value "$tmp/$run/summary.json" seconds),\"programs\":$(value "$tmp/$run/summary.json" programs),\"compile_seconds\":$(value "$tmp/$run/summary.json" compile_seconds),\"cache_files\":$files,\"cache_bytes\":$bytes,\"same_metrics\":$same}"
	done
} >"$tmp/out"
record_write "$out" <"$tmp/out"
cat "$tmp/out"
