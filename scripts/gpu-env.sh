# shellcheck shell=bash
# Source this on a CUDA machine whose Python environment has JAX's CUDA PJRT plugin
# (jax-cuda13-pjrt / jax-cuda13-plugin) and NVIDIA's nvidia-* wheels, so that
# `sgformer … --backend xla:cuda` finds XLA without downloading anything:
#
#   source scripts/gpu-env.sh && sgformer train --backend xla:cuda …
#
# What it does, and why (go-xla v0.1.4, pkg/pjrt/dynamiclib_base.go and cuda_linux.go):
#   - go-xla finds plugins in the folders of $PJRT_PLUGIN_LIBRARY_PATH by file name
#     pjrt_c_api_<name>_plugin.so; GoMLX's "xla:cuda" asks for the plugin named "cuda". JAX ships
#     it as jax_plugins/xla_cuda13/xla_cuda_plugin.so, so this script makes a folder
#     $SGFORMER_PJRT_DIR/lib (default ~/.cache/sgformer/pjrt/lib, where sgformer install-xla
#     puts the CPU plugin, so that xla:cpu keeps working in this shell) holding a symlink
#     pjrt_c_api_cuda_plugin.so to it.
#   - After loading a CUDA plugin, go-xla looks for nvidia/ in the parent of the plugin's
#     folder, i.e. $SGFORMER_PJRT_DIR/nvidia: missing, it only warns; present, it sets
#     XLA_FLAGS=--xla_gpu_cuda_data_dir=/home/janpf/.local/lib/go-xla/nvidia (a developer's
#     path left in v0.1.4) unless XLA_FLAGS already holds an --xla_gpu_cuda_data_dir. So this
#     script links $SGFORMER_PJRT_DIR/nvidia to site-packages/nvidia (which is also where the
#     plugin's $ORIGIN-relative RPATH would look) and always sets its own data dir: the
#     folder with nvvm/libdevice/libdevice.10.bc (and bin/ptxas), e.g. nvidia/cu13 or
#     nvidia/cuda_nvcc; when the wheels have none (the project's H100 machine, 2026-11-26), that
#     of the CUDA toolkit: $CUDA_HOME, else $CUDA_PATH, else the one holding nvcc, else
#     /usr/local/cuda; ptxas likewise, else the one on $PATH.
#   - LD_LIBRARY_PATH gets every nvidia/*/lib folder (cudart, cublas, cudnn, nccl, …), which the
#     plugin dlopens; PATH gets the folder of ptxas/nvlink; GOMLX_NO_AUTO_INSTALL=1 stops GoMLX
#     from trying to download plugins.
#
# GPU memory. The CUDA PJRT plugin takes its allocator settings only from the client-creation
# options — "allocator", "preallocate" (default true: 75% of the GPU at start-up) and
# "memory_fraction" — not from environment variables (JAX's XLA_PYTHON_CLIENT_* are read by JAX's
# Python code). sgformer/backend creates "xla:cuda" with preallocate=false, so memory grows as
# needed and nvidia-smi's memory.used is the run's high-water mark.
#
# Settings: $SGFORMER_PYTHON (default python3) is the Python whose site-packages is searched;
# $SGFORMER_PJRT_DIR is where the plugin folder is laid out.
# On failure it says what is missing and returns 1 (it never exits the sourcing shell).

