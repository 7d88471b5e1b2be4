package data_test

import (
	"bufio"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
)

// The real OGB downloads: graph and split counts of shared/data/README.md, node and edge
// totals (the sums of raw/num-node-list and raw/num-edge-list, computed with zcat | awk), and
// every label against the independent copy in mapping/mol.csv.gz.
func TestOGBReal(t *testing.T) {
	tests := []struct {
		name, dir                             string
		graphs, nodes, edges, minN, maxN      int
		train, valid, test, positives, labels int
	}{
		{"ogbg-molesol", "ogbg_molesol", 1128, 14991, 15428, 1, 55, 902, 113, 113, -1, 1128},
		{"ogbg-molbace", "ogbg_molbace", 1513, 51577, 55768, 10, 97, 1210, 151, 152, 691, 1513},
		{"ogbg-molhiv", "ogbg_molhiv", 41127, 1049163, 1129688, 2, 222, 32901, 4113, 4113, 1443, 41127},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := shareddata.Dir(t, tc.dir)
			ds, err := data.OGB(tc.name, dir)
			if err != nil {
				t.Fatal(err)
			}
			nodes, edges, lo, hi := 0, 0, 1<<30, 0
			for _, g := range ds.Graphs {
				nodes += g.N()
				edges += g.NumEdges()
				lo, hi = min(lo, g.N()), max(hi, g.N())
			}
			if len(ds.Graphs) != tc.graphs || nodes != tc.nodes || edges != tc.edges || lo != tc.minN || hi != tc.maxN {
				t.Errorf("%d graphs, %d nodes, %d edges, %d..%d nodes per graph; want %d, %d, %d, %d..%d",
					len(ds.Graphs), nodes, edges, lo, hi, tc.graphs, tc.nodes, tc.edges, tc.minN, tc.maxN)
			}
			if len(ds.Split.Train) != tc.train || len(ds.Split.Valid) != tc.valid || len(ds.Split.Test) != tc.test {
				t.Errorf("split %d/%d/%d, want %d/%d/%d", len(ds.Split.Train), len(ds.Split.Valid), len(ds.Split.Test), tc.train, tc.valid, tc.test)
			}
			if names := map[string]string{"ogbg-molesol": "measured log solubility in mols per litre", "ogbg-molbace": "Class", "ogbg-molhiv": "HIV_active"}; !slices.Equal(ds.LabelNames, []string{names[tc.name]}) {
				t.Errorf("task names %q, want those of mapping/mol.csv.gz", ds.LabelNames)
			}
			if ds.Tasks != 1 || len(ds.Labels) != tc.labels || !slices.Equal(ds.NodeVocab, data.AtomFeatureDims) || !slices.Equal(ds.EdgeVocab, data.BondFeatureDims) {
				t.Errorf("%d tasks, %d labels, vocabularies %v %v", ds.Tasks, len(ds.Labels), ds.NodeVocab, ds.EdgeVocab)
			}
			mapping := readMappingLabels(t, filepath.Join(dir, "mapping", "mol.csv.gz"))
			positives := 0
			for i, y := range ds.Labels {
				if math.Abs(y-mapping[i]) > 1e-12 {
					t.Fatalf("graph %d: label %v, mapping/mol.csv.gz says %v", i, y, mapping[i])
				}
				if y == 1 {
					positives++
				}
			}
			if tc.positives >= 0 && positives != tc.positives {
				t.Errorf("%d positive labels, want %d", positives, tc.positives)
			}
		})
	}
}

// readMappingLabels reads the first column of OGB's mapping/mol.csv.gz (after its header).
func readMappingLabels(t *testing.T, path string) []float64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	sc := bufio.NewScanner(zr)
	sc.Scan() // header
	for sc.Scan() {
		y, err := strconv.ParseFloat(strings.SplitN(sc.Text(), ",", 2)[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, y)
	}
	return out
}

