package backend

import (
	"strings"
	"testing"
)

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
	if err != nil && (strings.Contains(err.Error(), "cpu_plugin") || strings.Contains(err.Error(), "<cpu|cuda>")) {
		t.Errorf("xla:cuda error speaks of the CPU plugin: %v", err)
	}
	_, err = New("xla:cpu")
	if err == nil || !strings.Contains(err.Error(), "CPU PJRT plugin (pjrt_c_api_cpu_plugin.so)") || strings.Contains(err.Error(), "gpu-env") {
		t.Errorf("xla:cpu without a plugin: %v", err)
	}
}
