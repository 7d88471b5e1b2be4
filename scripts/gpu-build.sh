#!/usr/bin/env bash
# Builds what the GPU machine needs into build/gpu/ (git-ignored), to be sent with the `run`
# tool's carry list (64 MiB per call, all carried paths together):
#
#   build/gpu/sgformer.gz        the CLI, cgo on, linux/amd64, stripped
#   build/gpu/training.test.gz   sgformer/training's test binary, for BenchmarkZINCTrainStep
#                                and BenchmarkZINCInference (one 128-molecule batch)
#   build/gpu/gpurun.gz          internal/cmd/gpurun, the pieces' runner that scripts/gpu-run.sh
#                                starts there (cgo off: static, it needs nothing of the machine)
#   build/gpu/data/zinc12k/      the ZINC-12k text export (ZINC_*.txt.gz, ZINC_splits.json)
#   build/gpu/BUILD.txt          commit, Go version, sizes and the binary's requirements
#   build/gpu/COMMIT, GLIBC      the commit built and the glibc it needs, for gpurun
#
# The binaries are gzipped (gpu-run.sh and gpurun unpack them in a second). The preprocessing
# cache is not sent: sgformer computes ZINC-12k's (k = 8) at 8,400 graphs/s on 2 cores here.
#
# Requirements measured on 2026-11-22 (Debian 12 builder, Go 1.26.8, GoMLX v0.26.0, go-xla
# v0.1.4): sgformer 26.8 MB stripped (10.5 MB gzipped), training.test 19.5 MB; dynamically
# linked against libc.so.6 only (ldd: linux-vdso, libc.so.6, ld-linux-x86-64.so.2; the PJRT
# plugin is dlopened at run time), needing GLIBC 2.34 at the most (objdump -T). gpu-run.sh check
# verifies `ldd` and the machine's glibc first. Written to BUILD.txt on every build.
#
# Usage: scripts/gpu-build.sh   (data from $SGFORMER_DATA/zinc12k, else ../shared/data/zinc12k)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
out=build/gpu
data="${SGFORMER_DATA:-$repo/../shared/data}/zinc12k"
limit=$((28 * 1024 * 1024)) # the other 36 of the 64 MiB a call sends are the tracked files (internal/gpuscripts: TestTrackedTreeFitsADeviceCall)

for f in ZINC_Nodes.txt.gz ZINC_Edges.txt.gz ZINC_Labels.txt.gz ZINC_splits.json; do
	[[ -f "$data/$f" ]] || { echo "gpu-build: $data/$f is missing" >&2; exit 1; }
done

rm -rf build/gpu-tmp
mkdir -p build/gpu-tmp
export CGO_ENABLED=1 GOOS=linux GOARCH=amd64
go build -trimpath -ldflags='-s -w' -o build/gpu-tmp/sgformer ./cmd/sgformer
go test -c -trimpath -ldflags='-s -w' -o build/gpu-tmp/training.test ./sgformer/training
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o build/gpu-tmp/gpurun ./internal/cmd/gpurun
rm -rf "$out"
mkdir -p "$out/data/zinc12k"

# What the binary needs from the machine.
glibc="$(objdump -T build/gpu-tmp/sgformer | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)"
libs="$(ldd build/gpu-tmp/sgformer | awk '{print $1}' | tr '\n' ' ')"

cp "$data"/ZINC_Nodes.txt.gz "$data"/ZINC_Edges.txt.gz "$data"/ZINC_Labels.txt.gz "$data"/ZINC_splits.json "$out/data/zinc12k/"
gzip -c build/gpu-tmp/sgformer >"$out/sgformer.gz"
gzip -c build/gpu-tmp/training.test >"$out/training.test.gz"
gzip -c build/gpu-tmp/gpurun >"$out/gpurun.gz"

total="$(du -sb "$out" | cut -f1)"
{
	echo "commit:     $(git describe --always --dirty)"
	echo "go:         $(go version)"
	echo "built:      $(date -u +%FT%TZ)"
	echo "sgformer:   $(stat -c %s build/gpu-tmp/sgformer) bytes ($(stat -c %s "$out/sgformer.gz") gzipped)"
	echo "test bin:   $(stat -c %s build/gpu-tmp/training.test) bytes ($(stat -c %s "$out/training.test.gz") gzipped)"
	echo "gpurun:     $(stat -c %s build/gpu-tmp/gpurun) bytes ($(stat -c %s "$out/gpurun.gz") gzipped, static)"
	echo "needs:      $glibc; shared libraries: $libs"
	echo "build/gpu:  $total bytes to carry"
} | tee "$out/BUILD.txt"
echo "$glibc" >"$out/GLIBC"
git describe --always --dirty >"$out/COMMIT"
rm -rf build/gpu-tmp

if ((total > limit)); then
	echo "gpu-build: build/gpu is $total bytes, over the $limit kept for it" >&2
	exit 1
fi