// Graph 0 of ogbg-molesol round-trips: its features are the first lines of the raw files.
func TestOGBFeatures(t *testing.T) {
	ds, err := data.OGB("ogbg-molesol", shareddata.Dir(t, "ogbg_molesol"))
	if err != nil {
		t.Fatal(err)
	}
	g := ds.Graphs[0]
	if g.N() != 32 || g.NumEdges() != 34 || ds.Labels[0] != -0.77 {
		t.Fatalf("graph 0: %d nodes, %d edges, label %v; want 32, 34, -0.77", g.N(), g.NumEdges(), ds.Labels[0])
	}
	// node-feat.csv lines 1 and 33: graph 0's first atom, graph 1's first atom.
	if !slices.Equal(g.NodeFeatures.Ints[:9], []int32{7, 0, 2, 5, 1, 0, 2, 0, 0}) ||
		!slices.Equal(ds.Graphs[1].NodeFeatures.Ints[:9], []int32{5, 0, 4, 5, 3, 0, 2, 0, 0}) {
		t.Errorf("atom features %v, %v", g.NodeFeatures.Ints[:9], ds.Graphs[1].NodeFeatures.Ints[:9])
	}
	// edge.csv lines 35–36: graph 1's first edges, node ids local to graph 1.
	if e := ds.Graphs[1].Edges(); e[0] != [2]int{0, 1} || e[1] != [2]int{1, 2} || !slices.Equal(g.EdgeFeatures.Ints[:3], []int32{0, 0, 0}) {
		t.Errorf("graph 1 edges %v, graph 0 bond features %v", e[:2], g.EdgeFeatures.Ints[:3])
	}
	// The smallest molecule has one atom and no bonds.
	for _, g := range ds.Graphs {
		if g.N() == 1 && g.NumEdges() != 0 {
			t.Errorf("one-atom graph with %d edges", g.NumEdges())
		}
	}
}

// writeOGB writes a two-graph dataset in OGB's layout, with the given files replaced.
func writeOGB(t *testing.T, replace map[string]string) string {
	dir := t.TempDir()
	files := map[string]string{
		"raw/num-node-list.csv":    "3\n2\n",
		"raw/num-edge-list.csv":    "2\n1\n",
		"raw/node-feat.csv":        "5,0,1,5,0,0,1,0,0\n7,0,2,5,1,0,2,1,1\n5,0,1,5,3,0,3,0,0\n8,0,1,5,0,0,3,0,0\n5,0,1,5,3,0,3,0,0\n",
		"raw/edge.csv":             "0,1\n1,2\n0,1\n",
		"raw/edge-feat.csv":        "0,0,0\n1,0,1\n0,0,0\n",
		"raw/graph-label.csv":      "1,,0\nnan,0.5,1\n",
		"split/scaffold/train.csv": "0\n",
		"split/scaffold/valid.csv": "",
		"split/scaffold/test.csv":  "1\n",
	}
	for k, v := range replace {
		files[k] = v
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeGzip(t, path+".gz", content)
	}
	return dir
}

