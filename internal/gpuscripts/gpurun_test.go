package gpuscripts

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// gpuRun runs the script at script (scripts/gpu-run.sh of a tree) with args under PATH path and
// returns its combined output and error.
func gpuRun(t *testing.T, script, path string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append([]string{"PATH=" + path, "HOME=" + os.Getenv("HOME")}, env...)
	for _, k := range []string{"GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS"} {
		if v := os.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// withGo is a PATH holding the go command that runs this test.
func withGo(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	return filepath.Dir(goBin) + ":/usr/bin:/bin"
}

// A call with a misspelt piece, or with more pieces than the device returns files for, fails at
// once, before any device time is spent on the others (here through `go run`; every case is in
// internal/cmd/gpurun's TestParsePieces).
func TestGPURunRejectsUnknownPiece(t *testing.T) {
	out := t.TempDir()
	script := filepath.Join(repoRoot(t), "scripts", "gpu-run.sh")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "speed:fast"}, "gpu-run: unknown piece speed:fast"},
		// 5 tarballs, 3 seeds' runs and pieces.jsonl
		{[]string{"check", "parity", "pyg", "speed:sparse", "zinc:0,1,2"}, "would leave 9 files in $OUT, and the device returns 8"},
	} {
		got, err := gpuRun(t, script, withGo(t), []string{"OUT=" + out, "SGFORMER_GPU_WORK=" + t.TempDir()}, tc.args...)
		if err == nil || !strings.Contains(got, tc.want) {
			t.Errorf("gpu-run.sh %v: %v, output %q; want an error with %q", tc.args, err, got, tc.want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("OUT holds %d entries after rejected calls, want none", len(entries))
	}
}

// On the device, without Go, the script runs the static binary that scripts/gpu-build.sh
// gzipped into build/gpu (here a copy of the script in a bare tree), and says what to do when it
// is missing.
func TestGPURunWithoutGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program")
	}
	tree := t.TempDir()
	script := filepath.Join(tree, "scripts", "gpu-run.sh")
	text, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "gpu-run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, tree, "scripts/gpu-run.sh", string(text))
	got, err := gpuRun(t, script, "/usr/bin:/bin", nil, "check")
	if err == nil || !strings.Contains(got, "build/gpu/gpurun.gz missing: run scripts/gpu-build.sh") {
		t.Errorf("without the binary: %v, output %q", err, got)
	}

	bin := filepath.Join(t.TempDir(), "gpurun")
	build := exec.Command("go", "build", "-o", bin, "./internal/cmd/gpurun")
	build.Dir = repoRoot(t)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	write(t, tree, "build/gpu/gpurun.gz", gz.String())
	got, err = gpuRun(t, script, "/usr/bin:/bin", nil, "zinc:x")
	if err == nil || !strings.Contains(got, "gpu-run: unknown piece zinc:x") {
		t.Errorf("with the binary: %v, output %q", err, got)
	}
	// The program itself then finds build/gpu without the sgformer binaries.
	got, err = gpuRun(t, script, "/usr/bin:/bin", []string{"OUT=" + t.TempDir()}, "check")
	if err == nil || !strings.Contains(got, "build/gpu/sgformer.gz missing: run scripts/gpu-build.sh here and carry build/gpu") {
		t.Errorf("without build/gpu's binaries: %v, output %q", err, got)
	}
}

