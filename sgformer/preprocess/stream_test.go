package preprocess_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/preprocess"
)

// Write streams the same file, byte for byte, as Cached writes, for every PE mode and tuple
// order, with any number of workers; it leaves a cache that holds these graphs alone, and
// recomputes one of other options.
func TestWrite(t *testing.T) {
	gs := graphs()
	for _, tc := range []struct {
		name    string
		opt     preprocess.Options
		workers int
	}{
		{"exact", preprocess.Options{PEK: 4}, 1},
		{"reference", preprocess.Options{PEK: 16, PEMode: preprocess.AuthorsCode}, 3},
		{"concat", preprocess.Options{PEK: 2, PEMode: preprocess.Concat}, 2},
		{"3-tuples", preprocess.Options{PEK: 3, TupleK: 3}, 0},
		{"no PE", preprocess.Options{}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			want := filepath.Join(dir, "cached.cache")
			if _, _, err := preprocess.Cached(want, gs, tc.opt, 0, nil); err != nil {
				t.Fatal(err)
			}
			got := filepath.Join(dir, "written.cache")
			last := 0
			fresh, err := preprocess.Write(got, gs, tc.opt, tc.workers, func(done int) { last = done })
			if err != nil || !fresh || last != len(gs) {
				t.Fatalf("Write: fresh %v, progress %d of %d, %v", fresh, last, len(gs), err)
			}
			a, _ := os.ReadFile(want)
			b, _ := os.ReadFile(got)
			if !bytes.Equal(a, b) {
				t.Fatalf("Write's file (%d bytes) differs from Cached's (%d bytes)", len(b), len(a))
			}
			if fresh, err := preprocess.Write(got, gs, tc.opt, tc.workers, nil); fresh || err != nil {
				t.Errorf("second Write: fresh %v, %v", fresh, err)
			}
			if _, err := preprocess.Load(got, gs, tc.opt); err != nil {
				t.Errorf("Load of Write's file: %v", err)
			}
		})
	}
	// Other options: stale, recomputed. A corrupt file: reported, not overwritten.
	path := filepath.Join(t.TempDir(), "c.cache")
	if _, err := preprocess.Write(path, gs, preprocess.Options{PEK: 2}, 0, nil); err != nil {
		t.Fatal(err)
	}
	if fresh, err := preprocess.Write(path, gs, preprocess.Options{PEK: 3}, 0, nil); !fresh || err != nil {
		t.Errorf("other options: fresh %v, %v", fresh, err)
	}
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, flip(raw, len(raw)/2), 0o644)
	if _, err := preprocess.Write(path, gs, preprocess.Options{PEK: 3}, 0, nil); err == nil {
		t.Error("a corrupt cache was taken as valid or silently replaced")
	}
	// Too little memory for a chunk of graphs: refused before anything is written.
	defer memory.SetLimit(1 << 10)()
	other := filepath.Join(t.TempDir(), "d.cache")
	if _, err := preprocess.Write(other, gs, preprocess.Options{PEK: 2}, 0, nil); err == nil {
		t.Error("no memory error")
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("a refused Write left a file")
	}
}
