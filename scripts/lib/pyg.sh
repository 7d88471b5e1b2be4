# The venv of PyTorch Geometric that the peer (bench/pyg) and the authors' code run in:
# $SGFORMER_PYG_VENV, default build/venv-pyg. Source it from the project root.
venv=${SGFORMER_PYG_VENV:-build/venv-pyg}

# pyg_install installs the pinned torch and torch-geometric from PyPI into $venv when it lacks them.
pyg_install() {
	if ! "$venv/bin/python" -c "import torch_geometric" 2>/dev/null; then
		python3 -m venv "$venv"
		"$venv/bin/pip" install -q "torch==2.15.0" "torch-geometric==2.8.1"
	fi
}

# pyg_versions prints the venv's torch (with its threads) and torch-geometric versions, for a
# records' setup line.
pyg_versions() {
	"$venv/bin/python" -c 'import torch, torch_geometric; print(f"torch {torch.__version__} ({torch.get_num_threads()} threads), torch-geometric {torch_geometric.__version__}")'
}
