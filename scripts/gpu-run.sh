#!/usr/bin/env bash
# The GPU plan (issue 12) as pieces, run from the repository root on the device machine; one
# device call runs several pieces in order, each bounded by what is left of the call's budget.
#
#   check            machine, glibc and ldd of the binary, nvidia-smi, gpu-env.sh, a 1-epoch
#                    ZINC run (128 training molecules) on xla:cuda
#   parity           the same weights on the same graphs, pure Go vs xla:cuda (see below)
#   speed:EXEC       EXEC = sparse|dense: 3 epochs of the ZINC-12k recipe (batch 128, 6 × 96,
#                    k = 8) with nvidia-smi sampling utilisation and memory every 0.5 s (the
#                    last epoch's training, batch-waiting and evaluation times from metrics.jsonl),
#                    then the per-batch benchmarks (training step, inference, host batching)
#   pyg              bench/pyg/subgraphormer_pyg.py on the same data: on-the-fly and
#                    precomputed product graphs, 3 epochs each
#   zinc:S[,S...]    continue the 400-epoch ZINC-12k runs of seeds S… (results/zinc12k-gpu/runs/
#                    seed-S), all at the same time on the one GPU, with nvidia-smi sampling, for
#                    what is left of the call (at most $ZINC_BUDGET_S seconds), stopping at a
#                    checkpoint
#
# and, here, on what a call brought back:
#
#   collect DIR      unpack DIR/*.tar.gz into results/zinc12k-gpu/ (a piece's folder and a
#                    seed's run replaced, DIR/pieces.jsonl appended to its pieces.jsonl), from
#                    which `go run ./internal/cmd/readme` renders the README's GPU section
#
# Prepare here: scripts/gpu-build.sh (build/gpu/: the gzipped binaries and the ZINC text
# export, 19 MB), then make `run` calls with carry ["build/gpu"], e.g.
#
#   run  scripts/gpu-run.sh check parity speed:sparse
#   run  scripts/gpu-run.sh speed:sparse speed:dense pyg      (one call: timings compared)
#   run  scripts/gpu-run.sh zinc:0,1,2
#
# then `scripts/gpu-run.sh collect FILES_AT` and commit results/zinc12k-gpu after every call:
# the seeds' runs travel to the next call (and the next lucky session) as tracked files.
#
# What comes back. The device returns at most 8 files from $OUT, at most two folders down, so
# every piece works in $SGFORMER_GPU_WORK (default build/gpu-work) and leaves one tarball,
# $OUT/PIECE.tar.gz (zinc:S…: one per seed, runs-seed-S.tar.gz, plus the piece's logs), and a
# line in $OUT/pieces.jsonl: piece, the call's start, date, GPU, build, exit status, seconds
# and the piece's result.json. A piece that fails is recorded and the next one still runs; the exit status is
# that of the first failure. Training runs' variables are left out of the tarballs, except the
# seeds' (their checkpoint and best model, 6.7 MB each).
#
# Time. The device kills a command at 600 s; the pieces of one call share $GPU_CALL_BUDGET_S
# (default 540), each run under `timeout` with what is left (a piece with under 60 s left is
# skipped and recorded so). zinc gives sgformer `--time-limit` (it stops at an epoch boundary
# with its checkpoint) and SIGTERM as the safety net (sgformer then saves the epoch in progress
# at its step, and --resume continues from there exactly).
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
# torch_geometric is absent ($SGFORMER_PYTHON: the Python with torch).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
OUT="${OUT:-$repo/build/gpu-out}"
work="${SGFORMER_GPU_WORK:-$repo/build/gpu-work}"
results="${SGFORMER_GPU_RESULTS:-results/zinc12k-gpu}"
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

