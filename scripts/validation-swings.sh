#!/usr/bin/env bash
# Why the validation metric swings from epoch to epoch while the training loss falls (issue 45):
# the ZINC-12k recipe trained on its first 1,040 training molecules (8 batches of 128 and one of
# 16, as a full epoch ends) for EPOCHS epochs (default 20) from seed 0, by sgformer on xla:cpu and
# by the PyTorch Geometric peer (bench/pyg, the same model: 291,471 parameters) on the CPU, each
# epoch's training loss and test MAE (sgformer's validation MAE too), the peer twice: its atom and
# bond embeddings started from PyTorch's N(0, 1), and as the authors' OGB encoders (and sgformer)
# start them (--embedding-init authors); then the last epoch's weights evaluated as training
# left them and with BatchNorm's running averages recalibrated to them (sgformer eval
# --checkpoint latest [--recalibrate-bn]), and the same for the GPU run
# results/zinc12k-gpu/runs/seed-0 (epoch 110). About 2.5 hours on 2 cores.
# Writes OUT's records (default results/validation-swings/records.jsonl; internal/record), which
# internal/cmd/readme renders into docs/results.md; the header records the machine and its load.
# Needs the shared data at ../shared/data or $SGFORMER_DATA, and the peer's venv (build/venv-pyg,
# installed with the versions scripts/lib/pyg.sh pins when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/validation-swings/records.jsonl}
epochs=${EPOCHS:-20}
source scripts/lib/record.sh
export SGFORMER_DATA=${SGFORMER_DATA:-$(cd .. && pwd)/shared/data}
source scripts/lib/pyg.sh
pyg_install
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/sgformer" ./cmd/sgformer
"$tmp/sgformer" install-xla >/dev/null
zinc="$SGFORMER_DATA/zinc12k"
{
	record_header scripts/validation-swings.sh
	echo "# setup: --train-subset 1040 --epochs $epochs --seed 0; sgformer on xla:cpu, the peer on $(pyg_versions)"
	"$tmp/sgformer" train --dataset zinc12k --data-dir "$zinc" --train-subset 1040 --epochs "$epochs" --seed 0 \
		--backend xla:cpu --out "$tmp/ours" >/dev/null 2>"$tmp/ours.err" || { cat "$tmp/ours.err" >&2; exit 1; }
	echo "== sgformer"
	cat "$tmp/ours/metrics.jsonl"
	for init in pytorch authors; do
		part=pyg
		[[ $init == authors ]] && part="pyg authors-init"
		echo "== $part"
		"$venv/bin/python" bench/pyg/subgraphormer_pyg.py --data "$zinc" --product precomputed --device cpu \
			--train-subset 1040 --epochs "$epochs" --seed 0 --embedding-init "$init" 2>/dev/null | grep '"epoch"'
	done
	for name in sgformer gpu; do
		run=$tmp/ours
		[[ $name == gpu ]] && run=results/zinc12k-gpu/runs/seed-0
		for bn in running recalibrated; do
			flag=()
			[[ $bn == recalibrated ]] && flag=(--recalibrate-bn)
			echo "== eval $name $bn"
			"$tmp/sgformer" eval --run "$run" --checkpoint latest --backend xla:cpu --data-dir "$zinc" "${flag[@]}" 2>/dev/null
		done
	done
} >"$tmp/out"
record_write "$out" <"$tmp/out"
