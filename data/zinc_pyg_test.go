package data

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// sameGraph reports how graph got differs from want (atoms, bonds with their types in any
// order), or "".
func sameGraph(got, want *graph.Graph) string {
	bonds := func(g *graph.Graph) []string {
		var s []string
		for i, e := range g.Edges() {
			s = append(s, fmt.Sprint(min(e[0], e[1]), max(e[0], e[1]), g.EdgeFeatures.Ints[i]))
		}
		slices.Sort(s)
		return s
	}
	switch {
	case !slices.Equal(got.NodeFeatures.Ints, want.NodeFeatures.Ints):
		return "atoms differ"
	case !slices.Equal(bonds(got), bonds(want)):
		return fmt.Sprintf("bonds %v, want %v", bonds(got), bonds(want))
	}
	return ""
}

// PyG's processed files in shared/data (written by PyG itself) hold, graph by graph, the
// validation and test molecules of the text export.
func TestZINCProcessedReal(t *testing.T) {
	dir := shareddata.Dir(t, "zinc12k")
	text, err := ZINC(dir)
	if err != nil {
		t.Fatal(err)
	}
	for split, first := range map[string]int{"val": 10000, "test": 11000} {
		mols, err := readProcessed(filepath.Join(dir, "pyg_processed", split+".pt"))
		if err != nil {
			t.Fatal(err)
		}
		ds, err := zincDataset("zinc12k", [][]molecule{mols})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds.Graphs) != 1000 {
			t.Fatalf("%s: %d graphs, want 1000", split, len(ds.Graphs))
		}
		for i, g := range ds.Graphs {
			if diff := sameGraph(g, text.Graphs[first+i]); diff != "" || ds.Labels[i] != text.Labels[first+i] {
				t.Fatalf("%s graph %d: %s; label %v, want %v", split, i, diff, ds.Labels[i], text.Labels[first+i])
			}
		}
	}
}

// A PyG dataset folder (subset/processed/) is found and read; shared/data has no train.pt, so
// the validation file stands in for it.
func TestZINCProcessedLayout(t *testing.T) {
	shared := filepath.Join(shareddata.Dir(t, "zinc12k"), "pyg_processed")
	dir := t.TempDir()
	processed := filepath.Join(dir, "subset", "processed")
	if err := os.MkdirAll(processed, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, from := range map[string]string{"train.pt": "val.pt", "val.pt": "val.pt", "test.pt": "test.pt"} {
		if err := os.Symlink(filepath.Join(shared, from), filepath.Join(processed, file)); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := ZINC(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 3000 || len(ds.Split.Train) != 1000 || ds.Split.Valid[0] != 1000 || ds.Split.Test[999] != 2999 {
		t.Fatalf("%d graphs, split %d/%d/%d", len(ds.Graphs), len(ds.Split.Train), len(ds.Split.Valid), len(ds.Split.Test))
	}
	if diff := sameGraph(ds.Graphs[0], ds.Graphs[1000]); diff != "" || ds.Labels[0] != ds.Labels[1000] {
		t.Errorf("train graph 0 (val.pt) and validation graph 0 differ: %s", diff)
	}
}

// The miniature canonical download of testdata/zinc-pyg (pickles written by PyTorch from
// export molecules, see make.py) reads as those molecules, in the indices' order.
func TestZINCPickles(t *testing.T) {
	text, err := ZINC(shareddata.Dir(t, "zinc12k"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ZINC("testdata/zinc-pyg")
	if err != nil {
		t.Fatal(err)
	}
	want := []int{5, 0, 3, 10002, 10001, 11000, 11002}
	if len(ds.Graphs) != len(want) || !slices.Equal(ds.Split.Train, []int{0, 1, 2}) || !slices.Equal(ds.Split.Valid, []int{3, 4}) || !slices.Equal(ds.Split.Test, []int{5, 6}) {
		t.Fatalf("%d graphs, split %v; want %d graphs, split 0..2, 3..4, 5..6", len(ds.Graphs), ds.Split, len(want))
	}
	for i, w := range want {
		if diff := sameGraph(ds.Graphs[i], text.Graphs[w]); diff != "" || ds.Labels[i] != text.Labels[w] {
			t.Errorf("graph %d (export graph %d): %s; label %v, want %v", i, w, diff, ds.Labels[i], text.Labels[w])
		}
	}
	// Written back as the text export, it reads the same.
	out := t.TempDir()
	if err := writeZINC(ds, out); err != nil {
		t.Fatal(err)
	}
	back, err := ZINC(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Digest() != ds.Digest() {
		t.Error("the text export written from the pickles reads back differently")
	}
}

// ZINC-full is every molecule of the pickles, in their order (the miniature holds export graphs
// 0..5, 10000..10003 and 11000..11002), read from a PyG dataset folder or its raw/.
func TestZINCFull(t *testing.T) {
	text, err := ZINC(shareddata.Dir(t, "zinc12k"))
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, r := range [][2]int{{0, 6}, {10000, 10004}, {11000, 11003}} {
		for g := r[0]; g < r[1]; g++ {
			want = append(want, g)
		}
	}
	for _, dir := range []string{"testdata/zinc-pyg", "testdata/zinc-pyg/raw"} {
		ds, err := ZINCFull(dir)
		if err != nil {
			t.Fatal(err)
		}
		if ds.Name != "zinc-full" || len(ds.Graphs) != len(want) || len(ds.Split.Train) != 6 || len(ds.Split.Valid) != 4 || len(ds.Split.Test) != 3 {
			t.Fatalf("%s: %s, %d graphs, split %v", dir, ds.Name, len(ds.Graphs), ds.Split)
		}
		for i, w := range want {
			if diff := sameGraph(ds.Graphs[i], text.Graphs[w]); diff != "" || ds.Labels[i] != text.Labels[w] {
				t.Errorf("graph %d (export graph %d): %s; label %v, want %v", i, w, diff, ds.Labels[i], text.Labels[w])
			}
		}
	}
}

func TestZINCPicklesMalformed(t *testing.T) {
	raw, err := os.ReadFile("testdata/zinc-pyg/raw/train.pickle")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ file, content, want string }{
		{"train.index", "5,x,3\n", `train.index: entry 2: "x" is not a molecule number`},
		{"train.index", "5,6\n", "train.index: molecule 6, but"},
		{"val.pickle", "", "val.pickle: truncated pickle"},
		{"test.pickle", string(raw[:len(raw)/2]), "test.pickle: truncated pickle"},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		for _, split := range pygSplits {
			for _, ext := range []string{".pickle", ".index"} {
				b, err := os.ReadFile("testdata/zinc-pyg/raw/" + split + ext)
				if err != nil {
					t.Fatal(err)
				}
				if split+ext == tc.file {
					b = []byte(tc.content)
				}
				if err := os.WriteFile(filepath.Join(dir, split+ext), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := ZINC(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %.20q: error %v, want it to contain %q", tc.file, tc.content, err, tc.want)
		}
	}
}
