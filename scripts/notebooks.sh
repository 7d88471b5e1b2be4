#!/usr/bin/env bash
# Executes the GoNB notebooks headless and checks every cell; CI runs it from scripts/test.sh.
#
# Usage: scripts/notebooks.sh [--save] [NOTEBOOK ...]
#   without arguments: the self-test, then every notebooks/*.ipynb (not notebooks/testdata/)
#   with arguments:    only the notebooks named, by path or by name in notebooks/ (e.g.
#                      03-training), without the self-test
#   --save:            also write each notebook that passed, with its outputs, over the committed
#                      one (stamped with the digest of its cells, which internal/nbcheck's
#                      TestNotebooksSaved checks: run it after changing a notebook's cells), and
#                      its time and peak memory into results/notebooks/NAME.jsonl (records)
#
# Environment:
#   SGFORMER_NOTEBOOKS      notebooks to run, space-separated, when no argument is given
#   SGFORMER_CELL_TIMEOUT   seconds one cell may run (default 3600)
#   SGFORMER_PAPER_EPOCHS   epochs of 04-ablations' live cell of the paper (default 2 without
#                           --save, the paper's 100 with it)
#   GOMLX_BACKEND           GoMLX backend of the notebooks (default xla:cpu where sgformer install-xla
#                           installed it, else go, the pure-Go backend)
#
# For each notebook NAME it writes
#   build/notebooks/NAME.ipynb       the executed notebook
#   build/notebooks/html/NAME.html   its HTML rendering (CI's artifact)
#   build/notebooks/logs/NAME.log    nbconvert's and the kernel's log
# and runs internal/cmd/nbcheck on it: GoNB does not make nbconvert fail on a panic or a
# non-zero exit status in a cell, so every executed notebook is scanned for failed cells.
# Cells after a failed one still run. The exit status is non-zero if any notebook failed, and
# each failure is printed with the notebook, the cell and the offending output.
#
# The self-test executes notebooks/testdata/broken.ipynb, whose third cell panics, and fails
# unless the checker reports exactly that panic: CI proves the checker catches a real failure.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[notebooks] %s\n' "$*"; }

out=build/notebooks
timeout=${SGFORMER_CELL_TIMEOUT:-3600}

# The kernel is registered in a Jupyter data folder of this script's own, so that the headless
# flags (plain-text errors) never replace those of a reader's --interactive setup.
export JUPYTER_DATA_DIR="$PWD/build/jupyter/data"
scripts/setup-notebooks.sh
gobin=$(go env GOBIN)
venv="${SGFORMER_JUPYTER:-${XDG_CACHE_HOME:-$HOME/.cache}/sgformer/jupyter}"
# nbconvert from the pinned venv; the kernel runs go, goimports and gonb from PATH.
export PATH="$venv/bin:${gobin:-$(go env GOPATH)/bin}:$PATH"

mkdir -p "$out/html" "$out/logs"
nbcheck="$out/nbcheck"
go build -o "$nbcheck" ./internal/cmd/nbcheck

# execute NOTEBOOK DIR runs NOTEBOOK into DIR/NAME.ipynb, logging into $out/logs/NAME.log,
# and prints its wall time and the peak memory of its processes (scripts/peak-rss.py, into
# $out/logs/NAME.measure.json). nbconvert fails only when it cannot finish (a cell's timeout, a
# dead kernel): errors inside cells are left to the checker.
execute() {
	local notebook=$1 dir=$2 name log status=0
	name=$(basename "$notebook" .ipynb)
	log="$out/logs/$name.log"
	python3 scripts/peak-rss.py "$out/logs/$name.measure.json" -- jupyter nbconvert --to notebook --execute --output-dir "$dir" \
		--ExecutePreprocessor.kernel_name=gonb \
		--ExecutePreprocessor.timeout="$timeout" \
		--ExecutePreprocessor.allow_errors=True \
		"$notebook" >"$log" 2>&1 || status=$?
	say "$name: executed in $(python3 -c "import json, sys; m = json.load(open(sys.argv[1])); print(m['seconds'], 's, peak memory', m['peak_rss_mib'], 'MiB')" "$out/logs/$name.measure.json")"
	if [ "$status" -ne 0 ]; then
		tail -n 30 "$log" | sed 's/^/    /' >&2
		say "$name: FAILED: nbconvert exited with status $status (log: $log)" >&2
	fi
	return "$status"
}

