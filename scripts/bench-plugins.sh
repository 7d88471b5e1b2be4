#!/usr/bin/env bash
# The three builds of XLA's CPU PJRT plugin on PyPI that load into go-xla, side by side (about
# 10 minutes on 2 cores; downloads two wheels of 63 MB from PyPI): the one `sgformer
# install-xla` installs (lammps-jax-pjrt-cpu) and the other two, each checked by its wheel's
# SHA-256. For each: the model package's TestXLAParity (every model's predictions, and in
# float64 its gradients, as the pure-Go backend computes them), then in three rounds that
# alternate the plugins (this machine's speed drifts by ±10-20 % within an hour) the ZINC-12k
# benchmarks BenchmarkZINCTrainStep/sparse and BenchmarkZINCInference/sparse (8 steady
# executions each, their median) and the square product BenchmarkMatMul.
# Writes OUT's records (default results/benchmarks/xla-cpu-plugins.jsonl; internal/record), which internal/cmd/readme renders
# into docs/benchmarks.md. Run it on a quiet machine (the header records the load); needs the
# shared data at ../shared/data or $SGFORMER_DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/xla-cpu-plugins.jsonl}
source scripts/lib/record.sh
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
export GOMLX_BACKEND=xla:cpu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SGFORMER_XLA_CACHE="$tmp/xla-cache" # its key names the plugin file: one entry per plugin
go build -o "$tmp/sgformer" ./cmd/sgformer
installed=$("$tmp/sgformer" install-xla)
names=("$(sed -n 's/.*"package":"\([^"]*\)".*"version":"\([^"]*\)".*/\1 \2/p' <<<"$installed")")
dirs=("$(dirname "$(sed -n 's/.*"plugin":"\([^"]*\)".*/\1/p' <<<"$installed")")")

# The others: package, version, the SHA-256 of its x86-64 wheel (PyPI's digest), the plugin in it.
others=(
	"fastatomstruct-xla-cpu 2026.6.23 88b1c430b341b4bea40a37420311c9c75db6e22b46d2ff95b6986577bee6afe9 fastatomstruct_xla_cpu/libpjrt_cpu.so"
	"xla-cpu-pjrt 0.0.1 55837b6b7b47daa717f2d9a5a03563ea0ceaa338d06a81a1e2d3f060d960decc xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so"
)
for o in "${others[@]}"; do
	read -r name version sha member <<<"$o"
	if ! timeout 600 python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_27_x86_64 \
		--dest "$tmp/wheels/$name" "$name==$version"; then
		echo "bench-plugins: could not download $name $version from PyPI" >&2
		exit 1
	fi
	wheel=$(echo "$tmp/wheels/$name"/*.whl)
	if ! echo "$sha  $wheel" | sha256sum --check --quiet; then
		echo "bench-plugins: $wheel is not the wheel pinned here (SHA-256 $sha)" >&2
		exit 1
	fi
	mkdir -p "$tmp/$name"
	unzip -p "$wheel" "$member" >"$tmp/$name/pjrt_c_api_cpu_plugin.so"
	names+=("$name $version")
	dirs+=("$tmp/$name")
done
go test -c -o "$tmp/model.test" ./sgformer/model
go test -c -o "$tmp/training.test" ./sgformer/training
go test -c -o "$tmp/backend.test" ./sgformer/backend

{
	record_header scripts/bench-plugins.sh
	echo "# setup: $(go version | cut -d' ' -f3), the plugin sgformer install-xla installs: ${names[0]}"
	echo "== parity"
	for i in "${!dirs[@]}"; do
		export PJRT_PLUGIN_LIBRARY_PATH=${dirs[i]}
		parity=true
		(cd sgformer/model && SGFORMER_REQUIRE_XLA=1 "$tmp/model.test" -test.run '^TestXLAParity$' >/dev/null 2>&1) || parity=false
		read -r name version <<<"${names[i]}"
		echo "{\"package\":\"$name\",\"version\":\"$version\",\"parity\":$parity}"
	done
	for round in 1 2 3; do
		for i in "${!dirs[@]}"; do
			export PJRT_PLUGIN_LIBRARY_PATH=${dirs[i]}
			echo "== ${names[i]}"
			(cd sgformer/training && "$tmp/training.test" -test.run '^$' -test.bench '^BenchmarkZINC(TrainStep|Inference)/sparse$' \
				-test.benchtime 8x 2>/dev/null | grep '^Benchmark')
			(cd sgformer/backend && "$tmp/backend.test" -test.run '^$' -test.bench '^BenchmarkMatMul/2048$' -test.benchtime 5x 2>/dev/null | grep '^Benchmark')
		done
	done
} >"$tmp/out"
record_write "$out" <"$tmp/out"
echo "wrote $out"
