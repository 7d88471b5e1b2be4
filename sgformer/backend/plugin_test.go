package backend

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var loadedPlugins = regexp.MustCompile(`available plugins found \[[^\]]*\]`)

// Without a plugin, xla:cuda names the CUDA plugin and how to set it up, not the CPU one.
func TestMissingPluginNamed(t *testing.T) {
	t.Setenv("GOMLX_NO_AUTO_INSTALL", "1")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", t.TempDir())
	_, err := New("xla:cuda")
	for _, want := range []string{"CUDA PJRT plugin (pjrt_c_api_cuda_plugin.so)", "source scripts/gpu-env.sh", "PJRT_PLUGIN_LIBRARY_PATH", "--backend go"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("xla:cuda without a plugin: %v; want %q", err, want)
		}
	}
	// GoMLX lists the plugins already loaded (the CPU one, after another test used it): that
	// list may name it; nothing else may.
	if msg := loadedPlugins.ReplaceAllString(fmt.Sprint(err), ""); err != nil && (strings.Contains(msg, "cpu_plugin") || strings.Contains(msg, "<cpu|cuda>")) {
		t.Errorf("xla:cuda error speaks of the CPU plugin: %v", err)
	}
	_, err = New("xla:cpu")
	if err == nil || !strings.Contains(err.Error(), "CPU PJRT plugin (pjrt_c_api_cpu_plugin.so)") || strings.Contains(err.Error(), "gpu-env") {
		t.Errorf("xla:cpu without a plugin: %v", err)
	}
}
