#!/usr/bin/env bash
# Tests the notebooks in a real browser, headless Chromium, in two servers on 127.0.0.1 with a
# random token, then checks the notebooks the browser saved cell by cell (internal/cmd/nbcheck)
# and shuts everything it started down.
#
# 1. Debian's classic notebook (scripts/browser/test.py): runs the interactive notebooks' cells,
#    works the widgets and checks what they draw. In 01 the product-graph explorer (a root slider
#    and a connectivity select) and the sampling explorer (ratio and seed sliders), in 02 the PE
#    explorer (mode, k and column): each move redraws the figure (its SVG differs) with counts
#    equal to the library's (scripts/browser/expect computes them from packages product and pe,
#    not through kernelext); in 03 Stop, pressed once an epoch has ended, stops the run early
#    with its checkpoint on disk.
# 2. JupyterLab, pinned (scripts/browser/lab.py): every notebook of notebooks/ opened as
#    committed and untrusted, its figures counted as rendered images, opened and saved without a
#    change to its file; those with explorers run with Run All, which must finish with no button
#    pressed.
#
# Usage: scripts/browser-test.sh [--figures] [NOTEBOOK ...]
#   NOTEBOOK    of part 1: 01-product-graph, 02-positional-encodings, 03-training (default: all
#               three); part 2 takes every notebook
#   --figures   also copy the screenshots into docs/figures/ (docs/notebooks.md shows them)
#
# Writes build/browser/: nb/ and lab/ (the notebooks opened, copies), screenshots/, jupyter.log
# and lab.log. Installs what is missing the way scripts/setup-notebooks.sh does: Debian's
# jupyter-notebook, chromium, chromium-driver and python3-selenium (root or sudo, apt-get), then
# GoNB and the pinned Jupyter through scripts/setup-notebooks.sh. Every wait is bounded (each
# part by SGFORMER_BROWSER_TIMEOUT, default 900 s); on failure it says which notebook and step,
# keeps a screenshot of the page and prints the end of the server's log.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

say() { printf '[browser-test] %s\n' "$*"; }
die() {
	printf '[browser-test] error: %s\n' "$*" >&2
	exit 1
}
source scripts/lib/apt.sh

figures=false
notebooks=()
for arg in "$@"; do
	case "$arg" in
	--figures) figures=true ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*) die "unknown flag $arg (see --help)" ;;
	*) notebooks+=("${arg%.ipynb}") ;;
	esac
