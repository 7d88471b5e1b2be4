#!/usr/bin/env bash
# The GPU plan (issue 6) as subcommands, each well under the device's 10 minutes per command,
# run from the repository root on the H200 machine; logs and JSON go under $OUT/<subcommand>/.
#
#   check            machine, glibc and ldd of the binary, nvidia-smi, gpu-env.sh, a 1-epoch
#                    ZINC run (128 training molecules) on xla:cuda
#   parity           the same weights on the same graphs, pure Go vs xla:cuda (see below)
#   speed EXEC       EXEC = sparse|dense: 3 epochs of the ZINC-12k recipe (batch 128, 6 × 96,
#                    k = 8) with nvidia-smi sampling utilisation and memory every 0.5 s, then
#                    the per-batch benchmarks (training step, inference) of the same model
#   pyg              bench/pyg/subgraphormer_pyg.py on the same data: on-the-fly and
#                    precomputed product graphs, 3 epochs each
#   zinc SEED        continue the 400-epoch ZINC-12k run of SEED for at most $ZINC_BUDGET_S
#                    seconds (default 500), stopping at a checkpoint
#   summary DIR...   (here, on fetched results) the speed table with the ours/PyG ratios
#
# Prepare here: scripts/gpu-build.sh (build/gpu/: the gzipped binaries and the ZINC text
# export, 18 MB), then make these `run` calls (command, carry):
#
#   run  scripts/gpu-run.sh check          carry ["build/gpu"]
#   run  scripts/gpu-run.sh parity         carry ["build/gpu"]
#   run  scripts/gpu-run.sh speed sparse   carry ["build/gpu"]
#   run  scripts/gpu-run.sh speed dense    carry ["build/gpu"]
#   run  scripts/gpu-run.sh pyg            carry ["build/gpu"]
#   run  scripts/gpu-run.sh zinc 0         carry ["build/gpu", "build/gpu-runs/zinc-seed0"]
#
# and after each `zinc S` copy the returned files_at/zinc/seedS to build/gpu-runs/zinc-seedS
# (replacing it) so the next `zinc S` call carries and resumes it. A missing
# build/gpu-runs/zinc-seedS is fine for the first piece (the tool drops carry paths it lacks).
#
# Stopping in time: `sgformer train --time-limit` ends at the last epoch boundary before the
# budget, with its checkpoint; `timeout` (budget + 60 s) is the safety net. Checkpoints are
# written to a staging folder and renamed into place (sgformer/training), so a kill loses at most
# the epoch in progress; a metrics.jsonl line of an epoch whose checkpoint was not saved is
# dropped here before resuming (--resume would redo that epoch).
#
# Parity: a model trained 1 epoch on 64 molecules with the pure-Go backend, then
# `sgformer eval` (validation and test MAE over 1000 + 1000 graphs) and `sgformer predict`
# (4 test molecules) with --backend go and --backend xla:cuda on its best checkpoint. Pass:
# relative difference of each MAE and of each prediction (against 1 + |prediction|) at most
# PARITY_RTOL (default 1e-3). The tolerance allows for XLA:GPU running float32 matrix
# products on TF32 tensor cores at its default precision (10-bit mantissa); the two
# backends also sum in different orders, which alone gives about 1e-6.
#
# SGFORMER_GPU_DRYRUN=1 runs every piece here on the CPU: the pure-Go backend instead of
# xla:cuda, a 2-layer × 24 model on fewer molecules, no nvidia-smi, torch's own GAT when
# torch_geometric is absent.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
OUT="${OUT:-$repo/build/gpu-out}"
dry="${SGFORMER_GPU_DRYRUN:-0}"
gpu=build/gpu
data=$gpu/data/zinc12k # relative: run.json stores it, and the tree's path may change
cache=$gpu/cache
bin=$gpu/bin
py="${SGFORMER_PYTHON:-python3}"

if [[ "$dry" == 1 ]]; then
	backend=go
	small=(--layers 2 --hidden 24)
	subset=32
	bench_time=1x
