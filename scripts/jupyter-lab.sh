#!/usr/bin/env bash
# Starts JupyterLab on notebooks/ from the venv scripts/setup-notebooks.sh made, with the GoNB
# kernel and $(go env GOPATH)/bin on PATH (the kernel runs go, goimports and gopls from it).
# As root (a container), it adds --allow-root, which Jupyter otherwise asks for.
#
# Usage: scripts/jupyter-lab.sh [JUPYTERLAB ARGUMENTS...]   e.g. --no-browser --port 8889
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${SGFORMER_JUPYTER:-${XDG_CACHE_HOME:-$HOME/.cache}/sgformer/jupyter}"
if [ ! -x "$venv/bin/jupyter-lab" ]; then
	echo "scripts/jupyter-lab.sh: no JupyterLab in $venv: run scripts/setup-notebooks.sh --interactive first" >&2
	exit 1
fi
gobin="$(go env GOBIN 2>/dev/null || true)"
export PATH="$venv/bin:${gobin:-$(go env GOPATH)/bin}:$PATH"
args=()
if [ "$(id -u)" -eq 0 ]; then
	args+=(--allow-root)
fi
exec jupyter-lab "${args[@]}" --notebook-dir="$root/notebooks" "$@"
