#!/usr/bin/env bash
# Training on 1, 2 and 4 of XLA's CPU devices (docs/devices.md), ogbg-molesol at the paper's
# recipe (3 × 60, batch 32, 29 steps an epoch), 3 epochs each: each epoch's training seconds
# (train_seconds; the first epoch compiles the programs of its batch shapes, the later ones
# meet few new shapes), the process's peak RSS, and the device memory of the largest program
# that XLA's buffer assignment gives (summary.json's device_bytes: per device). XLA_FLAGS makes
# the CPU plugin present 4 devices. On a machine of few cores the devices share them: this
# measures the cost of splitting a batch (padding to one shape, the partitioned program's
# collectives), not a speed-up, which needs devices that compute apart (GPUs). Writes OUT's
# records (default results/benchmarks/devices.jsonl; internal/record). The shared data must be
# at ../shared/data or $SGFORMER_DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/devices.jsonl}
source scripts/lib/record.sh
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
export XLA_FLAGS="${XLA_FLAGS:-} --xla_force_host_platform_device_count=4"
tmp=$(mktemp -d)
# On a failure, what the parts wrote so far goes to stderr before the folder is removed.
trap 'rc=$?; ((rc == 0)) || cat "$tmp/out" >&2 2>/dev/null; rm -rf "$tmp"' EXIT
export SGFORMER_XLA_CACHE="$tmp/xla-cache" # empty: compilation is part of what is measured
go build -o "$tmp/sgformer" ./cmd/sgformer
"$tmp/sgformer" install-xla >/dev/null
{
	record_header scripts/bench-devices.sh
	for n in 1 2 4; do
		echo "== devices $n"
		/usr/bin/time -f 'peak RSS %M kB, wall %e s, CPU %P' "$tmp/sgformer" train --dataset ogbg-molesol \
			--data-dir "$SGFORMER_DATA/ogbg_molesol" --epochs 3 --backend xla:cpu --devices "$n" \
			--cache-dir "$tmp/cache" --out "$tmp/molesol-$n" 2>&1 | grep -E 'peak RSS|exit status' || true
		echo "train seconds per epoch: $(sed -n 's/.*"train_seconds":\([0-9.]*\).*/\1/p' "$tmp/molesol-$n/metrics.jsonl" | xargs)"
		echo "train loss per epoch: $(sed -n 's/.*"train_loss":\([0-9.]*\).*/\1/p' "$tmp/molesol-$n/metrics.jsonl" | xargs)"
		echo "device bytes: $(sed -n 's/.*"device_bytes": *\([0-9]*\).*/\1/p' "$tmp/molesol-$n/summary.json")"
	done
} >"$tmp/out" 2>&1
record_write "$out" <"$tmp/out"
cat "$tmp/out"
