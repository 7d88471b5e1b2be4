// Package backend selects the GoMLX backend a model runs on and works around the defects of
// GoMLX v0.26.0 that matter for GNNs, in one place:
//
//   - Matrix-product gradients: GoMLX builds the gradients of Dot and DotGeneral as a broadcast
//     product and a sum, materialising an [N, out, in] tensor (620 M floats for one Dense layer
//     on a ZINC batch). New registers DotGeneral-based gradients instead (fastgrad.go;
//     BenchmarkDotGradient compares the two).
//   - The pure-Go backend's worker pool can deadlock when every worker waits on a DotGeneral;
//     unbounded parallelism cannot. The pure-Go backend therefore defaults to
//     "go:parallelism=-1,dotgeneral_large", the configuration measured fastest. (Setting the
//     parallelism makes GoMLX print a line on standard output, which New suppresses, so that
//     JSON output stays clean.)
//   - Backend names: GoMLX panics on an unknown backend name; New returns an error instead, and
//     a missing XLA plugin is reported with what to do about it.
//   - GPU memory: PJRT's CUDA plugin grabs 75% of the GPU at start-up unless told otherwise, so
//     that nvidia-smi shows the grab, not what a run needs. "xla:cuda" is created with
//     preallocation off: memory grows as needed and memory.used is the run's high-water mark.
//   - Compilation: GoMLX compiles each program again in every process. New puts a cache on disk
//     behind the XLA plugin's compile call (compilecache.go), so that a resumed run, a second
//     seed or a notebook cell run again loads its programs instead.
//   - Memory: glibc's malloc maps XLA's large temporary buffers afresh for each execution and
//     unmaps them after; the package sets it, when the process starts, to reuse them (malloc.go,
//     MallocArenas).
//   - BatchNorm: the pure-Go backend lacks the BatchNorm ops and GoMLX's layer has no mask; the
//     model package has its own masked BatchNorm.
package backend

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gomlx/go-xla/pkg/pjrt"
	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/default" // the pure-Go backend "go" and XLA "xla"
	"github.com/gomlx/gomlx/backends/xla"
)

// GoConfig is the configuration of the pure-Go backend used when none is given.
const GoConfig = "go:parallelism=-1,dotgeneral_large"

var registerOnce sync.Once

// ErrUnknown is the error (errors.Is) of New for a name that is no backend's.
var ErrUnknown = errors.New("unknown backend")

// New returns the backend named by config — "go" (pure Go, always available), "xla:cpu",
// "xla:cuda", or any GoMLX backend configuration — or by $GOMLX_BACKEND when config is empty,
// or else Default's. "go" alone means GoConfig.
//
// The XLA backend needs its PJRT plugin. "xla:cpu" loads the one in PluginDir (CPUPlugin, which
// sgformer install-xla puts there) unless $PJRT_PLUGIN_LIBRARY_PATH names the folders to search
// instead; nothing is downloaded then. Otherwise, with internet, GoMLX downloads its own plugin on
// first use (unless $GOMLX_NO_AUTO_INSTALL is set). A missing plugin is an error saying how to
// install it, never a hang.
func New(config string) (b backends.Backend, err error) {
	registerOnce.Do(registerFastGradients)
	if config == "" {
		config = os.Getenv("GOMLX_BACKEND")
	}
	if config == "" {
		config, _ = Default()
	}
	if config == "go" {
		config = GoConfig
	}
	name, _, _ := strings.Cut(config, ":")
	if !slices.Contains(backends.List(), name) {
		return nil, fmt.Errorf("backend: %w %q: want go, xla:cpu or xla:cuda (xla:NAME for another PJRT plugin)", ErrUnknown, config)
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("backend %q: %v", config, r)
		}
		if err != nil {
			b = nil // not an interface holding a nil backend
		}
		if err != nil && name == "xla" {
			err = pluginError(config, err)
		}
		if err == nil && name == "xla" {
			if cerr := enableCompileCache(); cerr != nil {
				count(func(s *CompileCacheStats) { s.Dir, s.Err = "", cmp.Or(s.Err, cerr) }) // compiles, uncached
			}
		}
	}()
	searchPath := os.Getenv("PJRT_PLUGIN_LIBRARY_PATH") != ""
	if searchPath {
		xla.EnableAutoInstall(false) // the plugins are where the user said: nothing to download
	}
	restore := quietStdout()
	defer restore()
	if path, ok := installedCPUPlugin(); ok && config == "xla:cpu" && !searchPath {
		// Loaded by its path, GoMLX does not know it is the CPU plugin, whose buffers it can share
		// with the host (a copy less per input and output): said explicitly.
		return xla.NewWithOptions(path+",shared_buffers", nil)
	}
	if plugin, ok := strings.CutPrefix(config, "xla:"); ok && strings.HasPrefix(plugin, "cuda") {
		xb, err := xla.NewWithOptions(plugin, pjrt.NamedValuesMap{"preallocate": false})
		if err != nil {
			return nil, err
		}
		return xb, nil
	}
	return backends.NewWithConfig(config)
}

// pluginError explains a failure to create the XLA backend config: the PJRT plugin it needs
// and how to install it. GoMLX's own message, kept as the cause, can name the CPU plugin even
// for xla:cuda, because its auto-install fetches the CPU plugin first.
func pluginError(config string, err error) error {
	if plugin, _ := strings.CutPrefix(config, "xla:"); strings.HasPrefix(plugin, "cuda") {
		if strings.Contains(err.Error(), "auto-install") {
			// GoMLX's installer fetches the CPU plugin before CUDA's, so its error names the CPU
			// plugin: say what happened instead, keeping its error as the cause.
			err = fmt.Errorf("its automatic install, which fetches the CPU plugin first, could not download: %w", err)
		}
		return fmt.Errorf("backend %s: the CUDA PJRT plugin (pjrt_c_api_cuda_plugin.so) is not installed or does not load "+
			"(GoMLX: %w).\nWith internet, GoMLX installs it itself on a CUDA machine. Offline, with JAX's CUDA plugin in a "+
			"Python environment (jax-cuda13-pjrt, jax-cuda13-plugin and NVIDIA's nvidia-* wheels), run "+
			"`source scripts/gpu-env.sh` first: it links the plugin into a folder it puts in PJRT_PLUGIN_LIBRARY_PATH and "+
			"sets LD_LIBRARY_PATH and XLA_FLAGS for the CUDA libraries. Or use --backend go", config, err)
	}
	dir, _ := PluginDir()
	return fmt.Errorf("backend %s: the CPU PJRT plugin (pjrt_c_api_cpu_plugin.so) is not installed or does not load "+
		"(GoMLX: %w).\n`sgformer install-xla` installs it into %s (from PyPI); or set PJRT_PLUGIN_LIBRARY_PATH to a "+
		"folder holding one; or use --backend go", config, err, dir)
}

// quietStdout points os.Stdout at /dev/null until the returned function is called.
func quietStdout() func() {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	saved := os.Stdout
	os.Stdout = null
	return func() {
		os.Stdout = saved
		null.Close()
	}
}
