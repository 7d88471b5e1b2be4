package main

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
)

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

// What a device call brings back replaces a piece's folder and a seed's run, and adds to the
// record of pieces, whose records are written afresh; what it does not bring back is kept. The
// tarballs are GNU tar's here, tarGz's in TestTarGz.
func TestCollect(t *testing.T) {
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("no tar")
	}
	device, back, dest := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, device, "speed-sparse/result.json", `{"new":true}`)
	write(t, device, "speed-sparse/xla-dump/module_0001.Trainer_0.sm_9.0a_gpu_after_optimizations.txt",
		"HloModule Trainer_0\n\nENTRY %main (a: f32[2]) -> f32[2] {\n  %a = f32[2]{0} parameter(0)\n  ROOT %n = f32[2]{0} negate(%a)\n}\n")
	write(t, device, "speed-sparse/xla-dump/module_0001.Trainer_0.thunk_sequence_after_thunk_passes.txt",
		"000: kCustomKernel [source | sink] loop_negate_fusion grid: [1, 1, 1]\n")
	write(t, device, "runs/seed-0/metrics.jsonl", "epoch 1\nepoch 2\n")
	for name, top := range map[string]string{"speed-sparse": "speed-sparse", "runs-seed-0": "runs/seed-0"} {
		if out, err := exec.Command("tar", "-czf", filepath.Join(back, name+".tar.gz"), "-C", device, top).CombinedOutput(); err != nil {
			t.Fatalf("tar: %v\n%s", err, out)
		}
	}
	newPiece := `{"piece":"speed:sparse","call":"2026-12-02T10:00:00Z","gpu":"NVIDIA H200","build":"bbbbbbb","rc":1,"seconds":9,"error":"failed","result":null}` + "\n"
	write(t, back, "pieces.jsonl", newPiece)

	write(t, dest, "speed-sparse/old.txt", "from an earlier call")
	write(t, dest, "runs/seed-0/checkpoint/stale", "an older checkpoint")
	write(t, dest, "runs/seed-1/metrics.jsonl", "epoch 1\n")
	oldPiece := `{"piece":"check","call":"2026-12-01T10:00:00Z","gpu":"NVIDIA H200","build":"aaaaaaa","rc":0,"seconds":60,"result":null}` + "\n"
	write(t, dest, "pieces.jsonl", oldPiece)

	var out strings.Builder
	dumps := filepath.Join(t.TempDir(), "dumps")
	if err := collect(back, dest, dumps, &out); err != nil {
		t.Fatalf("collect: %v\n%s", err, out.String())
	}
	for rel, want := range map[string]string{
		"speed-sparse/result.json":     `{"new":true}`,
		"speed-sparse/old.txt":         "missing",
		"runs/seed-0/metrics.jsonl":    "epoch 1\nepoch 2\n",
		"runs/seed-0/checkpoint/stale": "missing",
		"runs/seed-1/metrics.jsonl":    "epoch 1\n",
		"pieces.jsonl":                 oldPiece + newPiece,
		"speed-sparse/xla-dump/module_0001.Trainer_0.thunk_sequence_after_thunk_passes.txt": "missing",
		"speed-sparse/xla-summary.json": `{
  "programs": [
    {
      "module": "Trainer_0",
      "parameters": 1,
      "parameter_bytes": 8,
      "thunks": {
        "kCustomKernel": 1
      },
      "kernels": {
        "loop_negate_fusion": 1
      },
      "bytes_touched": 16
    }
  ]
}
`,
	} {
		if got := readFile(t, filepath.Join(dest, rel)); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	if recs, err := record.Read(filepath.Join(dest, gpuresult.RecordsFile)); err != nil || len(recs.Contexts()) != 2 || len(recs.Parts()) != 2 {
		t.Errorf("the records of both calls' pieces: %+v, %v", recs, err)
	}
	if got := readFile(t, filepath.Join(dumps, "speed-sparse/module_0001.Trainer_0.thunk_sequence_after_thunk_passes.txt")); !strings.HasPrefix(got, "000: kCustomKernel") {
		t.Errorf("the dump moved out of the results: %q", got)
	}
	if !strings.Contains(out.String(), filepath.Join(dest, "runs/seed-0")) {
		t.Errorf("collect did not say where seed 0 went:\n%s", out.String())
	}

	if err := collect(filepath.Join(back, "nothing"), dest, dumps, &out); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("collect of a missing folder: %v", err)
	}
}

// tarGz packs a folder that GNU tar reads back, and untarGz unpacks it as it was, executable
// bits included.
func TestTarGz(t *testing.T) {
	root, back := t.TempDir(), t.TempDir()
	write(t, root, "zinc-0/result.json", `{"seeds":[]}`)
	write(t, root, "zinc-0/logs/seed0.log", "epoch 1\n")
	write(t, root, "zinc-0/empty", "")
	if err := os.Chmod(filepath.Join(root, "zinc-0/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "zinc-0/run/none"), 0o755); err != nil {
		t.Fatal(err)
	}
	tgz := filepath.Join(back, "zinc-0.tar.gz")
	if err := tarGz(tgz, root, "zinc-0"); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("tar"); err == nil {
		list, err := exec.Command("tar", "-tzf", tgz).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"zinc-0/result.json", "zinc-0/logs/seed0.log", "zinc-0/run/none/"} {
			if !strings.Contains(string(list), want+"\n") {
				t.Errorf("tar -t lists no %s:\n%s", want, list)
			}
		}
	}
	dest := t.TempDir()
	if err := untarGz(tgz, dest, "zinc-0"); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"zinc-0/result.json": `{"seeds":[]}`, "zinc-0/logs/seed0.log": "epoch 1\n", "zinc-0/empty": ""} {
		if got := readFile(t, filepath.Join(dest, rel)); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	if st, err := os.Stat(filepath.Join(dest, "zinc-0/empty")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("zinc-0/empty: %v, %v; want mode 0755", st.Mode(), err)
	}
	if st, err := os.Stat(filepath.Join(dest, "zinc-0/run/none")); err != nil || !st.IsDir() {
		t.Errorf("the empty folder did not come back: %v", err)
	}
}

// A tarball cannot write outside the folder its name says, nor make links.
func TestUntarGzRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    tar.Header
		want string
	}{
		{"outside", tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Mode: 0o644}, "outside check/"},
		{"other folder", tar.Header{Name: "parity/result.json", Typeflag: tar.TypeReg, Mode: 0o644}, "outside check/"},
		{"prefix", tar.Header{Name: "check-2/x", Typeflag: tar.TypeReg, Mode: 0o644}, "outside check/"},
		{"link", tar.Header{Name: "check/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, "neither a folder nor a file"},
	} {
		src := filepath.Join(t.TempDir(), "check.tar.gz")
		f, err := os.Create(src)
		if err != nil {
			t.Fatal(err)
		}
		zw := gzip.NewWriter(f)
		tw := tar.NewWriter(zw)
		if err := tw.WriteHeader(&tc.h); err != nil {
			t.Fatal(err)
		}
		tw.Close()
		zw.Close()
		f.Close()
		dest := t.TempDir()
		if err := untarGz(src, filepath.Join(dest, "d"), "check"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dest, "evil")); err == nil {
			t.Errorf("%s: wrote outside", tc.name)
		}
	}
}
