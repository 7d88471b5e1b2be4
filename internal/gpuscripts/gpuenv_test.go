package gpuscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// touch creates an empty file at root/rel with its parent folders.
func touch(t *testing.T, root, rel string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakePython writes an executable that prints site as its only site-packages, whatever its
// arguments, and returns its path.
func fakePython(t *testing.T, site string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho "+site+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// sourceEnv sources scripts/gpu-env.sh in a clean bash and returns the resulting environment
// (after a "--- env ---" marker), the combined output and the error.
func sourceEnv(t *testing.T, python, pjrtDir string, extra ...string) (map[string]string, string, error) {
	t.Helper()
	script := filepath.Join(repoRoot(t), "scripts", "gpu-env.sh")
	cmd := exec.Command("bash", "-c", `source "$0" && echo "--- env ---" && env`, script)
	cmd.Env = append([]string{
		"PATH=/usr/bin:/bin",
		"HOME=" + t.TempDir(),
		"SGFORMER_PYTHON=" + python,
		"SGFORMER_PJRT_DIR=" + pjrtDir,
		"LD_LIBRARY_PATH=/opt/existing",
	}, extra...)
	out, err := cmd.CombinedOutput()
	env := map[string]string{}
	if _, after, ok := strings.Cut(string(out), "--- env ---\n"); ok {
		for _, line := range strings.Split(after, "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				env[k] = v
			}
		}
	}
	return env, string(out), err
}

// fakeSite lays out a site-packages with JAX's CUDA 13 plugin and NVIDIA's CUDA 13 wheels
// (empty files at the real paths) and returns it.
func fakeSite(t *testing.T) string {
	site := filepath.Join(t.TempDir(), "lib", "python3.12", "site-packages")
	for _, rel := range []string{
		"jax_plugins/xla_cuda13/__init__.py",
		"jax_plugins/xla_cuda13/xla_cuda_plugin.so",
		"jax_cuda13_plugin/_versions.so",
		"nvidia/cu13/lib/libcudart.so.13",
		"nvidia/cu13/lib/libcublas.so.13",
		"nvidia/cu13/bin/ptxas",
		"nvidia/cu13/nvvm/libdevice/libdevice.10.bc",
		"nvidia/cudnn/lib/libcudnn.so.9",
		"nvidia/nccl/lib/libnccl.so.2",
	} {
		touch(t, site, rel)
	}
	return site
}

func TestGPUEnv(t *testing.T) {
	site := fakeSite(t)
	pjrt := filepath.Join(t.TempDir(), "pjrt")
	env, out, err := sourceEnv(t, fakePython(t, site), pjrt)
	if err != nil {
		t.Fatalf("sourcing gpu-env.sh: %v\n%s", err, out)
	}
	t.Logf("output:\n%s", out[:strings.Index(out, "--- env ---")])

	want := map[string]string{
		"PJRT_PLUGIN_LIBRARY_PATH": filepath.Join(pjrt, "lib"),
		"XLA_FLAGS":                "--xla_gpu_cuda_data_dir=" + filepath.Join(site, "nvidia/cu13"),
		"GOMLX_NO_AUTO_INSTALL":    "1",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	libs := strings.Split(env["LD_LIBRARY_PATH"], ":")
	for _, pkg := range []string{"cu13", "cudnn", "nccl"} {
		found := false
		for _, l := range libs {
			found = found || l == filepath.Join(site, "nvidia", pkg, "lib")
		}
		if !found {
			t.Errorf("LD_LIBRARY_PATH = %q lacks nvidia/%s/lib", env["LD_LIBRARY_PATH"], pkg)
		}
	}
	if libs[len(libs)-1] != "/opt/existing" {
		t.Errorf("LD_LIBRARY_PATH = %q does not keep the previous value last", env["LD_LIBRARY_PATH"])
	}
	if !strings.HasPrefix(env["PATH"], filepath.Join(site, "nvidia/cu13/bin")+":") {
		t.Errorf("PATH = %q does not start with the ptxas folder", env["PATH"])
	}
	for link, target := range map[string]string{
		filepath.Join(pjrt, "lib", "pjrt_c_api_cuda_plugin.so"): filepath.Join(site, "jax_plugins/xla_cuda13/xla_cuda_plugin.so"),
		filepath.Join(pjrt, "nvidia"):                           filepath.Join(site, "nvidia"),
	} {
		got, err := os.Readlink(link)
		if err != nil || got != target {
			t.Errorf("%s -> %q (%v), want a symlink to %q", link, got, err, target)
		}
	}

	// Sourcing again (a second run on a warm machine) replaces the links, and an XLA_FLAGS
	// that already names the CUDA data dir is kept as it is.
	env, out, err = sourceEnv(t, fakePython(t, site), pjrt, "XLA_FLAGS=--xla_gpu_cuda_data_dir=/mine")
	if err != nil {
		t.Fatalf("sourcing gpu-env.sh again: %v\n%s", err, out)
	}
	if env["XLA_FLAGS"] != "--xla_gpu_cuda_data_dir=/mine" {
		t.Errorf("XLA_FLAGS = %q, want the user's value kept", env["XLA_FLAGS"])
	}
}

// Where the wheels have no libdevice (the project's H100 machine on 2026-11-26), XLA's CUDA
// data dir is the toolkit's, and ptxas the one beside it.
func TestGPUEnvToolkit(t *testing.T) {
	site := fakeSite(t)
	for _, rel := range []string{"nvidia/cu13/nvvm", "nvidia/cu13/bin"} {
		if err := os.RemoveAll(filepath.Join(site, rel)); err != nil {
			t.Fatal(err)
		}
	}
	toolkit := t.TempDir()
	touch(t, toolkit, "nvvm/libdevice/libdevice.10.bc")
	touch(t, toolkit, "bin/ptxas")
	env, out, err := sourceEnv(t, fakePython(t, site), filepath.Join(t.TempDir(), "pjrt"), "CUDA_HOME="+toolkit)
	if err != nil {
		t.Fatalf("sourcing gpu-env.sh: %v\n%s", err, out)
	}
	if want := "--xla_gpu_cuda_data_dir=" + toolkit; env["XLA_FLAGS"] != want {
		t.Errorf("XLA_FLAGS = %q, want %q", env["XLA_FLAGS"], want)
	}
	if !strings.HasPrefix(env["PATH"], filepath.Join(toolkit, "bin")+":") {
		t.Errorf("PATH = %q does not start with the toolkit's ptxas folder", env["PATH"])
	}
}

func TestGPUEnvMissing(t *testing.T) {
	for _, tc := range []struct {
		name, remove, message string
	}{
		{"plugin", "jax_plugins/xla_cuda13/xla_cuda_plugin.so", "no CUDA PJRT plugin"},
		{"nvidia", "nvidia", "no nvidia/ folder"},
		{"libdevice", "nvidia/cu13/nvvm", "no nvvm/libdevice/libdevice.10.bc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := fakeSite(t)
			if err := os.RemoveAll(filepath.Join(site, tc.remove)); err != nil {
				t.Fatal(err)
			}
			env, out, err := sourceEnv(t, fakePython(t, site), filepath.Join(t.TempDir(), "pjrt"), "CUDA_HOME="+t.TempDir())
			if err == nil {
				t.Fatalf("sourcing succeeded without %s:\n%s", tc.remove, out)
			}
			if !strings.Contains(out, "gpu-env: "+tc.message) {
				t.Errorf("output does not say %q:\n%s", tc.message, out)
			}
			if len(env) != 0 {
				t.Errorf("the && chain went on after the failure")
			}
		})
	}
	t.Run("python", func(t *testing.T) {
		_, out, err := sourceEnv(t, "/nonexistent/python3", filepath.Join(t.TempDir(), "pjrt"))
		if err == nil || !strings.Contains(out, "SGFORMER_PYTHON") {
			t.Errorf("err = %v, output:\n%s", err, out)
		}
	})
}
