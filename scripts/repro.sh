#!/usr/bin/env bash
# The reproduction runs of docs/reproduction.md, in resumable pieces, two at a time.
#
#   scripts/repro.sh list   TABLE          the runs of TABLE, a line each: name and arguments
#   scripts/repro.sh run    TABLE [CELLS]  train them (or those whose name contains one of
#                                          CELLS, a comma-separated list) until all are done
#
# TABLE is gin (the GIN rows of the paper's tables, cheapest first: ogbg-molesol, ogbg-molbace,
# ogbg-molhiv and ZINC-12k, full bag, each dataset's recipe with the model changed; their runs go
# where the report reads each dataset's runs), molesol-sampling (the paper's Table
# "molesol-sampling": GNN-SSWL+, Subgraphormer and Subgraphormer + PE at sampling ratios 100 %, 50 %, 20 % and 5 %, 3 seeds each, with the
# paper's recipe of each ratio, recipe.At, which starts the weights as the authors' PyTorch
# code does), molbace-sampling (the same rows on ogbg-molbace: the 50 % and full-bag cells after
# the 20 % and 5 % ones, which ran first), molesol-authors-pooling (the 5 %, 20 %
# and 50 % cells of molesol-sampling with the authors' pooling under sampling,
# pooling=authors_mean) or molbace-authors-pooling (the 5 % cells of molbace-sampling so); both
# with all three rows.
#
# Each run is `sgformer train … --time-limit $SGFORMER_REPRO_PIECE` (default 4h: a piece starts by
# compiling XLA's programs again, a few minutes for the 3-layer models but up to half an hour for
# the 12-layer ones of the 20 % and 5 % recipes on a busy machine — 19 programs, 1,595 s, for
# GNN-SSWL+ at 20 % on 2026-11-25 — so pieces are long; stopping, below, ends one early) and then
# `--resume` until its last epoch: a kill loses one piece at most, and between pieces, when no
# process writes it, the run folder is copied to results/reproduction/TABLE/CELL/seed-N (config,
# metrics, summary, curves, and until the run is finished its checkpoint, a few megabytes), from
# where the next session resumes it after a commit. JSON lines on stdout say when each piece
# starts and ends.
#
# To stop before a session ends: touch WORK/STOP, then send SIGINT to the `sgformer train`
# processes; each saves its checkpoint at the step where it is, is copied to results/, and no
# new piece starts (remove WORK/STOP before the next `run`).
#
# Settings: SGFORMER_BIN, a binary built once outside the tree being edited (default
# build/repro/sgformer, built here if missing); SGFORMER_REPRO_WORK, where runs train (default
# build/repro/work); SGFORMER_REPRO_RESULTS, where run folders are copied (default
# results/reproduction); SGFORMER_REPRO_JOBS (default 2); SGFORMER_BACKEND (default xla:cpu).
# Bash reads a script as it runs it: run a copy of this file when the tree may change meanwhile.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cmd="${1:-}"
table="${2:-}"
cells="${3:-}"
bin="${SGFORMER_BIN:-$repo/build/repro/sgformer}"
work="${SGFORMER_REPRO_WORK:-$repo/build/repro/work}"
results="${SGFORMER_REPRO_RESULTS:-$repo/results/reproduction}"
jobs="${SGFORMER_REPRO_JOBS:-2}"
piece="${SGFORMER_REPRO_PIECE:-4h}"
backend="${SGFORMER_BACKEND:-xla:cpu}"

# runs TABLE prints "FOLDER/CELL SEED ARGS…" for every run of TABLE.
runs() {
	local models=("sswlplus:--model sswl+ --pe-k 0" "subgraphormer:--pe-k 0" "subgraphormer-pe:")
	local dataset ratios folder="$1"
	case "$1" in
	gin)
		local d s
		for d in molesol-sampling:ogbg-molesol molbace-sampling:ogbg-molbace ogbg-molhiv:ogbg-molhiv zinc12k:zinc12k; do
			for s in 0 1 2; do
				echo "${d%%:*}/gin_ratio-1 $s --dataset ${d#*:} --model gin --pe-k 0 --seed $s"
			done
		done
		return
		;;
	molesol-sampling) dataset=ogbg-molesol ratios=(1 0.5 0.2 0.05) ;;
	molbace-sampling) dataset=ogbg-molbace ratios=(0.2 0.05 0.5 1) ;;
	molesol-authors-pooling | molbace-authors-pooling)
		# The sampled cells again with the authors' pooling under sampling, all three rows.
		if [[ $1 == molesol-* ]]; then
			dataset=ogbg-molesol ratios=(0.05 0.2 0.5)
		else
			dataset=ogbg-molbace ratios=(0.05)
		fi
		models=("subgraphormer:--pe-k 0 --set pooling=authors_mean" "subgraphormer-pe:--set pooling=authors_mean"
			"sswlplus:--model sswl+ --pe-k 0 --set pooling=authors_mean")
		;;
	*)
		echo "repro: unknown table '$1' (gin, molesol-sampling, molbace-sampling, molesol-authors-pooling, molbace-authors-pooling)" >&2
		return 2
		;;
	esac
	local r m s
	for s in 0 1 2; do
		for r in "${ratios[@]}"; do
			for m in "${models[@]}"; do
				echo "$folder/${m%%:*}_ratio-$r $s --dataset $dataset --sampling-ratio $r --seed $s ${m#*:}"
			done
		done
	done
}