else
	backend=xla:cuda
	small=()
	subset=128
	bench_time=20x
fi

die() {
	echo "gpu-run: $*" >&2
	exit 1
}

# unpack puts the binaries from build/gpu/*.gz into build/gpu/bin.
unpack() {
	[[ -f $gpu/sgformer.gz ]] || die "$gpu/sgformer.gz missing: run scripts/gpu-build.sh here and carry build/gpu"
	mkdir -p "$bin" "$cache"
	local f
	for f in sgformer training.test; do
		gunzip -c "$gpu/$f.gz" >"$bin/$f"
		chmod +x "$bin/$f"
	done
}

# gpu_env sources scripts/gpu-env.sh (not in a dry run).
gpu_env() {
	[[ "$dry" == 1 ]] && return 0
	# shellcheck source=scripts/gpu-env.sh
	source scripts/gpu-env.sh || die "scripts/gpu-env.sh failed"
}

# smi_start DIR samples GPU utilisation and memory into DIR/smi.csv until smi_stop.
smi_pid=""
smi_start() {
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits -lms 500 >"$1/smi.csv" &
		smi_pid=$!
	fi
}
smi_stop() {
	if [[ -n "$smi_pid" ]]; then
		kill "$smi_pid" 2>/dev/null || true
		wait "$smi_pid" 2>/dev/null || true
		smi_pid=""
	fi
}

# smi_json FILE prints {"gpu_util_mean":…,"gpu_util_max":…,"gpu_mem_max_mib":…} of the
# samples with non-zero utilisation (or nulls without samples).
smi_json() {
	if [[ ! -s "$1" ]]; then
		echo '{"gpu_util_mean":null,"gpu_util_max":null,"gpu_mem_max_mib":null}'
		return
	fi
	awk -F', *' '{ if ($3 > m) m = $3; if ($2 > 0) { s += $2; n++; if ($2 > u) u = $2 } }
		END { printf "{\"gpu_util_mean\":%.1f,\"gpu_util_max\":%d,\"gpu_mem_max_mib\":%d}\n", (n ? s / n : 0), u, m }' "$1"
}

# seconds_json METRICS prints the per-epoch seconds of a metrics.jsonl as a JSON list.
seconds_json() {
	grep -o '"seconds":[0-9.e+-]*' "$1" | cut -d: -f2 | paste -sd, | sed 's/^/[/; s/$/]/'
}

# zinc_graph ID prints ZINC graph ID as sgformer's graph JSON (node_features, edge_features).
zinc_graph() {
	awk -v id="$1" '
		FNR == 1 { file++ }
		file == 1 && $1 == id { atom[$2] = $3; if ($2 + 1 > n) n = $2 + 1 }
		file == 2 && $1 == id { e = e sep "[" $2 "," $3 "]"; b = b sep $4; sep = "," }
		END {
			printf "{\"num_nodes\":%d,\"edges\":[%s],\"edge_features\":[%s],\"node_features\":[", n, e, b
			for (i = 0; i < n; i++) printf "%s%d", (i ? "," : ""), atom[i]
			print "]}"
		}' <(gunzip -c $data/ZINC_Nodes.txt.gz) <(gunzip -c $data/ZINC_Edges.txt.gz)
}

