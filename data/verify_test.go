package data_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
)

// copyDataset copies the shared dataset folder into a temporary directory, each file
// decompressed (so that a test can cut it at a line boundary) except those in keepGzip.
func copyDataset(t *testing.T, folder string) string {
	t.Helper()
	src := shareddata.Dir(t, folder)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if name, ok := strings.CutSuffix(rel, ".gz"); ok {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				return err
			}
			if raw, err = io.ReadAll(zr); err != nil {
				return err
			}
			rel = name
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// cutLines keeps the first fraction of the lines of path: a file truncated at a line boundary.
func cutLines(t *testing.T, path string, fraction float64) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	keep := strings.Join(lines[:int(float64(len(lines))*fraction)], "")
	if err := os.WriteFile(path, []byte(keep), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The user's report: ZINC-12k with its bond file cut in half at a line boundary was read as
// 12,000 graphs, half of them without bonds. Load says the file looks truncated; with
// NoVerify it reads what is there.
func TestLoadTruncatedZINC(t *testing.T) {
	dir := copyDataset(t, "zinc12k")
	os.RemoveAll(filepath.Join(dir, "pyg_processed"))
	cutLines(t, filepath.Join(dir, "ZINC_Edges.txt"), 0.5)
	_, err := data.Load("zinc12k", dir)
	for _, want := range []string{"zinc12k (" + dir + ")", "..11999 (the last ", "have nodes but no edges", "looks truncated", "--no-verify"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load of a truncated copy: error %v, want it to contain %q", err, want)
		}
	}
	ds, err := data.LoadWith("zinc12k", dir, data.LoadOptions{NoVerify: true})
	if err != nil || len(ds.Graphs) != 12000 {
		t.Errorf("with NoVerify: %v", err)
	}
}

// A split file cut at a line boundary leaves graphs in no part of the split; a changed label
// changes the content digest. Both are refused by Load, and accepted with NoVerify.
func TestLoadModifiedOGB(t *testing.T) {
	dir := copyDataset(t, "ogbg_molesol")
	cutLines(t, filepath.Join(dir, "split", "scaffold", "train.csv"), 0.5)
	_, err := data.Load("ogbg-molesol", dir)
	for _, want := range []string{"ogbg-molesol (" + dir + ")", "451 graphs are in no part of the split", "looks truncated", "--no-verify"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load with a truncated split: error %v, want it to contain %q", err, want)
		}
	}
	if _, err := data.LoadWith("ogbg-molesol", dir, data.LoadOptions{NoVerify: true}); err != nil {
		t.Errorf("with NoVerify: %v", err)
	}

	dir = copyDataset(t, "ogbg_molesol")
	path := filepath.Join(dir, "raw", "graph-label.csv")
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, []byte("-1.5"+string(raw[strings.IndexByte(string(raw), '\n'):])), 0o644)
	_, err = data.Load("ogbg-molesol", dir)
	for _, want := range []string{"this copy of ogbg-molesol (" + dir + ") differs from the published dataset (content digest ", ", want c4c282aa", "pass --no-verify (data.LoadOptions.NoVerify) to use modified data"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load with a changed label: error %v, want it to contain %q", err, want)
		}
	}
	ds, err := data.LoadWith("ogbg-molesol", dir, data.LoadOptions{NoVerify: true})
	if err != nil || ds.Labels[0] != -1.5 {
		t.Errorf("with NoVerify: %v", err)
	}
}

// Every known dataset's pinned content digest is that of the shared copy, which Load accepts.
// ZINC-full, Peptides-struct and Alchemy-12k, of which there is no copy, are checked by their
// published split sizes instead.
func TestPinnedDigests(t *testing.T) {
	bySizes := map[string][3]int{"zinc-full": {220011, 24445, 5000}, "peptides-struct": {10873, 2331, 2331}, "alchemy12k": {10000, 1000, 1000}}
	for _, s := range data.Sources {
		t.Run(s.Name, func(t *testing.T) {
			if sizes, ok := bySizes[s.Name]; ok {
				if s.Digest != "" || s.Sizes != sizes {
					t.Fatalf("%s: digest %q, sizes %v, want %v", s.Name, s.Digest, s.Sizes, sizes)
				}
				return
			}
			if s.Digest == "" {
				t.Fatal("no pinned content digest")
			}
			ds, err := data.LoadWith(s.Name, shareddata.Dir(t, s.Folder), data.LoadOptions{NoVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := ds.Digest(); got != s.Digest {
				t.Errorf("content digest %s, pinned %s", got, s.Digest)
			}
			if _, err := data.Load(s.Name, shareddata.Dir(t, s.Folder)); err != nil {
				t.Errorf("Load of the shared copy: %v", err)
			}
		})
	}
}

// BenchmarkDigest measures the content digest that Load computes on every load, on the largest
// dataset (ogbg-molhiv, 41,127 graphs).
func BenchmarkDigest(b *testing.B) {
	ds, err := data.LoadWith("ogbg-molhiv", shareddata.Dir(b, "ogbg_molhiv"), data.LoadOptions{NoVerify: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		ds.Digest()
	}
}