// write creates root/rel holding text.
func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The dry run (SGFORMER_GPU_DRYRUN=1) of every piece on this CPU, as a device call would run
// them, collected here, then a second call that continues the seed's run from what the first
// brought back. It needs build/gpu (scripts/gpu-build.sh), takes most of an hour on 2 busy
// cores (the pure-Go backend's epochs evaluate 2,000 molecules; the benchmarks run the full
// recipe's model) and up to 12 GB of memory (speed:dense), so it runs only when asked:
// SGFORMER_GPU_DRYRUN_TEST=1, with SGFORMER_PYTHON a Python with torch for the pyg piece
// (without torch the piece is left out), e.g.
//
//	SGFORMER_GPU_DRYRUN_TEST=1 SGFORMER_PYTHON=build/venv-pyg/bin/python go test -timeout 120m -run TestGPURunDryRun ./internal/gpuscripts/
func TestGPURunDryRun(t *testing.T) {
	if os.Getenv("SGFORMER_GPU_DRYRUN_TEST") != "1" {
		t.Skip("the full dry run takes minutes: SGFORMER_GPU_DRYRUN_TEST=1 runs it")
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "build/gpu/sgformer.gz")); err != nil {
		t.Fatalf("no build/gpu: run scripts/gpu-build.sh first (%v)", err)
	}
	python := os.Getenv("SGFORMER_PYTHON")
	if python == "" {
		python = "python3"
	}
	pieces := []string{"check", "parity", "speed:sparse", "speed:dense", "pyg", "zinc:0"}
	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		t.Logf("%s has no torch (set SGFORMER_PYTHON): the pyg piece is left out", python)
		pieces = []string{"check", "parity", "speed:sparse", "speed:dense", "zinc:0"}
	}
	script := filepath.Join(root, "scripts", "gpu-run.sh")
	out, work, results := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{"OUT=" + out, "SGFORMER_GPU_WORK=" + work, "SGFORMER_GPU_RESULTS=" + results, "SGFORMER_GPU_DRYRUN=1",
		"SGFORMER_PYTHON=" + python, "GPU_CALL_BUDGET_S=7200", "ZINC_EPOCHS=1"}
	start := time.Now()
	got, err := gpuRun(t, script, withGo(t), env, pieces...)
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, got)
	}
	t.Logf("the dry run of %v took %.0f s", pieces, time.Since(start).Seconds())
	recs, err := gpuresult.ReadPieces(filepath.Join(out, "pieces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(pieces) {
		t.Fatalf("%d records of %d pieces", len(recs), len(pieces))
	}
	for i, r := range recs {
		if r.Piece != pieces[i] || r.RC != 0 || r.Error != "" || r.GPU != "none" || r.Call != recs[0].Call {
			t.Errorf("record %d: %+v", i, r)
		}
		var err error
		switch r.Piece {
		case "check":
			var c gpuresult.Check
			if err = json.Unmarshal(r.Result, &c); err == nil && (c.Backend != "go" || len(c.EpochSeconds) != 1) {
				t.Errorf("check: %+v", c)
			}
		case "parity":
			var p gpuresult.Parity
			// go against go: the same program twice
			if err = json.Unmarshal(r.Result, &p); err == nil && (!p.Pass || p.MaxRelDiff != 0 || len(p.Rows) != 6) {
				t.Errorf("parity: %+v", p)
			}
		case "speed:sparse", "speed:dense":
			var s gpuresult.Speed
			if err = json.Unmarshal(r.Result, &s); err == nil && (len(s.Epochs) != 2 || s.TrainEpoch <= 0 || s.TestPass <= 0 || s.TrainStep == nil || s.Inference == nil || s.Batch == nil) {
				t.Errorf("%s: %+v", r.Piece, s)
			}
		case "pyg":
			var p gpuresult.PyG
			if err = json.Unmarshal(r.Result, &p); err == nil && (len(p["onthefly"].Summary) != 1 || len(p["precomputed"].Summary) != 1) {
				t.Errorf("pyg: %+v", p)
			}
		case "zinc:0":
			var z gpuresult.Zinc
			if err = json.Unmarshal(r.Result, &z); err == nil && (len(z.Seeds) != 1 || z.Seeds[0] != gpuresult.ZincSeed{Seed: 0, FromEpoch: 0, ToEpoch: 1}) {
				t.Errorf("zinc: %+v", z)
			}
		}
		if err != nil {
			t.Errorf("%s: %v", r.Piece, err)
		}
	}
	back, _ := os.ReadDir(out)
	if len(back) != len(pieces)+2 {
		t.Errorf("OUT holds %d files, want a tarball per piece, one for the seed, and pieces.jsonl", len(back))
	}

	if got, err := gpuRun(t, script, withGo(t), nil, "collect", out, results); err != nil {
		t.Fatalf("collect: %v\n%s", err, got)
	}
	for _, rel := range []string{"check/result.json", "parity/result.json", "speed-sparse/bench.txt", "runs/seed-0/run.json", "zinc-0/result.json", "pieces.jsonl"} {
		if _, err := os.Stat(filepath.Join(results, rel)); err != nil {
			t.Errorf("collected: %v", err)
		}
	}

	// The next call continues seed 0 from the collected run.
	out2 := t.TempDir()
	env = append(env, "OUT="+out2, "ZINC_EPOCHS=2")
	if got, err := gpuRun(t, script, withGo(t), env, "zinc:0"); err != nil {
		t.Fatalf("second call: %v\n%s", err, got)
	}
	recs, err = gpuresult.ReadPieces(filepath.Join(out2, "pieces.jsonl"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("second call: %+v, %v", recs, err)
	}
	var z gpuresult.Zinc
	if err := json.Unmarshal(recs[0].Result, &z); err != nil || len(z.Seeds) != 1 || z.Seeds[0] != (gpuresult.ZincSeed{Seed: 0, FromEpoch: 1, ToEpoch: 2}) {
		t.Errorf("second call's zinc: %+v, %v", z, err)
	}
}