# done DIR: the run in DIR has trained all the epochs its config asks for.
finished() {
	[[ -f "$1/config.json" && -f "$1/metrics.jsonl" ]] || return 1
	local want have
	want="$(sed -n 's/^ *"epochs": *\([0-9]*\).*/\1/p' "$1/config.json")"
	have="$(epochs "$1")"
	[[ -n "$want" && "$have" -ge "$want" ]]
}

# epochs DIR: the number of epochs the run in DIR has recorded.
epochs() {
	if [[ -f "$1/metrics.jsonl" ]]; then
		awk '/"epoch"/ { n++ } END { print n + 0 }' "$1/metrics.jsonl"
	else
		echo 0
	fi
}

# one FOLDER/CELL SEED ARGS…: trains one run to its end, piece by piece, copying it to results/.
one() {
	local cell="$1" seed="$2"
	shift 2
	local dir="$work/$cell/seed-$seed" keep="$results/$cell/seed-$seed"
	if [[ ! -d "$dir" && -d "$keep" ]]; then
		mkdir -p "$(dirname "$dir")"
		cp -a "$keep" "$dir"
	fi
	local status=0
	while ! finished "$dir" && [[ ! -e "$work/STOP" ]]; do
		local resume=()
		[[ -d "$dir/checkpoint" ]] && resume=(--resume)
		echo "{\"time\":\"$(date -u +%FT%TZ)\",\"run\":\"$cell/seed-$seed\",\"event\":\"start\",\"resume\":${#resume[@]}}"
		mkdir -p "$dir"
		status=0
		local before
		before="$(epochs "$dir")"
		"$bin" train "$@" --backend "$backend" --out "$dir" --time-limit "$piece" "${resume[@]}" >>"$dir.log" 2>&1 || status=$?
		rm -rf "$keep.new"
		mkdir -p "$(dirname "$keep")"
		cp -a "$dir" "$keep.new"
		# results/ keeps a run's record and, until it is finished, the checkpoint to resume from,
		# not its other variables (the best epoch's model): the tracked tree travels with every
		# call of the GPU machine, whose working tree is limited (64 MiB). The work folder keeps
		# them all.
		rm -rf "$keep.new/best"
		if finished "$dir"; then rm -rf "$keep.new/checkpoint"; fi
		rm -rf "$keep"
		mv "$keep.new" "$keep"
		cp "$dir.log" "$keep/train.log"
		echo "{\"time\":\"$(date -u +%FT%TZ)\",\"run\":\"$cell/seed-$seed\",\"event\":\"end\",\"exit\":$status}"
		# A piece that failed after it saved further epochs is resumed: on xla:cpu a sampled run
		# compiles a program for every new batch shape and keeps them all, until LLVM cannot map
		# more memory for one ("LLVM compilation error: Cannot allocate memory", after 35-50
		# molesol epochs); a new process starts without them.
		if ((status != 0)) && (($(epochs "$dir") > before)); then
			continue
		fi
		if ((status != 0)) && [[ ! -e "$work/STOP" ]]; then
			echo "repro: $cell/seed-$seed failed (exit $status); its log is $dir.log" >&2
			return "$status"
		fi
	done
}

case "$cmd" in
list) runs "$table" ;;
run)
	list="$(runs "$table")"
	if [[ ! -x "$bin" ]]; then
		mkdir -p "$(dirname "$bin")"
		(cd "$repo" && go build -o "$bin" ./cmd/sgformer)
	fi
	mkdir -p "$work"
	while read -r cell seed args; do
		if [[ -n "$cells" ]]; then
			match=0
			for c in ${cells//,/ }; do [[ "$cell" == *"$c"* ]] && match=1; done
			((match)) || continue
		fi
		while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
		[[ -e "$work/STOP" ]] && break
		# shellcheck disable=SC2086 # args are words
		one "$cell" "$seed" $args &
	done <<<"$list"
	wait
	;;
*)
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
