package data

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const alchemyFixture = "testdata/alchemy"

// alchemyFiles are the files of the miniature download (testdata/alchemy, written by make.py):
// the TU files Alchemy reads, the node attributes it does not, and the index files.
var alchemyFiles = []string{alchemyA, alchemyIndicator, alchemyNodeLabels, alchemyEdgeLabels, alchemyTargets,
	alchemyName + "_node_attributes.txt", alchemySplit[0], alchemySplit[1], alchemySplit[2]}

// The miniature read as the authors' loader builds it equals what make.py computed from the
// graphs themselves: entries in index-file order (repeats included), atom and bond categories
// (labels minus the smallest, the self loop dropped but its label counted), every bond once,
// and the float32 targets standardised over all 8 graphs, not only the indexed ones.
func TestAlchemyFixture(t *testing.T) {
	ds, err := Alchemy(alchemyFixture)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(alchemyFixture, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		NodeVocab int `json:"node_vocab"`
		EdgeVocab int `json:"edge_vocab"`
		Train     int `json:"train"`
		Val       int `json:"val"`
		Test      int `json:"test"`
		Entries   []struct {
			Graph   int
			Atoms   []int32
			Bonds   [][3]int
			Targets []float64
		}
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != len(want.Entries) || ds.Tasks != AlchemyTasks || len(ds.Labels) != len(ds.Graphs)*AlchemyTasks {
		t.Fatalf("%d graphs, %d tasks, %d labels; want %d graphs, 12 tasks", len(ds.Graphs), ds.Tasks, len(ds.Labels), len(want.Entries))
	}
	if !slices.Equal(ds.NodeVocab, []int{want.NodeVocab}) || !slices.Equal(ds.EdgeVocab, []int{want.EdgeVocab}) || ds.EdgeMin != nil {
		t.Errorf("vocabularies %v, %v (min %v), want [%d], [%d]", ds.NodeVocab, ds.EdgeVocab, ds.EdgeMin, want.NodeVocab, want.EdgeVocab)
	}
	run := func(from, n int) []int {
		r := make([]int, n)
		for i := range r {
			r[i] = from + i
		}
		return r
	}
	if !slices.Equal(ds.Split.Train, run(0, want.Train)) || !slices.Equal(ds.Split.Valid, run(want.Train, want.Val)) ||
		!slices.Equal(ds.Split.Test, run(want.Train+want.Val, want.Test)) {
		t.Errorf("split %v, want runs of %d, %d, %d entries", ds.Split, want.Train, want.Val, want.Test)
	}
	for i, e := range want.Entries {
		g := ds.Graphs[i]
		if g.NodeFeatures.Width != 1 || !slices.Equal(g.NodeFeatures.Ints, e.Atoms) {
			t.Errorf("entry %d (graph %d): atoms %v, want %v", i, e.Graph, g.NodeFeatures, e.Atoms)
		}
		var bonds [][3]int
		for k, edge := range g.Edges() {
			bonds = append(bonds, [3]int{min(edge[0], edge[1]), max(edge[0], edge[1]), int(g.EdgeFeatures.Ints[k])})
		}
		slices.SortFunc(bonds, func(a, b [3]int) int { return slices.Compare(a[:], b[:]) })
		if !slices.Equal(bonds, e.Bonds) || (g.NumEdges() > 0 && g.EdgeFeatures.Width != 1) {
			t.Errorf("entry %d (graph %d): bonds %v, want %v", i, e.Graph, bonds, e.Bonds)
		}
		for j, y := range e.Targets {
			if got := ds.Labels[i*AlchemyTasks+j]; math.Abs(got-y) > 1e-12 {
				t.Errorf("entry %d (graph %d): target %d = %.17g, want %.17g", i, e.Graph, j, got, y)
			}
		}
	}
	// A graph listed twice is one molecule at two entries: train's graph 3, graph 0 in train and val.
	if ds.Graphs[0] != ds.Graphs[3] || ds.Graphs[1] != ds.Graphs[5] {
		t.Error("a repeated index did not give the same graph")
	}
}

// copyAlchemy copies the miniature into a temporary directory, replacing a file's content where
// edits says so.
func copyAlchemy(t *testing.T, edits map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range alchemyFiles {
		b, err := os.ReadFile(filepath.Join(alchemyFixture, name))
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := edits[name]; ok {
			b = []byte(s)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Every malformed input is an error naming its file (and line where there is one).
func TestAlchemyMalformed(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(alchemyFixture, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a, aLabels, targets := read(alchemyA), read(alchemyEdgeLabels), read(alchemyTargets)
	twelve := strings.Repeat("1, ", 11) + "1\n"
	for _, tc := range []struct {
		name  string
		edits map[string]string
		want  string
	}{
		{"gap in graph ids", map[string]string{alchemyIndicator: "1\n1\n3\n"}, alchemyIndicator + ":3: graph id 3 after graph 1"},
		{"graph ids not in order", map[string]string{alchemyIndicator: "1\n2\n1\n"}, alchemyIndicator + ":3: graph id 1 after graph 2"},
		{"first graph id 0", map[string]string{alchemyIndicator: "0\n"}, alchemyIndicator + ":1: graph id 0 after graph 0"},
		{"no node", map[string]string{alchemyIndicator: "\n"}, alchemyIndicator + " lists no node"},
		{"graph id not a number", map[string]string{alchemyIndicator: "1\none\n"}, alchemyIndicator + `:2: "one" is not an integer`},
		{"two fields", map[string]string{alchemyIndicator: "1, 1\n"}, alchemyIndicator + ":1: want 1 comma-separated integers, got 2 fields"},
		{"a node label short", map[string]string{alchemyNodeLabels: "1\n2\n"}, alchemyNodeLabels + ": 2 labels, but"},
		{"labels spanning too much", map[string]string{alchemyNodeLabels: strings.Repeat("1\n", 27) + "5000\n"}, "atom labels span 1..5000"},
		{"node beyond the dataset", map[string]string{alchemyA: "1, 29\n" + a}, alchemyA + ":1: node 29 outside 1..28"},
		{"edge across graphs", map[string]string{alchemyA: "1, 4\n4, 1\n" + a, alchemyEdgeLabels: "1\n1\n" + aLabels},
			alchemyA + ":1: edge (1, 4) joins node 1 of graph 1 and node 4 of graph 2"},
		{"edge listed twice", map[string]string{alchemyA: a + "1, 2\n", alchemyEdgeLabels: aLabels + "1\n"}, alchemyA + ":48: edge (1, 2) listed again (first on line"},
		{"edge without reverse", map[string]string{alchemyA: a + "1, 3\n", alchemyEdgeLabels: aLabels + "1\n"}, alchemyA + ":48: edge (1, 3) without its reverse (3, 1)"},
		{"reverse with another label", map[string]string{alchemyA: a + "1, 3\n3, 1\n", alchemyEdgeLabels: aLabels + "1\n2\n"}, "edge (1, 3) has label category 0, its reverse (line 49) 1"},
		{"no edge", map[string]string{alchemyA: "", alchemyEdgeLabels: ""}, alchemyA + " lists no edge"},
		{"an edge label short", map[string]string{alchemyEdgeLabels: "1\n"}, alchemyA + " lists 47 edges"},
		{"a target line short", map[string]string{alchemyTargets: strings.Repeat(twelve, 7)}, alchemyTargets + ": 7 lines of targets, but"},
		{"a target line too many", map[string]string{alchemyTargets: targets + twelve}, alchemyTargets + ":9: targets for graph 9, but"},
		{"eleven targets", map[string]string{alchemyTargets: "1, 2\n"}, alchemyTargets + ":1: want 12 comma-separated targets, got 2"},
		{"a target not finite", map[string]string{alchemyTargets: strings.Repeat("nan, ", 11) + "1\n"}, alchemyTargets + `:1: target "nan" is not a finite number`},
		{"a constant target", map[string]string{alchemyTargets: strings.Repeat(twelve, 8)}, "target 1 is the same for all 8 graphs"},
		{"index beyond the graphs", map[string]string{alchemySplit[1]: "6,8\n"}, alchemySplit[1] + ":1: graph index 8 outside [0, 8)"},
		{"index file of two lines", map[string]string{alchemySplit[2]: "1\n2\n"}, alchemySplit[2] + ":2: a second line"},
		{"empty index file", map[string]string{alchemySplit[0]: ""}, alchemySplit[0] + ": no graph index"},
		{"negative index", map[string]string{alchemySplit[0]: "1,-1"}, alchemySplit[0] + ":1: graph index -1 outside"},
	} {
		dir := copyAlchemy(t, tc.edits)
		_, err := Alchemy(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: error %v, want it to contain %q and the directory", tc.name, err, tc.want)
		}
	}
	// A missing file: an error that Load turns into how to obtain the files.
	dir := copyAlchemy(t, nil)
	os.Remove(filepath.Join(dir, alchemyEdgeLabels))
	if _, err := Alchemy(dir); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), alchemyEdgeLabels) {
		t.Errorf("a missing file: error %v", err)
	}
}

// The miniature, zipped as alchemy_full.zip (files under alchemy_full/) and served with the
// index files over HTTP, downloads, is checked against its sums and reads back, as the source
// will once alchemy_full's sums are pinned.
func TestDownloadAlchemy(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	served := map[string][]byte{}
	src, err := SourceOf("alchemy12k")
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, name := range alchemyFiles {
		b, err := os.ReadFile(filepath.Join(alchemyFixture, name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		if _, listed := src.Files[name]; listed {
			sums[name] = hex.EncodeToString(h[:])
		}
		if _, extra := src.Extra[name]; extra {
			served[name] = b
			continue
		}
		w, err := zw.Create(alchemyName + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	served["alchemy_full.zip"] = buf.Bytes()
	srv := serveFiles(served)
	defer srv.Close()

	pinned := src
	pinned.Pending = ""
	pinned.Files = sums
	pinned.URL = srv.URL + "/alchemy_full.zip"
	pinned.Extra = map[string]string{}
	for name := range src.Extra {
		pinned.Extra[name] = srv.URL + "/" + name
	}
	dir := filepath.Join(t.TempDir(), "alchemy12k")
	if err := pinned.Download(context.Background(), dir, srv.Client(), nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, slices.Sorted(maps.Keys(sums))) {
		t.Errorf("data directory holds %v, want the %d files read", names, len(sums))
	}
	ds, err := pinned.read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := pinned.check(ds); err == nil || !strings.Contains(err.Error(), "[4 2 2] train/val/test graphs, want [10000 1000 1000]") {
		t.Errorf("the miniature checked against the published sizes: %v", err)
	}
	// A file that is not the published one: its sum named, nothing moved into place.
	bad := pinned
	bad.Files = map[string]string{}
	for name, sum := range sums {
		bad.Files[name] = sum
	}
	bad.Files[alchemySplit[0]] = src.Files[alchemySplit[0]] // sparsewl's, not the miniature's
	dir = filepath.Join(t.TempDir(), "alchemy12k")
	err = bad.Download(context.Background(), dir, srv.Client(), nil)
	if err == nil || !strings.Contains(err.Error(), alchemySplit[0]+": SHA-256 "+sums[alchemySplit[0]]+", want "+src.Files[alchemySplit[0]]) {
		t.Errorf("a wrong sum: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, alchemyA)); err == nil {
		t.Error("a download that failed its sums moved files into place")
	}
}

// Here, where alchemy_full's sums are not pinned, download refuses without a request, and both
// it and Load of a missing directory say what to fetch from where and where to put it.
func TestAlchemyUnpinned(t *testing.T) {
	src, err := SourceOf("alchemy12k")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "alchemy12k")
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("request to %s", r.URL)
		return nil, errors.New("no network in this test")
	})}
	err = src.Download(context.Background(), dir, client, nil)
	wants := []string{"cannot download alchemy12k", "not pinned yet", alchemyURL, "alchemy_full/ folder into " + dir,
		alchemySplitURL + "train_al_10.index (as train_al_10.index)", alchemySplitURL + "test_al_10.index (as test_al_10.index)", "  " + alchemyTargets}
	for _, want := range wants {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("download: error %v, want it to contain %q", err, want)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the refused download created the data directory")
	}
	_, err = Load("alchemy12k", dir)
	for _, want := range append(wants[1:], "sgformer download cannot fetch alchemy12k yet") {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load: error %v, want it to contain %q", err, want)
		}
	}
	for _, name := range alchemySplit {
		if sum := src.Files[name]; len(sum) != 64 {
			t.Errorf("%s: SHA-256 %q not pinned", name, sum)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkAlchemy reads a dataset of alchemy_full's size in its format, made up here (no copy
// is at hand): 202,579 random trees of 6 to 14 atoms with a ring bond in every other, labelled
// as Alchemy's (6 atom, 4 bond labels), 12 targets of 17 digits each, and index files of
// 10,000, 1,000 and 1,000 entries.
func BenchmarkAlchemy(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	create := func(name string) (*bufio.Writer, func()) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		return w, func() {
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	}
	const graphs = 202579
	ind, closeInd := create(alchemyIndicator)
	atoms, closeAtoms := create(alchemyNodeLabels)
	a, closeA := create(alchemyA)
	bonds, closeBonds := create(alchemyEdgeLabels)
	ys, closeYs := create(alchemyTargets)
	first := 1
	for g := range graphs {
		n := 6 + rng.IntN(9)
		for v := range n {
			fmt.Fprintf(ind, "%d\n", g+1)
			fmt.Fprintf(atoms, "%d\n", 1+rng.IntN(6))
			if v == 0 {
				continue
			}
			u := rng.IntN(v)
			if v == n-1 && g%2 == 0 && u != v-1 {
				u = v - 1 // a tree path's last step; the ring below closes on it
			}
			label := 1 + rng.IntN(4)
			fmt.Fprintf(a, "%d, %d\n%d, %d\n", first+u, first+v, first+v, first+u)
			fmt.Fprintf(bonds, "%d\n%d\n", label, label)
		}
		if g%2 == 0 {
			fmt.Fprintf(a, "%d, %d\n%d, %d\n", first, first+n-1, first+n-1, first)
			fmt.Fprintf(bonds, "4\n4\n")
		}
		for j := range AlchemyTasks {
			if j > 0 {
				ys.WriteString(", ")
			}
			ys.WriteString(strconv.FormatFloat(rng.NormFloat64()*float64(j+1), 'g', 17, 64))
		}
		ys.WriteString("\n")
		first += n
	}
	for _, c := range []func(){closeInd, closeAtoms, closeA, closeBonds, closeYs} {
		c()
	}
	for i, size := range []int{10000, 1000, 1000} {
		ids := make([]string, size)
		for k := range ids {
			ids[k] = strconv.Itoa(rng.IntN(graphs))
		}
		if err := os.WriteFile(filepath.Join(dir, alchemySplit[i]), []byte(strings.Join(ids, ",")+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		ds, err := Alchemy(dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(ds.Graphs) != 12000 {
			b.Fatalf("%d graphs", len(ds.Graphs))
		}
	}
}