_sgformer_gpu_env() {
	local py="${SGFORMER_PYTHON:-python3}"
	local dir="${SGFORMER_PJRT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sgformer/pjrt}"

	if ! command -v "$py" >/dev/null 2>&1; then
		echo "gpu-env: Python interpreter '$py' not found (set SGFORMER_PYTHON)" >&2
		return 1
	fi
	local candidates
	if ! candidates="$("$py" -c 'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))')"; then
		echo "gpu-env: '$py' could not list its site-packages" >&2
		return 1
	fi

	# The site-packages holding the JAX CUDA PJRT plugin (the newest CUDA version wins).
	local sp="" plugin="" c p
	while IFS= read -r c; do
		[[ -d "$c/jax_plugins" ]] || continue
		p="$(find "$c/jax_plugins" -maxdepth 2 \( -name 'xla_cuda*plugin*.so' -o -name 'pjrt_c_api_cuda*plugin.so' \) 2>/dev/null | sort -V | tail -n 1)"
		if [[ -n "$p" ]]; then
			sp="$c" plugin="$p"
			break
		fi
	done <<<"$candidates"
	if [[ -z "$plugin" ]]; then
		echo "gpu-env: no CUDA PJRT plugin (jax_plugins/xla_cuda*/xla_cuda_plugin.so, from the jax-cuda13-pjrt package) in the site-packages of $py:" >&2
		# shellcheck disable=SC2001 # one prefix per line
		echo "$candidates" | sed 's/^/gpu-env:   /' >&2
		return 1
	fi
	local nvidia="$sp/nvidia"
	if [[ ! -d "$nvidia" ]]; then
		echo "gpu-env: no nvidia/ folder (the nvidia-* CUDA library wheels) in $sp" >&2
		return 1
	fi

	local libs=() l
	for l in "$nvidia"/*/lib "$nvidia"/*/lib64; do
		[[ -d "$l" ]] && libs+=("$l")
	done
	if ((${#libs[@]} == 0)); then
		echo "gpu-env: no nvidia/*/lib folders (CUDA runtime, cuBLAS, cuDNN…) in $nvidia" >&2
		return 1
	fi

	# libdevice: from the nvidia-cuda-nvcc / nvidia-nvvm wheel, else from the CUDA toolkit
	# ($CUDA_HOME, else $CUDA_PATH, else the one holding nvcc, else /usr/local/cuda).
	local libdevice="" datadir root toolkit="${CUDA_HOME:-${CUDA_PATH:-}}"
	if [[ -z "$toolkit" ]] && command -v nvcc >/dev/null 2>&1; then
		toolkit="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
	fi
	local roots=("$nvidia" "${toolkit:-/usr/local/cuda}")
	for root in "${roots[@]}"; do
		[[ -d "$root" ]] || continue
		libdevice="$(find -L "$root" -path '*/nvvm/libdevice/libdevice.10.bc' 2>/dev/null | sort -V | tail -n 1)"
		[[ -n "$libdevice" ]] && break
	done
	if [[ -z "$libdevice" ]]; then
		echo "gpu-env: no nvvm/libdevice/libdevice.10.bc under ${roots[*]} (the nvidia-cuda-nvcc / nvidia-nvvm wheel, or a CUDA toolkit); XLA needs it to compile for the GPU" >&2
		return 1
	fi
	datadir="$(dirname "$(dirname "$(dirname "$libdevice")")")"
	local ptxas="$datadir/bin/ptxas"
	if [[ ! -e "$ptxas" ]]; then
		ptxas="$(find -L "$nvidia" -path '*/bin/ptxas' 2>/dev/null | sort -V | tail -n 1)"
	fi
	if [[ -z "$ptxas" ]] && command -v ptxas >/dev/null 2>&1; then
		ptxas="$(command -v ptxas)"
	fi

	mkdir -p "$dir/lib" || return 1
	ln -sfn "$plugin" "$dir/lib/pjrt_c_api_cuda_plugin.so" || return 1
	ln -sfn "$nvidia" "$dir/nvidia" || return 1

	export PJRT_PLUGIN_LIBRARY_PATH="$dir/lib"
	local joined
	joined="$(IFS=:; echo "${libs[*]}")"
	export LD_LIBRARY_PATH="$joined${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	if [[ "${XLA_FLAGS:-}" != *--xla_gpu_cuda_data_dir* ]]; then
		export XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_gpu_cuda_data_dir=$datadir"
	fi
	if [[ -n "$ptxas" ]]; then
		PATH="$(dirname "$ptxas"):$PATH"
		export PATH
	fi
	export GOMLX_NO_AUTO_INSTALL=1

	echo "gpu-env: python          $py"
	echo "gpu-env: site-packages   $sp"
	echo "gpu-env: plugin          $plugin"
	echo "gpu-env: PJRT_PLUGIN_LIBRARY_PATH=$PJRT_PLUGIN_LIBRARY_PATH (pjrt_c_api_cuda_plugin.so, ../nvidia)"
	echo "gpu-env: LD_LIBRARY_PATH += ${#libs[@]} nvidia library folders"
	echo "gpu-env: XLA_FLAGS=$XLA_FLAGS"
	if [[ -n "$ptxas" ]]; then
		echo "gpu-env: ptxas           $ptxas"
	else
		echo "gpu-env: warning: no ptxas under $nvidia; XLA falls back to the driver's PTX compiler (slower compiles)"
	fi
	echo "gpu-env: GOMLX_NO_AUTO_INSTALL=1"
}

_sgformer_gpu_env
_sgformer_gpu_env_status=$?
unset -f _sgformer_gpu_env
if ((_sgformer_gpu_env_status != 0)); then
	unset _sgformer_gpu_env_status
	# shellcheck disable=SC2317 # exit only when executed rather than sourced
	return 1 2>/dev/null || exit 1
fi
unset _sgformer_gpu_env_status
