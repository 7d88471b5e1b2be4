package data

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/csvfile"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// identicalGraph reports how two graphs differ, "" when they are equal: nodes, edges in order and
// orientation, node and edge features.
func identicalGraph(a, b *graph.Graph) string {
	switch {
	case a.N() != b.N():
		return fmt.Sprintf("%d nodes, want %d", a.N(), b.N())
	case !slices.Equal(a.Edges(), b.Edges()):
		return fmt.Sprintf("edges %v, want %v", a.Edges(), b.Edges())
	case a.NodeFeatures.Width != b.NodeFeatures.Width || !slices.Equal(a.NodeFeatures.Ints, b.NodeFeatures.Ints):
		return fmt.Sprintf("node features %v, want %v", a.NodeFeatures, b.NodeFeatures)
	case a.NumEdges() > 0 && (a.EdgeFeatures.Width != b.EdgeFeatures.Width || !slices.Equal(a.EdgeFeatures.Ints, b.EdgeFeatures.Ints)):
		return fmt.Sprintf("edge features %v, want %v", a.EdgeFeatures, b.EdgeFeatures)
	}
	return ""
}

// Peptides-func read from LRGB's CSV and featurised here equals, graph by graph, the oracle in
// shared/data/peptides_func/ogb_features: every SMILES parsed by RDKit 2022.09.3 and featurised
// by OGB's atom_to_feature_vector / bond_to_feature_vector, which is what PyG's LRGBDataset
// holds. Atoms, bonds (order and orientation), all 12 features, the 10 labels and the split.
func TestPeptidesFuncOracle(t *testing.T) {
	dir := shareddata.Dir(t, "peptides_func")
	ds, err := PeptidesFunc(dir)
	if err != nil {
		t.Fatal(err)
	}
	oracle, err := readOGB("peptides-func", filepath.Join(dir, "ogb_features"), "split/random_stratified")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 15535 || len(oracle.Graphs) != len(ds.Graphs) {
		t.Fatalf("%d graphs, the oracle %d, want 15,535", len(ds.Graphs), len(oracle.Graphs))
	}
	atoms, bonds, differ := 0, 0, 0
	for i, g := range ds.Graphs {
		atoms, bonds = atoms+g.N(), bonds+g.NumEdges()
		if d := identicalGraph(g, oracle.Graphs[i]); d != "" {
			if differ++; differ <= 5 {
				t.Errorf("peptide %d: %s", i, d)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d peptides differ from the oracle", differ, len(ds.Graphs))
	}
	if atoms != 2344859 || bonds != 2386987 { // LRGB's statistics (shared/data/README.md)
		t.Errorf("%d atoms and %d bonds, want 2,344,859 and 2,386,987", atoms, bonds)
	}
	if ds.Tasks != 10 || !slices.Equal(ds.Labels, oracle.Labels) || !slices.Equal(ds.LabelNames, PeptidesFuncClasses) {
		t.Errorf("%d tasks, labels equal to the oracle's: %v, names %v", ds.Tasks, slices.Equal(ds.Labels, oracle.Labels), ds.LabelNames)
	}
	if !slices.Equal(ds.Split.Train, oracle.Split.Train) || !slices.Equal(ds.Split.Valid, oracle.Split.Valid) || !slices.Equal(ds.Split.Test, oracle.Split.Test) {
		t.Errorf("split %d/%d/%d differs from the oracle's %d/%d/%d", len(ds.Split.Train), len(ds.Split.Valid), len(ds.Split.Test),
			len(oracle.Split.Train), len(oracle.Split.Valid), len(oracle.Split.Test))
	}
}

// BenchmarkPeptidesFeaturize measures the featurisation of all 15,535 Peptides-func SMILES
// (MoleculeGraphs on every CPU), without reading the files.
func BenchmarkPeptidesFeaturize(b *testing.B) {
	ss := peptidesSMILES(b, shareddata.Dir(b, "peptides_func"))
	b.ResetTimer()
	for range b.N {
		if _, errs := MoleculeGraphs(ss, 0); errs != nil {
			b.Fatal(errs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ss)), "µs/molecule")
}

// peptidesSMILES reads the SMILES column of the shared Peptides-func CSV.
func peptidesSMILES(tb testing.TB, dir string) []string {
	tb.Helper()
	r, err := csvfile.Open(filepath.Join(dir, peptidesFuncCSV))
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	col, err := r.Column("smiles")
	if err != nil {
		tb.Fatal(err)
	}
	var ss []string
	for {
		rec, _, err := r.Read()
		if errors.Is(err, io.EOF) {
			return ss
		}
		if err != nil {
			tb.Fatal(err)
		}
		ss = append(ss, rec[col])
	}
}

// The miniature of LRGB's Peptides-struct download (testdata/peptides, written by make.py):
// served over HTTP, fetched with its MD5 sums checked, read back with LRGB's standardisation.
func TestDownloadPeptidesStruct(t *testing.T) {
	files := map[string][]byte{}
	sums := map[string]string{}
	for _, name := range []string{peptidesStructCSV, peptidesStructSplit + ".pickle"} {
		b, err := os.ReadFile(filepath.Join("testdata", "peptides", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
		h := md5.Sum(b)
		sums[name] = hex.EncodeToString(h[:])
	}
	srv := serveFiles(files)
	defer srv.Close()
	src, err := SourceOf("peptides-struct")
	if err != nil {
		t.Fatal(err)
	}
	if src.MD5[peptidesStructCSV] != "9786061a34298a0684150f2e4ff13f47" || src.MD5[peptidesStructSplit+".pickle"] != "5a0114bdadc80b94fc7ae974f13ef061" {
		t.Errorf("MD5 sums %v, want LRGB's", src.MD5)
	}
	src.URL = srv.URL + "/" + peptidesStructCSV + "?dl=1"
	src.Extra = map[string]string{peptidesStructSplit + ".pickle": srv.URL + "/" + peptidesStructSplit + ".pickle?dl=1"}
	src.MD5 = sums
	src.Sizes = [3]int{4, 1, 1}

	// A wrong MD5 (here LRGB's, for the miniature): an error naming the file, nothing in the data
	// directory, and the file that failed deleted, not resumed from.
	for _, name := range []string{peptidesStructCSV, peptidesStructSplit + ".pickle"} {
		bad := src
		bad.MD5 = map[string]string{peptidesStructCSV: sums[peptidesStructCSV], peptidesStructSplit + ".pickle": sums[peptidesStructSplit+".pickle"]}
		bad.MD5[name] = strings.Repeat("0", 32)
		dir := filepath.Join(t.TempDir(), "peptides_struct")
		err := bad.Download(context.Background(), dir, srv.Client(), nil)
		want := name + ": MD5 " + sums[name] + ", want " + strings.Repeat("0", 32)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("wrong MD5 of %s: error %v, want it to contain %q", name, err, want)
		}
		if _, err := os.Stat(filepath.Join(dir, peptidesStructCSV)); err == nil {
			t.Errorf("wrong MD5 of %s: the CSV was moved into the data directory", name)
		}
		if name == peptidesStructCSV {
			if _, err := os.Stat(filepath.Join(dir, ".download", peptidesStructCSV)); err == nil {
				t.Errorf("the CSV that failed its MD5 was kept")
			}
		}
	}

	dir := filepath.Join(t.TempDir(), "peptides_struct")
	var progress bytes.Buffer
	if err := src.Download(context.Background(), dir, srv.Client(), &progress); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != peptidesStructCSV+" "+peptidesStructSplit+".pickle" {
		t.Errorf("data directory holds %v", names)
	}
	n := srv.requests.Load()
	if err := src.Download(context.Background(), dir, srv.Client(), nil); err != nil || srv.requests.Load() != n {
		t.Errorf("second download: %v, %d more requests", err, srv.requests.Load()-n)
	}

	ds, err := PeptidesStruct(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 6 || ds.Tasks != 11 || !slices.Equal(ds.LabelNames, PeptidesStructTargets) {
		t.Fatalf("%d graphs, %d tasks, names %v", len(ds.Graphs), ds.Tasks, ds.LabelNames)
	}
	// Column j holds 0.25j + 0.5i for molecule i: standardised, (i − 2.5)/√3.5 in every column.
	for i := range 6 {
		want := float64(float32((float64(i) - 2.5) / math.Sqrt(3.5)))
		for j := range 11 {
			if got := ds.Labels[i*11+j]; got != want {
				t.Fatalf("label %d of molecule %d: %v, want %v", j, i, got, want)
			}
		}
	}
	if g := ds.Graphs[4]; g.N() != 2 || g.NumEdges() != 0 {
		t.Errorf("the salt [Na+].[Cl-]: %d atoms, %d bonds", g.N(), g.NumEdges())
	}
	if !slices.Equal(ds.Split.Train, []int{0, 2, 3, 5}) || !slices.Equal(ds.Split.Valid, []int{1}) || !slices.Equal(ds.Split.Test, []int{4}) {
		t.Errorf("split %v", ds.Split)
	}
}

// Offline, the error names LRGB's two addresses, the names to save them as, the directory to
// put them in and their MD5 sums.
func TestPeptidesOffline(t *testing.T) {
	for _, name := range []string{"peptides-func", "peptides-struct"} {
		src, err := SourceOf(name)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		url := src.URL
		src.URL = srv.URL + "/" + src.archiveName() + "?dl=1"
		dir := filepath.Join(t.TempDir(), src.Folder)
		err = src.Download(context.Background(), dir, http.DefaultClient, nil)
		src.URL = url
		wants := []string{"data: downloading " + name, "Offline, fetch ", "(as " + src.archiveName() + ")", "put the files into " + dir}
		for file, url := range src.Extra {
			wants = append(wants, url+" (as "+file+")", src.MD5[file]+"  "+file)
		}
		wants = append(wants, src.MD5[src.archiveName()]+"  "+src.archiveName())
		for _, want := range wants {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s offline: error %v, want it to contain %q", name, err, want)
			}
		}
		// Load of a missing directory says the same, with the canonical URL.
		_, err = Load(name, dir)
		for _, want := range []string{"sgformer download --dataset " + name, url + " (as " + src.archiveName() + ")"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s missing: error %v, want it to contain %q", name, err, want)
			}
		}
	}
}

// Split files like LRGB's: JSON or a pickle, "val" or "valid"; every mistake named.
func TestReadSplitFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, err string }{
		{"ok.json", `{"train": [0, 2], "val": [1], "test": [3]}`, ""},
		{"valid.json", `{"train": [0, 2], "valid": [1], "test": [3]}`, ""},
		{"both.json", `{"train": [0], "val": [1], "valid": [2], "test": [3]}`, `both "val" and "valid"`},
		{"extra.json", `{"train": [0], "val": [1], "test": [3], "holdout": [2]}`, `unknown part "holdout"`},
		{"missing.json", `{"train": [0], "val": [1]}`, `no part "test"`},
		{"range.json", `{"train": [0, 4], "val": [1], "test": [3]}`, "train graph 4 outside [0, 4), the graphs of mols.csv"},
		{"twice.json", `{"train": [0, 1], "val": [1], "test": [3]}`, "graph 1 in both train and validation"},
		{"repeated.json", `{"train": [0, 0], "val": [1], "test": [3]}`, "graph 0 listed twice in train"},
		{"syntax.json", `{"train": [0, 1]`, "unexpected end of JSON input"},
	} {
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, []byte(tc.content), 0o644)
		s, err := readSplitFile(path, 4, "mols.csv")
		if tc.err == "" {
			if err != nil || !slices.Equal(s.Train, []int{0, 2}) || !slices.Equal(s.Valid, []int{1}) || !slices.Equal(s.Test, []int{3}) {
				t.Errorf("%s: %v, %v", tc.name, s, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s: error %v, want %q after the file name", tc.name, err, tc.err)
		}
	}
	s, err := readSplitFile(filepath.Join("testdata", "peptides", peptidesStructSplit+".pickle"), 6, "mini.csv")
	if err != nil || !slices.Equal(s.Train, []int{0, 2, 3, 5}) {
		t.Errorf("pickle: %v, %v", s, err)
	}
}
