#!/usr/bin/env bash
# Tests the interactive notebooks in a real browser: starts a Jupyter server (Debian's classic
# notebook) on 127.0.0.1 with a random token, opens each notebook in headless Chromium, runs all
# cells, works the widgets and checks what they draw (scripts/browser/test.py), then checks the
# saved notebooks cell by cell (internal/cmd/nbcheck) and shuts everything it started down.
#
# Usage: scripts/browser-test.sh [--figures] [NOTEBOOK ...]
#   NOTEBOOK    01-product-graph, 02-positional-encodings, 03-training (default: all three)
#   --figures   also copy the screenshots into docs/figures/ (docs/notebooks.md shows them)
#
# What it checks: in 01 the product-graph explorer (a root slider and a connectivity select) and
# the sampling explorer (ratio and seed sliders), in 02 the PE explorer (mode, k and column): each
# move redraws the figure (its SVG differs) with counts equal to the library's
# (scripts/browser/expect computes them from packages product and pe, not through kernelext);
# in 03 Stop, pressed once an epoch has ended, stops the run early with its checkpoint on disk.
#
# Writes build/browser/: nb/ (the notebooks run, copies), screenshots/, jupyter.log. Installs
# what is missing the way scripts/setup-notebooks.sh does: Debian's jupyter-notebook, chromium,
# chromium-driver and python3-selenium (root or sudo, apt-get), then GoNB and nbconvert through
# scripts/setup-notebooks.sh. Every wait is bounded (the whole test by SGFORMER_BROWSER_TIMEOUT,
# default 900 s); on failure it says which notebook and step, keeps a screenshot of the page and
# prints the end of the server's log.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

say() { printf '[browser-test] %s\n' "$*"; }
die() {
	printf '[browser-test] error: %s\n' "$*" >&2
	exit 1
}

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
	command -v jupyter-notebook >/dev/null 2>&1 || packages+=(jupyter-notebook)
	[ -x /usr/bin/chromium ] || packages+=(chromium)
	[ -x /usr/bin/chromedriver ] || packages+=(chromium-driver)
	"$py" -c 'import selenium' >/dev/null 2>&1 || packages+=(python3-selenium)
	if [ ${#packages[@]} -eq 0 ]; then
		say "jupyter-notebook, chromium, chromedriver and selenium present"
		return
	fi
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			sudo=(sudo -n)
		else
			die "missing ${packages[*]}: install them as root (apt-get install ${packages[*]})"
		fi
	fi
	say "apt-get install ${packages[*]}"
	local t0=$SECONDS
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
	say "  installed in $((SECONDS - t0)) s"
}

install_system
scripts/setup-notebooks.sh >/dev/null || die "scripts/setup-notebooks.sh failed (run it to see why)"
gobin=$(go env GOBIN)
export PATH="${gobin:-$(go env GOPATH)/bin}:$PATH" # the GoNB kernel runs go, goimports and gonb from PATH

out=build/browser
rm -rf "$out/nb" "$out/screenshots"
mkdir -p "$out/nb" "$out/screenshots"
go build -o "$out/expect" ./scripts/browser/expect
go build -o "$out/nbcheck" ./internal/cmd/nbcheck

# The notebooks run from copies in $out/nb, so that the browser never writes to notebooks/: their
# first cell points GoNB at this repository by its absolute path instead of ${GONB_DIR}/.., and
# the shared datasets are found through SGFORMER_DATA.
for nb in "${notebooks[@]}"; do
	"$py" - "notebooks/$nb.ipynb" "$out/nb/$nb.ipynb" "$root" <<'EOF'
import json, sys
src, dst, root = sys.argv[1:]
nb = json.load(open(src))
first = "".join(nb["cells"][1]["source"])
if "${GONB_DIR}/.." not in first:
    sys.exit(f"{src}: its second cell does not point GoNB at ${{GONB_DIR}}/.. (the module)")
nb["cells"][1]["source"] = first.replace("${GONB_DIR}/..", root)
json.dump(nb, open(dst, "w"), indent=1, ensure_ascii=False)
EOF
done
if [ -z "${SGFORMER_DATA:-}" ] && [ -d "$root/../shared/data" ]; then
	export SGFORMER_DATA="$(cd "$root/../shared/data" && pwd)"
fi

port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$("$py" -c 'import secrets; print(secrets.token_hex(24))')
export JUPYTER_CONFIG_DIR="$PWD/$out/jupyter-config" JUPYTER_RUNTIME_DIR="$PWD/$out/jupyter-runtime"
mkdir -p "$JUPYTER_CONFIG_DIR" "$JUPYTER_RUNTIME_DIR"

# The server runs in a process group of its own: on exit the group (the server, its kernels and
# the cells' programs) is terminated, then killed if still there.
server=""
cleanup() {
	local status=$?
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		kill -TERM -- "-$server" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$server" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL -- "-$server" 2>/dev/null || true
	fi
	if [ "$status" -ne 0 ] && [ -f "$out/jupyter.log" ]; then
		say "the end of the Jupyter server's log ($out/jupyter.log):" >&2
		tail -n 25 "$out/jupyter.log" | sed 's/^/    /' >&2
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "jupyter notebook on 127.0.0.1:$port"
setsid jupyter-notebook --no-browser --ip=127.0.0.1 --port="$port" --port-retries=0 \
	--NotebookApp.token="$token" --allow-root --notebook-dir="$PWD/$out/nb" >"$out/jupyter.log" 2>&1 &
server=$!
for i in $(seq 60); do
	if curl -fsS "http://127.0.0.1:$port/api/status?token=$token" >/dev/null 2>&1; then
		break
	fi
	kill -0 "$server" 2>/dev/null || die "the Jupyter server exited (log: $out/jupyter.log)"
	[ "$i" -lt 60 ] || die "the Jupyter server did not answer within 30 s (log: $out/jupyter.log)"
	sleep 0.5
done

status=0
timeout --kill-after=10 "${SGFORMER_BROWSER_TIMEOUT:-900}" "$py" scripts/browser/test.py \
	--url "http://127.0.0.1:$port" --token "$token" --out "$out/screenshots" --expect "$out/expect" \
	"${notebooks[@]}" || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
	die "the browser test ran past ${SGFORMER_BROWSER_TIMEOUT:-900} s (SGFORMER_BROWSER_TIMEOUT) and was stopped"
fi
[ "$status" -eq 0 ] || die "the browser test failed (above; screenshots in $out/screenshots)"

# The notebooks as the browser saved them: no cell may have failed.
for nb in "${notebooks[@]}"; do
	"$out/nbcheck" "$out/nb/$nb.ipynb" || die "$nb: a cell failed in the browser (above)"
done

if $figures; then
	for shot in "$out"/screenshots/explorer-*.png "$out"/screenshots/training-*.png; do
		cp "$shot" "docs/figures/notebook-$(basename "$shot")"
	done
	say "screenshots copied to docs/figures/notebook-*.png"
fi
say "passed: ${notebooks[*]} (screenshots in $out/screenshots)"
