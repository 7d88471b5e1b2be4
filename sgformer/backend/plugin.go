package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gomlx/gomlx/backends"
)

// CPUPluginFile is the file name under which go-xla finds XLA's CPU PJRT plugin, the plugin
// GoMLX's "xla:cpu" loads (go-xla v0.1.4, pkg/pjrt/dynamiclib_base.go:
// pjrt_c_api_<name>_plugin.so).
const CPUPluginFile = "pjrt_c_api_cpu_plugin.so"

// A Wheel is one file of a Python wheel on PyPI, pinned: the wheel's URL, the file's path inside
// the wheel and its SHA-256, which the installation checks.
type Wheel struct {
	Package, Version string
	URL              string
	Member           string
	MemberSHA256     string
}

// CPUPlugin is the XLA CPU PJRT plugin the project installs (sgformer install-xla): the one of
// the three builds on PyPI that load into go-xla v0.1.4 (which speaks PJRT C API 0.83) with the
// newest XLA (PJRT C API 0.115, StableHLO 1.20.0), the smallest (202 MB), the fastest of them
// at a ZINC training step, and the one the parity tests (xla_test.go, the model package's
// TestXLAParity) and the benchmarks were run with. The others, xla-cpu-pjrt 0.0.1 (C API 0.81)
// and fastatomstruct-xla-cpu 2026.6.23 (C API 0.106), pass the parity test too and run an
// inference pass faster (scripts/bench-plugins.sh). With internet and no plugin installed,
// GoMLX installs its own build (go-xla's installer) the first time "xla:cpu" is asked for.
var CPUPlugin = Wheel{
	Package: "lammps-jax-pjrt-cpu",
	Version: "0.11.2",
	URL: "https://files.pythonhosted.org/packages/e5/90/f04e5ea9e56f01965b4cd56bc3cf4801a563cd47b74d4ded5780f19c3a7c/" +
		"lammps_jax_pjrt_cpu-0.11.2-py3-none-manylinux_2_27_x86_64.whl",
	Member:       "lammps_jax_pjrt_cpu/" + CPUPluginFile,
	MemberSHA256: "ad1309ac822b1b24d51b7f9947c7c9fa9ef5d67f390584cbc3d1fa2428fed9c2",
}

// PluginDir is the folder the project keeps PJRT plugins in: $SGFORMER_PJRT_DIR/lib, else
// sgformer/pjrt/lib in the user cache directory (~/.cache/sgformer/pjrt/lib on Linux).
// sgformer install-xla puts the CPU plugin there, and scripts/gpu-env.sh links the CUDA one
// beside it (and the CUDA libraries into ../nvidia, where go-xla looks for them), under go-xla's
// file names.
func PluginDir() (string, error) {
	if dir := os.Getenv("SGFORMER_PJRT_DIR"); dir != "" {
		return filepath.Join(dir, "lib"), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("backend: no folder for PJRT plugins (set SGFORMER_PJRT_DIR): %w", err)
	}
	return filepath.Join(cache, "sgformer", "pjrt", "lib"), nil
}

// installedCPUPlugin returns the path of the CPU plugin in PluginDir, if one is there.
func installedCPUPlugin() (string, bool) {
	dir, err := PluginDir()
	if err != nil {
		return "", false
	}
	path := filepath.Join(dir, CPUPluginFile)
	fi, err := os.Stat(path)
	return path, err == nil && fi.Mode().IsRegular()
}

// Default is the backend New chooses when it is given none and $GOMLX_BACKEND is unset:
// "xla:cpu" when the CPU plugin is installed in PluginDir (or $PJRT_PLUGIN_LIBRARY_PATH names a
// folder holding one), else "go". why says, for "go", what is missing and how to install it.
func Default() (config, why string) {
	if _, ok := installedCPUPlugin(); ok {
		return "xla:cpu", ""
	}
	for _, dir := range filepath.SplitList(os.Getenv("PJRT_PLUGIN_LIBRARY_PATH")) {
		if _, err := os.Stat(filepath.Join(dir, CPUPluginFile)); dir != "" && err == nil {
			return "xla:cpu", ""
		}
	}
	dir, _ := PluginDir()
	return "go", fmt.Sprintf("using the pure-Go backend: XLA's CPU plugin is not installed in %s "+
		"(`sgformer install-xla` installs it, 63 MB from PyPI; XLA trains about 10 times faster)", dir)
}

// Kind is the backend b as New's configurations name it: "go", "xla:cpu", "xla:cuda", or
// GoMLX's name of another backend.
func Kind(b backends.Backend) string {
	if b.Name() != "xla" {
		if m := registeredName.FindStringSubmatch(b.Name()); m != nil {
			return m[1] // "SimpleGo (go)"
		}
		return b.Name()
	}
	desc, _, _ := strings.Cut(b.Description(), " - ")
	plugin, _ := strings.CutPrefix(desc, "xla:")
	if m := pluginFileName.FindStringSubmatch(plugin); m != nil {
		plugin = m[1] // loaded by path
	}
	return "xla:" + plugin
}

// Describe is b's description with the plugin named by Kind rather than by its path.
func Describe(b backends.Backend) string {
	_, rest, ok := strings.Cut(b.Description(), " - ")
	if !ok {
		return b.Description()
	}
	return Kind(b) + " - " + rest
}

// registeredName matches the name a backend is registered under, at the end of its Name.
var registeredName = regexp.MustCompile(`\((\w+)\)$`)

// pluginFileName matches the path of a plugin named as go-xla names them.
var pluginFileName = regexp.MustCompile(`(?:^|/)pjrt_c_api_(.+)_plugin\.(?:so|dylib|dll)$`)