cmd_check() {
	local dir="$OUT/check"
	mkdir -p "$dir"
	{
		uname -a
		ldd --version | head -n 1
		echo "binary needs: $(cat $gpu/GLIBC 2>/dev/null || echo unknown)"
		ldd "$bin/sgformer"
		nvidia-smi || echo "nvidia-smi: not available"
	} 2>&1 | tee "$dir/machine.txt"
	! ldd "$bin/sgformer" | grep -q 'not found' || die "the binary lacks shared libraries (see $dir/machine.txt)"
	local have need
	have="$(ldd --version | head -n 1 | grep -o '[0-9]\+\.[0-9]\+$')"
	need="$(sed 's/GLIBC_//' $gpu/GLIBC)"
	[[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" == "$need" ]] || die "glibc $have is older than the $need the binary needs"
	gpu_env >"$dir/gpu-env.txt" # in this shell, so that its exports stay
	cat "$dir/gpu-env.txt"
	env | grep -E '^(PJRT_PLUGIN_LIBRARY_PATH|LD_LIBRARY_PATH|XLA_FLAGS|GOMLX_NO_AUTO_INSTALL)=' >"$dir/env.txt" || true
	local start=$SECONDS
	"$bin/sgformer" train --dataset zinc12k --data-dir $data --cache-dir $cache --train-subset $subset \
		--batch-size 32 --epochs 1 "${small[@]}" --backend $backend --out "$dir/run" \
		>"$dir/summary.json" 2> >(tee "$dir/train.log" >&2)
	echo "{\"backend\":\"$backend\",\"glibc\":\"$have\",\"seconds\":$((SECONDS - start)),\"epoch_seconds\":$(seconds_json "$dir/run/metrics.jsonl")}" | tee "$dir/result.json"
}

cmd_parity() {
	local dir="$OUT/parity"
	rm -rf "$dir" && mkdir -p "$dir"
	gpu_env >"$dir/gpu-env.txt"
	"$bin/sgformer" train --dataset zinc12k --data-dir $data --cache-dir $cache --train-subset 64 \
		--batch-size 32 --epochs 1 "${small[@]}" --backend go --out "$dir/run" >/dev/null 2>"$dir/train.log"
	local b id
	for b in go $backend; do
		"$bin/sgformer" eval --run "$dir/run" --cache-dir $cache --backend "$b" >"$dir/eval-${b/:/-}.json" 2>>"$dir/eval.log"
		for id in 11000 11001 11002 11003; do
			zinc_graph $id >"$dir/graph-$id.json"
			"$bin/sgformer" predict --run "$dir/run" --graph "$dir/graph-$id.json" --backend "$b" >"$dir/predict-${b/:/-}-$id.json" 2>>"$dir/eval.log"
		done
	done
	"$py" - "$dir" "$backend" "${PARITY_RTOL:-1e-3}" <<-'EOF' | tee "$dir/result.json"
		import glob, json, os, sys
		d, other, rtol = sys.argv[1], sys.argv[2].replace(":", "-"), float(sys.argv[3])
		go = json.load(open(f"{d}/eval-go.json")); xla = json.load(open(f"{d}/eval-{other}.json"))
		rows = {s: (go[s], xla[s], abs(go[s] - xla[s]) / abs(go[s])) for s in ("val", "test")}
		for p in sorted(glob.glob(f"{d}/predict-go-*.json")):
		    gid = p.rsplit("-", 1)[1][:-5]
		    a = json.load(open(p))["prediction"][0]; b = json.load(open(f"{d}/predict-{other}-{gid}.json"))["prediction"][0]
		    rows[f"graph {gid}"] = (a, b, abs(a - b) / (1 + abs(a)))
		worst = max(r[2] for r in rows.values())
		print(json.dumps({"backends": ["go", sys.argv[2]], "rtol": rtol, "max_rel_diff": worst, "pass": worst <= rtol,
		                  "rows": {k: {"go": a, "other": b, "rel_diff": r} for k, (a, b, r) in rows.items()}}))
		sys.exit(0 if worst <= rtol else 1)
	EOF
}

cmd_speed() {
	local exec="${1:-}"
	[[ "$exec" == sparse || "$exec" == dense ]] || die "usage: gpu-run.sh speed sparse|dense"
	local dir="$OUT/speed/$exec" epochs=3 train=()
	rm -rf "$dir" && mkdir -p "$dir"
	gpu_env >"$dir/gpu-env.txt"
	if [[ "$dry" == 1 ]]; then epochs=2 train=(--train-subset 128); fi
	smi_start "$dir"
	"$bin/sgformer" train --dataset zinc12k --data-dir $data --cache-dir $cache "${train[@]}" "${small[@]}" \
		--epochs $epochs --execution "$exec" --backend $backend --out "$dir/run" >/dev/null 2>"$dir/train.log"
	smi_stop
	local util
	util="$(smi_json "$dir/smi.csv")"
	# One 128-molecule batch of the recipe's model: a training step and an inference pass.
	GOMLX_BACKEND=$backend SGFORMER_DATA=$gpu/data "$bin/training.test" -test.run '^$' \
		-test.bench "^BenchmarkZINC(TrainStep|Inference)/$exec\$" -test.benchtime $bench_time | tee "$dir/bench.txt"
	local step infer
	step="$(awk '/^BenchmarkZINCTrainStep/ { print $3 / 1e9 }' "$dir/bench.txt")"
	infer="$(awk '/^BenchmarkZINCInference/ { print $3 / 1e9 }' "$dir/bench.txt")"
	# ZINC-12k: 10,000 training molecules = 79 batches of 128; a test pass = 8 batches.
	awk -v e="$exec" -v s="$step" -v i="$infer" -v secs="$(seconds_json "$dir/run/metrics.jsonl")" -v u="$util" -v b="$backend" 'BEGIN {
		n = split(substr(secs, 2, length(secs) - 2), a, ",")
		steady = (n > 1) ? a[n] : a[1]
		printf "{\"execution\":\"%s\",\"backend\":\"%s\",\"epoch_seconds\":%s,\"steady_epoch_with_eval_s\":%s,", e, b, secs, steady
		printf "\"train_step_s\":%s,\"inference_batch_s\":%s,\"est_train_epoch_s\":%.2f,\"est_test_pass_s\":%.3f,", s, i, 79 * s, 8 * i
		t = steady - 16 * i # the epoch less its validation and test passes (null in dry runs, whose model is smaller)
		printf "\"train_epoch_s\":%s,\"smi\":%s}\n", (t > 0 ? sprintf("%.2f", t) : "null"), u
	}' | tee "$dir/result.json"
}

cmd_pyg() {
	local dir="$OUT/pyg" args=(--data "$data" --epochs 3)
	rm -rf "$dir" && mkdir -p "$dir"
	if [[ "$dry" == 1 ]]; then
		args=(--data "$data" --epochs 1 --train-subset 128 --eval-subset 128 --layers 2 --hidden 24)
		"$py" -c 'import torch_geometric' 2>/dev/null || args+=(--gat torch)
	fi
	local mode
	for mode in onthefly precomputed; do
		smi_start "$dir"
		"$py" bench/pyg/subgraphormer_pyg.py "${args[@]}" --product "$mode" | tee "$dir/$mode.jsonl"
		smi_stop
		mv "$dir/smi.csv" "$dir/smi-$mode.csv" 2>/dev/null || true
		smi_json "$dir/smi-$mode.csv" >"$dir/smi-$mode.json"
	done
}

# zinc_repair RUN drops metrics.jsonl lines of epochs after the checkpoint's.
zinc_repair() {
	local state="$1/checkpoint/state.json"
	[[ -f "$state" ]] || state="$1/checkpoint.old/state.json"
	[[ -f "$state" && -f "$1/metrics.jsonl" ]] || return 0
	local last
	last="$(grep -o '"epoch": *[0-9]*' "$state" | grep -o '[0-9]*$')"
	awk -v e="$last" 'match($0, /"epoch":[0-9]+/) && substr($0, RSTART + 8, RLENGTH - 8) + 0 <= e' "$1/metrics.jsonl" >"$1/metrics.tmp"
	mv "$1/metrics.tmp" "$1/metrics.jsonl"
}

cmd_zinc() {
	local seed="${1:-}"
	[[ "$seed" =~ ^[0-9]+$ ]] || die "usage: gpu-run.sh zinc SEED"
	local run="$OUT/zinc/seed$seed" carried="build/gpu-runs/zinc-seed$seed"
	local budget="${ZINC_BUDGET_S:-500}" total="${ZINC_EPOCHS:-400}"
	mkdir -p "$(dirname "$run")"
	rm -rf "$run"
	[[ -d "$carried" ]] && cp -a "$carried" "$run"
	gpu_env >/dev/null
	local train=() args=() before=0
	if [[ "$dry" == 1 ]]; then train=(--train-subset 64 --batch-size 32); fi
	if [[ -f "$run/run.json" ]]; then
		zinc_repair "$run"
		before="$(grep -c . "$run/metrics.jsonl" || true)"
		args=(--resume)
	else
		args=(--dataset zinc12k --data-dir "$data" --seed "$seed" "${train[@]}" "${small[@]}")
	fi
	if ((before >= total)); then
		echo "gpu-run: seed $seed has all $total epochs"
	else
		echo "gpu-run: seed $seed: from epoch $before of $total (budget ${budget}s)"
		local start=$SECONDS rc=0
		timeout -k 20 "$((budget + 60))" "$bin/sgformer" train "${args[@]}" --epochs "$total" --time-limit "${budget}s" \
			--cache-dir $cache --backend $backend --out "$run" >"$run.summary.json" 2>"$run.log" || rc=$?
		((rc == 0 || rc == 124)) || { tail -n 20 "$run.log" >&2; die "training failed (exit $rc), log in $run.log"; }
		zinc_repair "$run"
		echo "{\"seed\":$seed,\"from_epoch\":$before,\"to_epoch\":$(grep -c . "$run/metrics.jsonl"),\"seconds\":$((SECONDS - start)),\"timed_out\":$([[ $rc == 124 ]] && echo true || echo false)}" |
			tee "$run.piece.json"
	fi
	du -sh "$run"
}

cmd_summary() {
	(($# > 0)) || die "usage: gpu-run.sh summary RESULTS_DIR..."
	"$py" - "$@" <<-'EOF'
		import glob, json, statistics, sys
		for d in sys.argv[1:]:
		    ours = {json.load(open(p))["execution"]: json.load(open(p)) for p in glob.glob(f"{d}/speed/*/result.json")}
		    pyg = {}
		    for mode in ("onthefly", "precomputed"):
		        lines = [json.loads(l) for l in open(f"{d}/pyg/{mode}.jsonl") if l.startswith("{")] if glob.glob(f"{d}/pyg/{mode}.jsonl") else []
		        ep = [l for l in lines if "train_seconds" in l][1:]  # the first epoch warms up
		        if ep:
		            pyg[mode] = (statistics.median(l["train_seconds"] for l in ep), statistics.median(l["test_seconds"] for l in ep))
		    print("| implementation | train epoch (s) | test pass (s) | ours / PyG (train epoch) |\n|---|---:|---:|---|")
		    print("| paper (A100, PyTorch) | 9.60 | 0.95 | |")
		    for m, (tr, te) in pyg.items():
		        print(f"| PyG, product graph {m} | {tr:.2f} | {te:.2f} | |")
		    for e, r in sorted(ours.items()):
		        t = r["train_epoch_s"] or r["est_train_epoch_s"]  # null when the epoch is shorter than its evaluation estimate
		        ratios = ", ".join(f"{t / tr:.2f}× PyG {m}" for m, (tr, te) in pyg.items())
		        print(f"| ours, {e} ({r['backend']}) | {t:.2f} (bench: {r['est_train_epoch_s']:.2f}) | {r['est_test_pass_s']:.2f} | {ratios} |")
	EOF
}

sub="${1:-}"
shift || true
case "$sub" in
check | parity | speed | pyg | zinc)
	unpack
	"cmd_$sub" "$@"
	;;
summary) cmd_summary "$@" ;;
*) die "usage: gpu-run.sh check|parity|speed sparse|dense|pyg|zinc SEED|summary DIR..." ;;
esac
