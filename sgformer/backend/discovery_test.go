package backend_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/xlatest"
	"github.com/sgformer/sgformer/sgformer/backend"
)

// Without a plugin, the default is the pure-Go backend, saying what is missing and how to
// install it; with the CPU plugin in the plugin folder, or in a folder of
// $PJRT_PLUGIN_LIBRARY_PATH, it is xla:cpu.
func TestDefault(t *testing.T) {
	root := t.TempDir()
	t.Setenv("SGFORMER_PJRT_DIR", root)
	dir := filepath.Join(root, "lib")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", "")
	config, why := backend.Default()
	if config != "go" || !strings.Contains(why, "sgformer install-xla") || !strings.Contains(why, dir) {
		t.Errorf("no plugin: %q, %q", config, why)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, backend.CPUPluginFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", "/nonexistent:"+other)
	if config, why := backend.Default(); config != "xla:cpu" || why != "" {
		t.Errorf("plugin in PJRT_PLUGIN_LIBRARY_PATH: %q, %q", config, why)
	}
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", "")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, backend.CPUPluginFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if config, why := backend.Default(); config != "xla:cpu" || why != "" {
		t.Errorf("plugin in the plugin folder: %q, %q", config, why)
	}
	// A file that is not a plugin is an error naming the way out, not a crash.
	if _, err := backend.New("xla:cpu"); err == nil || !strings.Contains(err.Error(), "sgformer install-xla") {
		t.Errorf("xla:cpu with an empty plugin file: %v", err)
	}
}

// Kind and Describe name the backends as New's configurations do, the CPU plugin by its name
// rather than its path.
func TestKind(t *testing.T) {
	b, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	if k := backend.Kind(b); k != "go" {
		t.Errorf("Kind(go) = %q", k)
	}
	x := xlatest.CPU(t)
	if k := backend.Kind(x); k != "xla:cpu" {
		t.Errorf("Kind(xla:cpu) = %q (%s)", k, x.Description())
	}
	if d := backend.Describe(x); !strings.HasPrefix(d, "xla:cpu - ") {
		t.Errorf("Describe(xla:cpu) = %q", d)
	}
}