func TestOGBSmall(t *testing.T) {
	ds, err := data.OGB("toy", writeOGB(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 2 || ds.Tasks != 3 || ds.Graphs[0].N() != 3 || ds.Graphs[1].Edges()[0] != [2]int{0, 1} ||
		ds.Graphs[0].EdgeFeatures.Ints[3] != 1 || ds.Graphs[1].NodeFeatures.Ints[0] != 8 {
		t.Fatalf("read as %+v", ds)
	}
	want := []float64{1, math.NaN(), 0, math.NaN(), 0.5, 1}
	for i, y := range ds.Labels {
		if y != want[i] && !(math.IsNaN(y) && math.IsNaN(want[i])) {
			t.Fatalf("labels %v, want %v (missing as NaN)", ds.Labels, want)
		}
	}
	if !slices.Equal(ds.Split.Train, []int{0}) || len(ds.Split.Valid) != 0 || !slices.Equal(ds.Split.Test, []int{1}) {
		t.Errorf("split %+v", ds.Split)
	}
}

func TestOGBMalformed(t *testing.T) {
	tests := []struct {
		file, content, want string
	}{
		{"raw/num-node-list.csv", "3\nx\n", `num-node-list.csv.gz:2: field 1: "x" is not an integer`},
		{"raw/num-node-list.csv", "3\n-2\n", "num-node-list.csv.gz:2: negative count -2"},
		{"raw/num-node-list.csv", "3\n3\n", "node-feat.csv.gz: 5 rows, but "},
		{"raw/num-node-list.csv", "", "num-node-list.csv.gz lists no graph"},
		{"raw/num-node-list.csv", "3\n9223372036854775807\n", "node-feat.csv.gz: 5 rows, but "},
		{"raw/num-edge-list.csv", "2\n9223372036854775807\n", "edge.csv.gz: 3 rows, but "},
		{"raw/num-edge-list.csv", "2\n0\n", "list 5 nodes and 2 edges, but "},
		{"raw/num-edge-list.csv", "2\n", "num-edge-list.csv.gz: 1 rows, but "},
		{"raw/node-feat.csv", "5,0,1,5,0,0,1,0,0\n7,0,2,5,1,0,2,1,1\n5,0,1,5,3,0,3,0\n8,0,1,5,0,0,3,0,0\n5,0,1,5,3,0,3,0,0\n", "node-feat.csv.gz:3: want 9 fields (9 atom features), got 8"},
		{"raw/node-feat.csv", "5,0,1,5,0,0,1,0,0\n7,0,2,5,1,0,2,1,1\n5,0,1,5,3,0,3,0,0\n8,0,1,5,0,0,3,0,0\n5,0,1,5,3,0,3,0,2\n", "node-feat.csv.gz:5: atom feature column 8 is 2, outside [0, 2)"},
		{"raw/edge.csv", "0,1\n1,1\n0,1\n", "edge.csv.gz:2: graph 0: self loop on node 1"},
		{"raw/edge.csv", "0,1\n1,3\n0,1\n", "edge.csv.gz:2: graph 0: node id out of range [0,3) (num-node-list.csv.gz gives it 3 nodes)"},
		{"raw/edge.csv", "0,1\n1,0\n0,1\n", "edge.csv.gz:2: graph 0: duplicates edge 0 (0,1)"},
		{"raw/edge-feat.csv", "0,0,0\n1,0,1\n", "edge-feat.csv.gz: 2 rows, but "},
		{"raw/edge-feat.csv", "0,0,0\n1,6,1\n0,0,0\n", "edge-feat.csv.gz:2: bond feature column 1 is 6, outside [0, 6)"},
		{"raw/graph-label.csv", "1,,0\nnan,0.5\n", "graph-label.csv.gz:2: 2 labels, the first line has 3"},
		{"raw/graph-label.csv", "1,,0\nnan,inf,1\n", `graph-label.csv.gz:2: label "inf" is neither a finite number nor missing`},
		{"split/scaffold/test.csv", "0\n", "graph 0 in both train and test"},
		{"split/scaffold/test.csv", "2\n", "test graph 2 outside [0, 2)"},
	}
	for _, tc := range tests {
		_, err := data.OGB("toy", writeOGB(t, map[string]string{tc.file: tc.content}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %q: error %v, want it to contain %q", tc.file, tc.content, err, tc.want)
		}
	}
	dir := writeOGB(t, nil)
	os.Remove(filepath.Join(dir, "raw", "edge.csv.gz"))
	if _, err := data.OGB("toy", dir); err == nil || !strings.Contains(err.Error(), "edge.csv.gz") || !strings.Contains(err.Error(), "see docs/data.md") {
		t.Errorf("missing edge.csv: error %v", err)
	}
}
