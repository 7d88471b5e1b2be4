package gpuscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gpuRun runs scripts/gpu-run.sh with args and returns its combined output and error.
func gpuRun(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(repoRoot(t), "scripts", "gpu-run.sh")}, args...)...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// write creates root/rel holding text.
func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read returns the text of root/rel, or "missing".
func read(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if os.IsNotExist(err) {
		return "missing"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tarGz packs the folder top of root into dir/name.tar.gz, as gpu-run.sh does on the device.
func tarGz(t *testing.T, dir, name, root, top string) {
	t.Helper()
	if out, err := exec.Command("tar", "-czf", filepath.Join(dir, name+".tar.gz"), "-C", root, top).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
}

// What a device call brings back replaces a piece's folder and a seed's run, and adds to the
// record of pieces; what it does not bring back is kept.
func TestGPURunCollect(t *testing.T) {
	device, back, dest := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, device, "speed-sparse/result.json", `{"new":true}`)
	write(t, device, "runs/seed-0/metrics.jsonl", "epoch 1\nepoch 2\n")
	tarGz(t, back, "speed-sparse", device, "speed-sparse")
	tarGz(t, back, "runs-seed-0", device, "runs/seed-0")
	write(t, back, "pieces.jsonl", `{"piece":"speed:sparse"}`+"\n")

	write(t, dest, "speed-sparse/old.txt", "from an earlier call")
	write(t, dest, "runs/seed-0/checkpoint/stale", "an older checkpoint")
	write(t, dest, "runs/seed-1/metrics.jsonl", "epoch 1\n")
	write(t, dest, "pieces.jsonl", `{"piece":"check"}`+"\n")

	if out, err := gpuRun(t, nil, "collect", back, dest); err != nil {
		t.Fatalf("collect: %v\n%s", err, out)
	}
	for rel, want := range map[string]string{
		"speed-sparse/result.json":     `{"new":true}`,
		"speed-sparse/old.txt":         "missing",
		"runs/seed-0/metrics.jsonl":    "epoch 1\nepoch 2\n",
		"runs/seed-0/checkpoint/stale": "missing",
		"runs/seed-1/metrics.jsonl":    "epoch 1\n",
		"pieces.jsonl":                 `{"piece":"check"}` + "\n" + `{"piece":"speed:sparse"}` + "\n",
	} {
		if got := read(t, dest, rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
}

// A call with a misspelt piece, or with more pieces than the device returns files for, fails at
// once, before any device time is spent on the others.
func TestGPURunRejectsUnknownPiece(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "speed:fast"}, "gpu-run: unknown piece speed:fast"},
		{[]string{"zinc:0,x"}, "gpu-run: unknown piece zinc:0,x"},
		{[]string{"zinc:"}, "gpu-run: unknown piece zinc:"},
		{[]string{"check", "summary"}, "gpu-run: unknown piece summary"},
		// 5 tarballs, 3 seeds' runs and pieces.jsonl
		{[]string{"check", "parity", "pyg", "speed:sparse", "zinc:0,1,2"}, "would leave 9 files in $OUT, and the device returns 8"},
	} {
		got, err := gpuRun(t, []string{"OUT=" + out, "SGFORMER_GPU_WORK=" + t.TempDir()}, tc.args...)
		if err == nil || !strings.Contains(got, tc.want) {
			t.Errorf("gpu-run.sh %v: %v, output %q; want an error with %q", tc.args, err, got, tc.want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("OUT holds %d entries after rejected calls, want none", len(entries))
	}
}