done
[ ${#notebooks[@]} -gt 0 ] || notebooks=(01-product-graph 02-positional-encodings 03-training)
for nb in "${notebooks[@]}"; do
	[ -f "notebooks/$nb.ipynb" ] || die "no notebook notebooks/$nb.ipynb"
done

py=/usr/bin/python3 # Debian's python, which has selenium (another python3 on PATH may not)

# install_system installs the Debian packages that are missing.
install_system() {
	local packages=()
	[ -x /usr/bin/jupyter-notebook ] || packages+=(jupyter-notebook)
	[ -x /usr/bin/chromium ] || packages+=(chromium)
	[ -x /usr/bin/chromedriver ] || packages+=(chromium-driver)
	"$py" -c 'import selenium' >/dev/null 2>&1 || packages+=(python3-selenium)
	if [ ${#packages[@]} -eq 0 ]; then
		say "jupyter-notebook, chromium, chromedriver and selenium present"
		return
	fi
	apt_install "${packages[@]}"
}

install_system
# The GoNB kernel of the headless runs (scripts/notebooks.sh), in a Jupyter data folder of its own.
export JUPYTER_DATA_DIR="$PWD/build/jupyter/data"
scripts/setup-notebooks.sh >/dev/null || die "scripts/setup-notebooks.sh failed (run it to see why)"
gobin=$(go env GOBIN)
export PATH="${gobin:-$(go env GOPATH)/bin}:$PATH" # the GoNB kernel runs go, goimports and gonb from PATH
venv="${SGFORMER_JUPYTER:-${XDG_CACHE_HOME:-$HOME/.cache}/sgformer/jupyter}"

out=build/browser
rm -rf "$out/nb" "$out/lab" "$out/screenshots"
mkdir -p "$out/nb" "$out/lab/committed" "$out/lab/run" "$out/screenshots"
go build -o "$out/expect" ./scripts/browser/expect
go build -o "$out/nbcheck" ./internal/cmd/nbcheck

# pointed SRC DST writes a copy of notebook SRC whose first cell points GoNB at this repository by
# its absolute path instead of ${GONB_DIR}/.. (the copies run in $out, so that the browser never
# writes to notebooks/); the shared datasets are found through SGFORMER_DATA.
pointed() {
	"$py" - "$1" "$2" "$root" <<'EOF'
import json, sys
src, dst, root = sys.argv[1:]
nb = json.load(open(src))
first = "".join(nb["cells"][1]["source"])
if "${GONB_DIR}/.." not in first:
    sys.exit(f"{src}: its second cell does not point GoNB at ${{GONB_DIR}}/.. (the module)")
nb["cells"][1]["source"] = first.replace("${GONB_DIR}/..", root)
json.dump(nb, open(dst, "w"), indent=1, ensure_ascii=False)
EOF
}
for nb in "${notebooks[@]}"; do
	pointed "notebooks/$nb.ipynb" "$out/nb/$nb.ipynb"
done
# JupyterLab opens every committed notebook as it is, and runs those with explorers with Run All.
lab_committed=()
lab_run=()
for path in notebooks/*.ipynb; do
	nb=$(basename "$path" .ipynb)
	cp "$path" "$out/lab/committed/"
	lab_committed+=("$nb")
	if grep -q 'kernelext.Explore' "$path"; then
		pointed "$path" "$out/lab/run/$nb.ipynb"
		lab_run+=("$nb")
	fi
done
if [ -z "${SGFORMER_DATA:-}" ] && [ -d "$root/../shared/data" ]; then
	export SGFORMER_DATA="$(cd "$root/../shared/data" && pwd)"
fi

token=$("$py" -c 'import secrets; print(secrets.token_hex(24))')
export JUPYTER_CONFIG_DIR="$PWD/$out/jupyter-config" JUPYTER_RUNTIME_DIR="$PWD/$out/jupyter-runtime"
mkdir -p "$JUPYTER_CONFIG_DIR" "$JUPYTER_RUNTIME_DIR"

# A server runs in a process group of its own: on exit the group (the server, its kernels and
# the cells' programs) is terminated, then killed if still there.
source scripts/lib/server.sh
server=""
log=""
cleanup() {
	local status=$?
	stop_server
	if [ "$status" -ne 0 ] && [ -n "$log" ] && [ -f "$log" ]; then
		say "the end of the Jupyter server's log ($log):" >&2
		tail -n 25 "$log" | sed 's/^/    /' >&2
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# serve LOG COMMAND... starts a Jupyter server on a free port of 127.0.0.1 and waits until it
# answers; $port is its port.
serve() {
	log="$1"
	shift
	port=$(free_port)
	start_server "$log" "$@" --no-browser --ip=127.0.0.1 --port="$port" --port-retries=0 --allow-root
	wait_http "http://127.0.0.1:$port/api/status?token=$token" 30 "the Jupyter server" "$log"
}

# finish STATUS WHAT fails the test when the browser's script did.
finish() {
	if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then
		die "$2 ran past ${SGFORMER_BROWSER_TIMEOUT:-900} s (SGFORMER_BROWSER_TIMEOUT) and was stopped"
	fi
	[ "$1" -eq 0 ] || die "$2 failed (above; screenshots in $out/screenshots)"
}

# The interactive notebooks in Debian's classic notebook: widgets worked, counts checked.
say "jupyter notebook (classic) on 127.0.0.1"
serve "$out/jupyter.log" /usr/bin/jupyter-notebook --NotebookApp.token="$token" --notebook-dir="$PWD/$out/nb"
status=0
timeout --kill-after=10 "${SGFORMER_BROWSER_TIMEOUT:-900}" "$py" scripts/browser/test.py \
	--url "http://127.0.0.1:$port" --token "$token" --out "$out/screenshots" --expect "$out/expect" \
	"${notebooks[@]}" || status=$?
finish "$status" "the browser test"
stop_server

# The notebooks as saved by the browser: no cell may have failed.
for nb in "${notebooks[@]}"; do
	"$out/nbcheck" "$out/nb/$nb.ipynb" || die "$nb: a cell failed in the browser (above)"
done

# JupyterLab (pinned, from the venv), its notary empty so that nothing is trusted, and its news
# toast (which would cover the screenshots) off.
settings="$out/lab-settings/@jupyterlab/apputils-extension"
mkdir -p "$settings"
echo '{"fetchNews": "false", "checkForUpdates": false}' >"$settings/notification.jupyterlab-settings"
say "JupyterLab $("$venv/bin/jupyter-lab" --version) on 127.0.0.1"
serve "$out/lab.log" "$venv/bin/jupyter-lab" --ServerApp.token="$token" --ServerApp.root_dir="$PWD/$out/lab" \
	--NotebookNotary.db_file=:memory: --LabApp.user_settings_dir="$PWD/$out/lab-settings"
status=0
timeout --kill-after=10 "${SGFORMER_BROWSER_TIMEOUT:-900}" "$py" scripts/browser/lab.py \
	--url "http://127.0.0.1:$port" --token "$token" --root "$out/lab" --out "$out/screenshots" \
	--committed "${lab_committed[@]}" --run-all "${lab_run[@]}" || status=$?
finish "$status" "the JupyterLab test"
stop_server
for nb in "${lab_run[@]}"; do
	"$out/nbcheck" "$out/lab/run/$nb.ipynb" || die "$nb: a cell failed in JupyterLab's Run All (above)"
done

if $figures; then
	for shot in "$out"/screenshots/explorer-*.png "$out"/screenshots/training-*.png "$out"/screenshots/lab-*-figure.png \
		"$out"/screenshots/lab-run-all-*.png; do
		cp "$shot" "docs/figures/notebook-$(basename "$shot")"
	done
	say "screenshots copied to docs/figures/notebook-*.png"
fi
say "passed: ${notebooks[*]}; in JupyterLab: ${lab_committed[*]} opened as committed, ${lab_run[*]} run with Run All (screenshots in $out/screenshots)"
