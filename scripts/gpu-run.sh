#!/usr/bin/env bash
# The GPU plan's pieces (check, parity, speed:sparse|dense, pyg, zinc:S,...) on the device
# machine, and `collect DIR` here: internal/cmd/gpurun (its doc comment says what each piece
# does). Where Go is installed this runs the source; on the device, which has none, the static
# binary that scripts/gpu-build.sh put in build/gpu/gpurun.gz.
#
#   run  scripts/gpu-run.sh check parity speed:sparse        (carry ["build/gpu"])
#   scripts/gpu-run.sh collect FILES_AT
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v go >/dev/null 2>&1; then
	exec go run ./internal/cmd/gpurun "$@"
fi
[[ -f build/gpu/gpurun.gz ]] || { echo "gpu-run: build/gpu/gpurun.gz missing: run scripts/gpu-build.sh here and carry build/gpu" >&2; exit 1; }
mkdir -p build/gpu/bin
gunzip -c build/gpu/gpurun.gz >build/gpu/bin/gpurun.tmp && chmod +x build/gpu/bin/gpurun.tmp && mv build/gpu/bin/gpurun.tmp build/gpu/bin/gpurun
exec build/gpu/bin/gpurun "$@"
