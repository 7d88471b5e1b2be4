package data_test

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
)

// The real ZINC-12k export: the counts and statistics of shared/data/README.md.
func TestZINCReal(t *testing.T) {
	ds, err := data.ZINC(shareddata.Dir(t, "zinc12k"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 12000 || len(ds.Split.Train) != 10000 || len(ds.Split.Valid) != 1000 || len(ds.Split.Test) != 1000 {
		t.Fatalf("%d graphs, split %d/%d/%d; want 12000, 10000/1000/1000", len(ds.Graphs), len(ds.Split.Train), len(ds.Split.Valid), len(ds.Split.Test))
	}
	if ds.Split.Train[0] != 0 || ds.Split.Valid[0] != 10000 || ds.Split.Test[999] != 11999 {
		t.Errorf("split not in PyG's order: train[0]=%d valid[0]=%d test[999]=%d", ds.Split.Train[0], ds.Split.Valid[0], ds.Split.Test[999])
	}
	nodes, edges, lo, hi := 0, 0, 1<<30, 0
	for _, g := range ds.Graphs {
		nodes += g.N()
		edges += g.NumEdges()
		lo, hi = min(lo, g.N()), max(hi, g.N())
	}
	if nodes != 277864 || edges != 298985 || lo != 9 || hi != 37 {
		t.Errorf("%d nodes, %d edges, %d..%d nodes per graph; want 277864, 298985, 9..37 (23.16 nodes and 24.9 edges per graph)", nodes, edges, lo, hi)
	}
	var sum, sq float64
	for _, i := range ds.Split.Train {
		sum += ds.Labels[i]
		sq += ds.Labels[i] * ds.Labels[i]
	}
	mean := sum / 10000
	std := math.Sqrt(sq/10000 - mean*mean)
	if math.Abs(mean-0.0153) > 5e-4 || math.Abs(std-2.011) > 5e-3 {
		t.Errorf("train targets mean %.4f std %.3f; want 0.0153, 2.011", mean, std)
	}
	// Graph 0, first lines of the export: atoms 0 0 1 ..., bonds (0,1) single, (1,2) single,
	// (2,3) double; label 0.8350355625152588.
	g := ds.Graphs[0]
	if g.NodeFeatures.Ints[0] != 0 || g.NodeFeatures.Ints[2] != 0 || g.Edges()[2] != [2]int{2, 3} || g.EdgeFeatures.Ints[2] != 2 || ds.Labels[0] != 0.8350355625152588 {
		t.Errorf("graph 0: atoms %v edges %v bonds %v label %v", g.NodeFeatures.Ints[:3], g.Edges()[:3], g.EdgeFeatures.Ints[:3], ds.Labels[0])
	}
}

// writeZINC writes a two-graph export, with the given file replaced, into a temporary
// directory; nodes are gzip-compressed to exercise both paths.
func writeZINC(t *testing.T, replace map[string]string) string {
	dir := t.TempDir()
	files := map[string]string{
		"ZINC_Nodes.txt":   "0 0 6\n0 1 6\n0 2 7\n1 0 6\n1 1 8\n",
		"ZINC_Edges.txt":   "0 0 1 1\n0 1 2 2\n1 0 1 1\n",
		"ZINC_Labels.txt":  "0 1.5\n1 -0.25\n",
		"ZINC_splits.json": `[{"test": [1], "model_selection": [{"train": [0], "validation": []}]}]`,
	}
	for k, v := range replace {
		files[k] = v
	}
	for name, content := range files {
		if name == "ZINC_Nodes.txt" {
			writeGzip(t, filepath.Join(dir, name+".gz"), content)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeGzip writes content gzip-compressed to path.
func writeGzip(t *testing.T, path, content string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(content))
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestZINCSmall(t *testing.T) {
	ds, err := data.ZINC(writeZINC(t, map[string]string{"ZINC_Nodes.txt": "0 2 7\n0 0 6\n1 1 8\n0 1 6\n1 0 6\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 2 || ds.Graphs[0].N() != 3 || ds.Graphs[1].NumEdges() != 1 || ds.Labels[1] != -0.25 || ds.Graphs[0].EdgeFeatures.Ints[1] != 2 ||
		ds.Graphs[0].NodeFeatures.Ints[2] != 7 || ds.Graphs[1].NodeFeatures.Ints[1] != 8 {
		t.Fatalf("small export read as %+v", ds)
	}
}

func TestZINCMalformed(t *testing.T) {
	tests := []struct {
		file, content, want string
	}{
		{"ZINC_Nodes.txt", "0 0 6\n0 1\n", "ZINC_Nodes.txt.gz:2: want 3 fields (graph node atom_type), got 2"},
		{"ZINC_Nodes.txt", "0 0 6\n0 2 6\n1 0 6\n", "ZINC_Nodes.txt.gz: graph 0: node 1 missing"},
		{"ZINC_Nodes.txt", "0 0 6\n2 0 6\n0 1 6\n", "ZINC_Nodes.txt.gz: graph 1 has no nodes"},
		{"ZINC_Nodes.txt", "16000000 0 6\n", "ZINC_Nodes.txt.gz:1: graph 16000000 node 0: ids must be non-negative and below the number of node lines (1)"},
		{"ZINC_Nodes.txt", "0 0 6\n0 60000 6\n", "ZINC_Nodes.txt.gz:2: graph 0 node 60000: ids must be non-negative and below the number of node lines (2)"},
		{"ZINC_Nodes.txt", "0 0 6\n1 0 6\n0 0 7\n", "ZINC_Nodes.txt.gz:3: graph 0: node 0 listed again (first on line 1)"},
		{"ZINC_Nodes.txt", "0 -1 6\n", "ZINC_Nodes.txt.gz:1: graph 0 node -1: ids must be non-negative"},
		{"ZINC_Nodes.txt", "0 0 x\n", `ZINC_Nodes.txt.gz:1: field 3: "x" is not an integer`},
		{"ZINC_Nodes.txt", "0 0 30\n", "ZINC_Nodes.txt.gz:1: atom type 30 outside [0, 28)"},
		{"ZINC_Edges.txt", "0 0 1 1\n0 1 1 1\n", "ZINC_Edges.txt:2: graph 0: self loop on node 1"},
		{"ZINC_Edges.txt", "0 0 1 1\n0 1 0 2\n", "ZINC_Edges.txt:2: graph 0: duplicates edge 0 (0,1)"},
		{"ZINC_Edges.txt", "0 0 5 1\n", "ZINC_Edges.txt:1: graph 0: node id out of range [0,3) (ZINC_Nodes.txt.gz lists 3 nodes for it)"},
		{"ZINC_Edges.txt", "7 0 1 1\n", "ZINC_Edges.txt:1: graph 7 has no nodes"},
		{"ZINC_Edges.txt", "0 0 1 9\n", "ZINC_Edges.txt:1: bond type 9 outside 1..3"},
		{"ZINC_Labels.txt", "0 1.5\n", "ZINC_Labels.txt: no label for graph 1"},
		{"ZINC_Labels.txt", "0 1.5\n1 nan\n", `ZINC_Labels.txt:2: target "nan" is not a finite number`},
		{"ZINC_Labels.txt", "0 1.5\n0 2\n1 0\n", "ZINC_Labels.txt:2: second label for graph 0"},
		{"ZINC_splits.json", `{"train": [0]}`, "ZINC_splits.json: json: cannot unmarshal object"},
		{"ZINC_splits.json", `[{"test": [1]}]`, "ZINC_splits.json: want [{"},
		{"ZINC_splits.json", `[{"test": [1], "model_selection": [{"train": [0, 1], "validation": []}]}]`, "ZINC_splits.json: graph 1 in both train and test"},
		{"ZINC_splits.json", `[{"test": [2], "model_selection": [{"train": [0], "validation": []}]}]`, "ZINC_splits.json: test graph 2 outside [0, 2), the graphs of ZINC_Nodes.txt.gz"},
	}
	for _, tc := range tests {
		_, err := data.ZINC(writeZINC(t, map[string]string{tc.file: tc.content}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %q: error %v, want it to contain %q", tc.file, tc.content, err, tc.want)
		}
	}
	dir := writeZINC(t, nil)
	os.Remove(filepath.Join(dir, "ZINC_Labels.txt"))
	if _, err := data.ZINC(dir); err == nil || !strings.Contains(err.Error(), "ZINC_Labels.txt or") {
		t.Errorf("missing labels: error %v", err)
	}
}