# smi_start FILE samples GPU utilisation and memory into FILE until smi_stop.
smi_pid=""
smi_start() {
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits -lms 500 >"$1" &
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

# drop_variables RUN deletes the checkpoints of a timing run (not needed back here).
drop_variables() {
	rm -rf "$1/checkpoint" "$1/best" "$1"/checkpoint.* "$1"/best.*
}

# Each piece_* runs in its own process (errexit applies inside it), in the folder it is given,
# and writes result.json there.

piece_check() {
	local dir="$1"
	{
		uname -a
		ldd --version | sed -n 1p # sed reads to the end: head could leave ldd a SIGPIPE, fatal under pipefail
		echo "binary needs: $(cat $gpu/GLIBC 2>/dev/null || echo unknown)"
		ldd "$bin/sgformer"
		nvidia-smi || echo "nvidia-smi: not available"
	} 2>&1 | tee "$dir/machine.txt"
	! ldd "$bin/sgformer" | grep -q 'not found' || die "the binary lacks shared libraries (see $dir/machine.txt)"
	local have need
	have="$(ldd --version | sed -n 1p | grep -o '[0-9]\+\.[0-9]\+$')"
	need="$(sed 's/GLIBC_//' $gpu/GLIBC)"
	[[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | sed -n 1p)" == "$need" ]] || die "glibc $have is older than the $need the binary needs"
	gpu_env >"$dir/gpu-env.txt" # in this shell, so that its exports stay
	cat "$dir/gpu-env.txt"
	env | grep -E '^(PJRT_PLUGIN_LIBRARY_PATH|LD_LIBRARY_PATH|XLA_FLAGS|GOMLX_NO_AUTO_INSTALL)=' >"$dir/env.txt" || true
	local start=$SECONDS
	"$bin/sgformer" train --dataset zinc12k --data-dir $data --cache-dir $cache --train-subset $subset \
		--batch-size 32 --epochs 1 "${small[@]}" --backend $backend --out "$dir/run" \
		>"$dir/summary.json" 2> >(tee "$dir/train.log" >&2)
	drop_variables "$dir/run"
	echo "{\"backend\":\"$backend\",\"glibc\":\"$have\",\"seconds\":$((SECONDS - start)),\"epoch_seconds\":$(seconds_json "$dir/run/metrics.jsonl")}" >"$dir/result.json"
}

piece_parity() {
	local dir="$1"
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
	drop_variables "$dir/run"
	"$py" - "$dir" "$backend" "${PARITY_RTOL:-1e-3}" <<-'EOF'
		import glob, json, os, sys
		d, other, rtol = sys.argv[1], sys.argv[2].replace(":", "-"), float(sys.argv[3])
		go = json.load(open(f"{d}/eval-go.json")); xla = json.load(open(f"{d}/eval-{other}.json"))
		rows = {s: (go[s], xla[s], abs(go[s] - xla[s]) / abs(go[s])) for s in ("val", "test")}
		for p in sorted(glob.glob(f"{d}/predict-go-*.json")):
		    gid = p.rsplit("-", 1)[1][:-5]
		    a = json.load(open(p))["prediction"][0]; b = json.load(open(f"{d}/predict-{other}-{gid}.json"))["prediction"][0]
		    rows[f"graph {gid}"] = (a, b, abs(a - b) / (1 + abs(a)))
		worst = max(r[2] for r in rows.values())
		with open(f"{d}/result.json", "w") as f:
		    json.dump({"backends": ["go", sys.argv[2]], "rtol": rtol, "max_rel_diff": worst, "pass": worst <= rtol,
		               "rows": {k: {"go": a, "other": b, "rel_diff": r} for k, (a, b, r) in rows.items()}}, f)
		sys.exit(0 if worst <= rtol else 1)
	EOF
}

piece_speed() {
	local dir="$1" exec="$2" epochs=3 train=()
	[[ "$exec" == sparse || "$exec" == dense ]] || die "speed:$exec: want speed:sparse or speed:dense"
	gpu_env >"$dir/gpu-env.txt"
	if [[ "$dry" == 1 ]]; then epochs=2 train=(--train-subset 128); fi
	smi_start "$dir/smi.csv"
	"$bin/sgformer" train --dataset zinc12k --data-dir $data --cache-dir $cache "${train[@]}" "${small[@]}" \
		--epochs $epochs --execution "$exec" --backend $backend --out "$dir/run" >/dev/null 2>"$dir/train.log"
	smi_stop
	drop_variables "$dir/run"
	smi_json "$dir/smi.csv" >"$dir/smi.json"
	# One 128-molecule batch of the recipe's model: a training step, an inference pass, and the
	# host's share of a step (building the batch).
	GOMLX_BACKEND=$backend SGFORMER_DATA=$gpu/data "$bin/training.test" -test.run '^$' \
		-test.bench "^BenchmarkZINC(TrainStep|Inference|Batch)/$exec\$" -test.benchtime $bench_time | tee "$dir/bench.txt"
	# The last epoch's times from metrics.jsonl (training steps, of which waiting for batches;
	# the rest is the validation and test passes, 1,000 molecules each), and the benchmarks'.
	"$py" - "$dir" "$exec" "$backend" <<-'EOF'
		import json, re, sys
		d, execution, backend = sys.argv[1:4]
		recs = [json.loads(l) for l in open(f"{d}/run/metrics.jsonl") if l.strip()]
		bench = {m[1]: float(m[2]) / 1e9 for m in re.finditer(r"^BenchmarkZINC(\w+)/\w+(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op", open(f"{d}/bench.txt").read(), re.M)}
		last = recs[-1]
		json.dump({"execution": execution, "backend": backend,
		           "epochs": [{k: r[k] for k in ("seconds", "train_seconds", "batch_seconds")} for r in recs],
		           "train_epoch_s": last["train_seconds"], "batch_s": last["batch_seconds"],
		           "test_pass_s": (last["seconds"] - last["train_seconds"]) / 2,
		           "bench_train_step_s": bench.get("TrainStep"), "bench_inference_s": bench.get("Inference"), "bench_batch_s": bench.get("Batch"),
		           "smi": json.load(open(f"{d}/smi.json"))}, open(f"{d}/result.json", "w"))
	EOF
}

piece_pyg() {
	local dir="$1" args=(--data "$data" --epochs 3)
	if [[ "$dry" == 1 ]]; then
		args=(--data "$data" --epochs 1 --train-subset 128 --eval-subset 128 --layers 2 --hidden 24)
		"$py" -c 'import torch_geometric' 2>/dev/null || args+=(--gat torch)
	fi
	local mode
	for mode in onthefly precomputed; do
		smi_start "$dir/smi-$mode.csv"
		PYTHONUNBUFFERED=1 "$py" bench/pyg/subgraphormer_pyg.py "${args[@]}" --product "$mode" | tee "$dir/$mode.jsonl"
		smi_stop
		smi_json "$dir/smi-$mode.csv" >"$dir/smi-$mode.json"
	done
	"$py" - "$dir" <<-'EOF'
		import json, sys
		d = sys.argv[1]
		out = {}
		for mode in ("onthefly", "precomputed"):
		    lines = [json.loads(l) for l in open(f"{d}/{mode}.jsonl") if l.startswith("{")]
		    out[mode] = {"summary": [l for l in lines if l.get("summary")], "smi": json.load(open(f"{d}/smi-{mode}.json")),
		                 "peak_mem_mib": max((l["peak_mem_mib"] for l in lines if "peak_mem_mib" in l), default=None)}
		json.dump(out, open(f"{d}/result.json", "w"))
	EOF
}

# piece_zinc DIR SEEDS continues the runs of SEEDS (comma-separated) at the same time, from
# $results/runs/seed-S (tracked, so they travel with the tree) into $work/runs/seed-S.
piece_zinc() {
	local dir="$1" seeds="${2//,/ }" left="$3"
	local budget="${ZINC_BUDGET_S:-540}" total="${ZINC_EPOCHS:-400}" s
	budget=$((budget < left - 30 ? budget : left - 30))
	((budget > 0)) || die "no time left for training"
	gpu_env >"$dir/gpu-env.txt"
	local train=()
	if [[ "$dry" == 1 ]]; then train=(--train-subset 64 --batch-size 32); fi
	smi_start "$dir/smi.csv"
	local pids=()
	for s in $seeds; do
		[[ "$s" =~ ^[0-9]+$ ]] || die "zinc:$2: seeds are numbers separated by commas"
		local run="$work/runs/seed-$s" args=() before=0
		rm -rf "$run" && mkdir -p "$work/runs"
		[[ -d "$results/runs/seed-$s" ]] && cp -a "$results/runs/seed-$s" "$run"
		if [[ -f "$run/run.json" ]]; then
			before="$(grep -c . "$run/metrics.jsonl" || true)"
			args=(--resume)
		else
			args=(--dataset zinc12k --data-dir "$data" --seed "$s" "${train[@]}" "${small[@]}")
		fi
		echo "$before" >"$dir/seed$s.before"
		if ((before >= total)); then
			echo "gpu-run: seed $s has all $total epochs"
			continue
		fi
		echo "gpu-run: seed $s: from epoch $before of $total (budget ${budget}s)"
		"$bin/sgformer" train "${args[@]}" --epochs "$total" --time-limit "${budget}s" --cache-dir $cache \
			--backend $backend --out "$run" >"$dir/seed$s.summary.json" 2>"$dir/seed$s.log" &
		pids+=("$!:$s")
	done
	# On SIGTERM (the call's budget) every process of the group gets it; the runs save the epoch
	# in progress at their step, and this waits for that before the piece is packed.
	trap 'echo "gpu-run: terminated; waiting for the runs to save"; wait' TERM
	local p rc=0 start=$SECONDS
	for p in "${pids[@]}"; do
		wait "${p%%:*}" || { rc=1; tail -n 20 "$dir/seed${p#*:}.log" >&2; }
	done
	smi_stop
	{
		printf '{"seconds":%d,"smi":%s,"seeds":[' $((SECONDS - start)) "$(smi_json "$dir/smi.csv")"
		local sep=""
		for s in $seeds; do
			local m="$work/runs/seed-$s/metrics.jsonl"
			printf '%s{"seed":%s,"from_epoch":%s,"to_epoch":%s}' "$sep" "$s" "$(cat "$dir/seed$s.before")" "$(grep -c . "$m" 2>/dev/null || echo 0)"
			sep=","
		done
		echo "]}"
	} >"$dir/result.json"
	return "$rc"
}

# record PIECE RC SECONDS DIR appends the piece's line to $OUT/pieces.jsonl.
record() {
	local result=null card
	[[ -s "$4/result.json" ]] && result="$(tr -d '\n' <"$4/result.json")"
	card="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sed -n 1p || true)"
	printf '{"piece":"%s","call":"%s","date":"%s","gpu":"%s","build":"%s","rc":%d,"seconds":%d,"result":%s}\n' \
		"$1" "$call" "$(date -u +%FT%TZ)" "${card:-none}" "$(cat $gpu/COMMIT 2>/dev/null || echo unknown)" "$2" "$3" "$result" |
		tee -a "$OUT/pieces.jsonl"
}

# run_piece PIECE runs one piece in a child process under what is left of the call's budget,
# packs its folder into $OUT and records it; it returns the piece's exit status.
run_piece() {
	local piece="$1" name="${1//[:,]/-}" left=$((${GPU_CALL_BUDGET_S:-540} - SECONDS))
	local dir="$work/$name"
	rm -rf "$dir" && mkdir -p "$dir"
	if ((left < 60)); then
		echo "{\"skipped\":\"${left}s left of the call's budget\"}" >"$dir/result.json"
		record "$piece" 0 0 "$dir"
		return 0
	fi
	local start=$SECONDS rc
	set +e
	timeout -k 20 "$left" bash "$0" __piece "$piece" "$dir" "$left" 2>&1 | tee "$dir/output.txt"
	rc=${PIPESTATUS[0]}
	set -e
	((rc != 124)) || echo "gpu-run: $piece stopped at the call's budget (${left}s left)" | tee -a "$dir/output.txt"
	tar -czf "$OUT/$name.tar.gz" -C "$work" "$name"
	if [[ "$piece" == zinc:* ]]; then
		local s
		local seeds="${piece#zinc:}"
		for s in ${seeds//,/ }; do
			[[ -d "$work/runs/seed-$s" ]] && tar -czf "$OUT/runs-seed-$s.tar.gz" -C "$work" "runs/seed-$s"
		done
	fi
	record "$piece" "$rc" $((SECONDS - start)) "$dir"
	return "$rc"
}

cmd_collect() {
	local from="${1:-}" to="${2:-$results}"
	[[ -d "$from" ]] || die "usage: gpu-run.sh collect FILES_AT [DEST]"
	mkdir -p "$to"
	local t name
	for t in "$from"/*.tar.gz; do
		[[ -e "$t" ]] || continue
		name="$(basename "$t" .tar.gz)"
		case "$name" in
		runs-seed*) rm -rf "$to/runs/${name#runs-}" ;;
		*) rm -rf "${to:?}/$name" ;;
		esac
		tar -xzf "$t" -C "$to"
		echo "gpu-run: $t -> $to/$([[ $name == runs-seed* ]] && echo "runs/${name#runs-}" || echo "$name")"
	done
	[[ -f "$from/pieces.jsonl" ]] && cat "$from/pieces.jsonl" >>"$to/pieces.jsonl"
	return 0
}

sub="${1:-}"
case "$sub" in
__piece) # __piece PIECE DIR LEFT, in the child process of run_piece
	case "$2" in
	check | parity | pyg) "piece_$2" "$3" ;;
	speed:*) piece_speed "$3" "${2#speed:}" ;;
	zinc:*) piece_zinc "$3" "${2#zinc:}" "$4" ;;
	*) die "unknown piece $2" ;;
	esac
	;;
collect) cmd_collect "${@:2}" ;;
check | parity | pyg | speed:* | zinc:*)
	files=1 # pieces.jsonl, a tarball per piece, and one per seed
	for p in "$@"; do
		[[ "$p" =~ ^(check|parity|pyg|speed:(sparse|dense)|zinc:[0-9]+(,[0-9]+)*)$ ]] || die "unknown piece $p"
		seeds="${p#zinc:}"
		[[ "$p" == zinc:* ]] && files=$((files + $(tr -cd , <<<"$seeds" | wc -c) + 1))
		files=$((files + 1))
	done
	((files <= 8)) || die "these pieces would leave $files files in \$OUT, and the device returns 8: split them over two calls"
	unpack
	mkdir -p "$OUT" "$work"
	call="$(date -u +%FT%TZ)" # when this call began: timings are compared within one call
	status=0
	for p in "$@"; do
		rc=0
		run_piece "$p" || rc=$?
		((status != 0)) || status=$rc
	done
	exit $status
	;;
*) die "usage: gpu-run.sh PIECE... (check, parity, speed:sparse, speed:dense, pyg, zinc:S[,S...]) | collect DIR [DEST]" ;;
esac