# render NAME writes $out/html/NAME.html from the executed $out/NAME.ipynb, with Go syntax
# highlighting (nbconvert would highlight the cells as Python), through a copy: the executed
# notebook keeps the language_info GoNB reports, which a front end would otherwise write back.
render() {
	mkdir -p "$out/html-src"
	python3 - "$out/$1.ipynb" "$out/html-src/$1.ipynb" <<'EOF'
import json, sys
src, dst = sys.argv[1:]
with open(src) as f:
    nb = json.load(f)
nb.setdefault("metadata", {}).setdefault("language_info", {})["pygments_lexer"] = "go"
with open(dst, "w") as f:
    json.dump(nb, f, indent=1, ensure_ascii=False)
    f.write("\n")
EOF
	jupyter nbconvert --to html --output-dir "$out/html" "$out/html-src/$1.ipynb" >>"$out/logs/$1.log" 2>&1
}

# selftest checks that the checker fails on notebooks/testdata/broken.ipynb, naming its panic.
selftest() {
	local broken=notebooks/testdata/broken.ipynb report status=0
	say "self-test: $broken must fail the check"
	execute "$broken" "$out/selftest"
	report=$("$nbcheck" "$out/selftest/broken.ipynb" 2>&1) || status=$?
	printf '%s\n' "$report" | sed 's/^/    /'
	if [ "$status" -ne 1 ] || [ "$(grep -c ': cell [0-9]* of ' <<<"$report")" -ne 1 ] ||
		! grep -q ': cell 3 of 4 (In \[2\].*): panic:' <<<"$report"; then
		say "self-test FAILED: the checker exited with $status and did not report exactly the panic of cell 3" >&2
		return 1
	fi
	say "self-test passed: the checker caught the panic"
}

save=0
if [ "${1:-}" = --save ]; then
	save=1
	shift
fi
# 04's live cell of the paper trains 100 epochs (some ten minutes) in a saved run; a check runs
# its first 2, which the cell compares with the committed seed's.
if [ "$save" = 0 ]; then
	export SGFORMER_PAPER_EPOCHS="${SGFORMER_PAPER_EPOCHS:-2}"
fi
notebooks=()
for arg in "$@" ${SGFORMER_NOTEBOOKS:-}; do
	if [ -f "$arg" ]; then
		notebooks+=("$arg")
	elif [ -f "notebooks/${arg%.ipynb}.ipynb" ]; then
		notebooks+=("notebooks/${arg%.ipynb}.ipynb")
	else
		say "no notebook $arg (looked for $arg and notebooks/${arg%.ipynb}.ipynb)" >&2
		exit 2
	fi
done
if [ ${#notebooks[@]} -eq 0 ]; then
	selftest
	shopt -s nullglob
	notebooks=(notebooks/*.ipynb)
	shopt -u nullglob
	if [ ${#notebooks[@]} -eq 0 ]; then
		say "no notebooks in notebooks/"
	fi
fi

failed=()
source scripts/lib/record.sh
header=$(record_header "scripts/notebooks.sh --save") # the load before the notebooks
for notebook in "${notebooks[@]}"; do
	name=$(basename "$notebook" .ipynb)
	if ! execute "$notebook" "$out"; then
		failed+=("$name")
		continue
	fi
	render "$name"
	if ! "$nbcheck" "$out/$name.ipynb"; then
		failed+=("$name")
	elif [ "$save" = 1 ]; then
		"$nbcheck" -save "$out/$name.ipynb" "$notebook"
		# The run's time and memory beside it, records for docs/notebooks.md (internal/cmd/readme).
		printf '%s\n== %s\n%s\n' "$header" "$name" "$(cat "$out/logs/$name.measure.json")" | record_write "results/notebooks/$name.jsonl"
		say "$name: outputs saved into $notebook, its time and memory into results/notebooks/$name.jsonl"
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	say "FAILED: ${failed[*]} (executed notebooks in $out, HTML in $out/html, logs in $out/logs)" >&2
	exit 1
fi
say "${#notebooks[@]} notebook(s) passed; HTML in $out/html"
