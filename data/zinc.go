// Package data reads the benchmark datasets into the library's graph type, with their
// standard splits.
package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/sgformer/graph"
)

// Dataset is a graph-level prediction dataset.
type Dataset struct {
	// Name is the dataset's name as PyG and OGB spell it, e.g. "zinc12k" or "ogbg-molhiv".
	Name   string
	Graphs []*graph.Graph
	// Tasks is the number of targets per graph; Labels holds them row-major, len(Graphs)·Tasks
	// values, NaN where a label is missing.
	Tasks  int
	Labels []float64
	// LabelNames, where the dataset names its tasks, holds a name per task (e.g. Peptides-func's
	// classes, a CSV's label columns); nil otherwise.
	LabelNames []string
	// Split holds the standard train / validation / test graph indices.
	Split Split
	// NodeVocab and EdgeVocab give, for each integer feature column, the number of categories
	// (the size of the embedding table a model needs); EdgeMin, if not empty, the first valid
	// category of each edge column (ZINC's bond types are 1–3, 0 meaning "no bond").
	NodeVocab, EdgeVocab, EdgeMin []int
}

// Split lists graph indices of the standard split.
type Split struct {
	Train, Valid, Test []int
}

// ZINC file names inside the data directory (see shared/data/README.md); each may also be
// stored gzip-compressed with a ".gz" suffix.
const (
	zincNodes  = "ZINC_Nodes.txt"
	zincEdges  = "ZINC_Edges.txt"
	zincLabels = "ZINC_Labels.txt"
	zincSplits = "ZINC_splits.json"
)

// ZINC's categories: atom types 0..zincAtomTypes−1 (benchmarking-gnns' atom dictionary) and bond
// types 1..zincBondTypes (0 is reserved for "no bond", hence an edge vocabulary of zincBondTypes+1).
const (
	zincAtomTypes = 28
	zincBondTypes = 3
)

// ZINC reads ZINC-12k (the benchmarking-gnns subset of 12,000 molecules, PyG's
// ZINC(subset=True)) from dir, in whichever layout it holds:
//   - the plain-text export of shared/data (ZINC_Nodes.txt, ZINC_Edges.txt, ZINC_Labels.txt,
//     each possibly gzip-compressed, and ZINC_splits.json);
//   - PyG's dataset folder: raw/ with benchmarking-gnns' pickles and the subset's indices (the
//     canonical download, {train,val,test}.pickle and .index), or subset/processed/ with PyG's
//     processed {train,val,test}.pt; or either of those folders itself.
//
// Graphs are numbered train, val, test, in PyG's order. Node features are the atom type (28
// categories), edge features the bond type (1–3, with 0 reserved as in benchmarking-gnns);
// targets are float32 values, as PyG's. Errors name the file and line or molecule.
//
// ZINC checks what the formats let it check: ids, ranges, that every graph has its nodes and
// its label, that edges join listed nodes, that the split names listed graphs. A file cut at a
// line boundary can still read as valid data; Load also checks the copy against the published
// dataset.
func ZINC(dir string) (*Dataset, error) {
	for _, layout := range []struct {
		probe, sub string
		read       func(string) (*Dataset, error)
	}{
		{zincNodes, ".", zincText}, {zincNodes + ".gz", ".", zincText},
		{"raw/train.pickle", "raw", zincPickles}, {"train.pickle", ".", zincPickles},
		{"subset/processed/train.pt", "subset/processed", zincProcessed},
		{"processed/train.pt", "processed", zincProcessed}, {"train.pt", ".", zincProcessed},
	} {
		if _, err := os.Stat(filepath.Join(dir, layout.probe)); err == nil {
			return layout.read(filepath.Join(dir, layout.sub))
		}
	}
	return zincText(dir) // its error names the files it expects
}

// zincText reads the plain-text export: node lines "graph node atom_type", edge lines
// "graph u v bond_type" (each bond once), label lines "graph y", and the split JSON.
func zincText(dir string) (*Dataset, error) {
	atoms, err := readRows(filepath.Join(dir, zincNodes), "graph node atom_type", 3)
	if err != nil {
		return nil, err
	}
	bonds, err := readRows(filepath.Join(dir, zincEdges), "graph u v bond_type", 4)
	if err != nil {
		return nil, err
	}
	labels, err := readRows(filepath.Join(dir, zincLabels), "graph y", 2)
	if err != nil {
		return nil, err
	}

	// Nodes: in any order, but the graph ids must be 0..G−1 and each graph's node ids 0..n−1,
	// each exactly once.
	type atom struct {
		r       row
		g, v, a int
	}
	parsed := make([]atom, len(atoms.rows))
	var sizes []int
	for i, r := range atoms.rows {
		g, v, a, err := r.ints3()
		if err != nil {
			return nil, err
		}
		// Graph ids are 0..G−1 and a graph's node ids 0..n−1, each listed: both are below the
		// number of lines, which bounds what is allocated for them.
		if g < 0 || v < 0 || g >= len(atoms.rows) || v >= len(atoms.rows) {
			return nil, r.errorf("graph %d node %d: ids must be non-negative and below the number of node lines (%d)", g, v, len(atoms.rows))
		}
		if a < 0 || a >= zincAtomTypes {
			return nil, r.errorf("atom type %d outside [0, %d)", a, zincAtomTypes)
		}
		for len(sizes) <= g {
			sizes = append(sizes, 0)
		}
		sizes[g] = max(sizes[g], v+1)
		parsed[i] = atom{r, g, v, a}
	}
	nodeFeat := make([][]int32, len(sizes))
	nodeRow := make([][]int, len(sizes)) // line of each node, 0 while unseen
	for g, n := range sizes {
		nodeFeat[g] = make([]int32, n)
		nodeRow[g] = make([]int, n)
	}
	for _, a := range parsed {
		if prev := nodeRow[a.g][a.v]; prev != 0 {
			return nil, a.r.errorf("graph %d: node %d listed again (first on line %d)", a.g, a.v, prev)
		}
		nodeRow[a.g][a.v] = a.r.line
		nodeFeat[a.g][a.v] = int32(a.a)
	}
	for g, lines := range nodeRow {
		if len(lines) == 0 {
			return nil, fmt.Errorf("%s: graph %d has no nodes (graph ids must be 0..%d without gaps)", atoms.name, g, len(sizes)-1)
		}
		for v, line := range lines {
			if line == 0 {
				return nil, fmt.Errorf("%s: graph %d: node %d missing (nodes up to %d are listed)", atoms.name, g, v, len(lines)-1)
			}
		}
	}

	// Edges, grouped by graph; each remembers its row for error messages.
	edges := make([][]graph.Edge, len(sizes))
	edgeFeat := make([][]int32, len(sizes))
	edgeRow := make([][]row, len(sizes))
	for _, r := range bonds.rows {
		g, err := r.int(0)
		if err != nil {
			return nil, err
		}
		if g < 0 || g >= len(sizes) {
			return nil, r.errorf("graph %d has no nodes in %s", g, atoms.name)
		}
		u, err := r.int(1)
		if err != nil {
			return nil, err
		}
		v, err := r.int(2)
		if err != nil {
			return nil, err
		}
		bond, err := r.int(3)
		if err != nil {
			return nil, err
		}
		if bond < 1 || bond > zincBondTypes {
			return nil, r.errorf("bond type %d outside 1..%d", bond, zincBondTypes)
		}
		edges[g] = append(edges[g], graph.Edge{u, v})
		edgeFeat[g] = append(edgeFeat[g], int32(bond))
		edgeRow[g] = append(edgeRow[g], r)
	}

	ds := &Dataset{Name: "zinc12k", Graphs: make([]*graph.Graph, len(sizes)), Tasks: 1, Labels: make([]float64, len(sizes)),
		NodeVocab: []int{zincAtomTypes}, EdgeVocab: []int{zincBondTypes + 1}, EdgeMin: []int{1}}
	for g := range sizes {
		gr, err := graph.New(sizes[g], edges[g], graph.Features{Width: 1, Ints: nodeFeat[g]}, graph.Features{Width: 1, Ints: edgeFeat[g]})
		if err != nil {
			var ee *graph.EdgeError
			if errors.As(err, &ee) {
				return nil, edgeRow[g][ee.Index].errorf("graph %d: %s (%s lists %d nodes for it)", g, ee.Reason, filepath.Base(atoms.name), sizes[g])
			}
			return nil, fmt.Errorf("%s: graph %d: %w", bonds.name, g, err)
		}
		ds.Graphs[g] = gr
		ds.Labels[g] = math.NaN()
	}
	for _, r := range labels.rows {
		g, err := r.int(0)
		if err != nil {
			return nil, err
		}
		if g < 0 || g >= len(sizes) {
			return nil, r.errorf("label for graph %d, which has no nodes", g)
		}
		y, err := strconv.ParseFloat(r.fields[1], 64)
		if err != nil || math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, r.errorf("target %q is not a finite number", r.fields[1])
		}
		if !math.IsNaN(ds.Labels[g]) {
			return nil, r.errorf("second label for graph %d", g)
		}
		ds.Labels[g] = y
	}
	for g, y := range ds.Labels {
		if math.IsNaN(y) {
			return nil, fmt.Errorf("%s: no label for graph %d", labels.name, g)
		}
	}
	if ds.Split, err = readZINCSplit(filepath.Join(dir, zincSplits), len(sizes), filepath.Base(atoms.name)); err != nil {
		return nil, err
	}
	return ds, nil
}

// readZINCSplit reads the split file of the benchmarking-gnns export:
// [{"test": [...], "model_selection": [{"train": [...], "validation": [...]}]}], for the graphs
// the file nodes lists.
func readZINCSplit(path string, graphs int, nodes string) (Split, error) {
	raw, name, err := readFile(path)
	if err != nil {
		return Split{}, err
	}
	var doc []struct {
		Test           *[]int `json:"test"`
		ModelSelection []struct {
			Train      *[]int `json:"train"`
			Validation *[]int `json:"validation"`
		} `json:"model_selection"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return Split{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc) != 1 || doc[0].Test == nil || len(doc[0].ModelSelection) != 1 || doc[0].ModelSelection[0].Train == nil || doc[0].ModelSelection[0].Validation == nil {
		return Split{}, fmt.Errorf(`%s: want [{"test": [...], "model_selection": [{"train": [...], "validation": [...]}]}]`, name)
	}
	s := Split{Train: *doc[0].ModelSelection[0].Train, Valid: *doc[0].ModelSelection[0].Validation, Test: *doc[0].Test}
	return s, s.check(name, graphs, nodes)
}

// check verifies that the split's indices lie in [0, graphs), the graphs of the file listed,
// and the three parts are disjoint; errors are prefixed with name.
func (s Split) check(name string, graphs int, listed string) error {
	seen := make(map[int]string, graphs)
	for _, part := range []struct {
		name string
		ids  []int
	}{{"train", s.Train}, {"validation", s.Valid}, {"test", s.Test}} {
		for _, id := range part.ids {
			if id < 0 || id >= graphs {
				return fmt.Errorf("%s: %s graph %d outside [0, %d), the graphs of %s", name, part.name, id, graphs, listed)
			}
			if prev, dup := seen[id]; dup && prev == part.name {
				return fmt.Errorf("%s: graph %d listed twice in %s", name, id, part.name)
			} else if dup {
				return fmt.Errorf("%s: graph %d in both %s and %s", name, id, prev, part.name)
			}
			seen[id] = part.name
		}
	}
	return nil
}

// table is a text file read into rows.
type table struct {
	name string
	rows []row
}

// row is one line of a table, with its position for error messages.
type row struct {
	file   string
	line   int
	fields []string
}

func (r row) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", r.file, r.line, fmt.Sprintf(format, args...))
}

func (r row) int(i int) (int, error) {
	v, err := strconv.Atoi(r.fields[i])
	if err != nil {
		return 0, r.errorf("field %d: %q is not an integer", i+1, r.fields[i])
	}
	return v, nil
}

func (r row) ints3() (a, b, c int, err error) {
	if a, err = r.int(0); err != nil {
		return
	}
	if b, err = r.int(1); err != nil {
		return
	}
	c, err = r.int(2)
	return
}

// readRows reads a whitespace-separated text table whose lines have exactly width fields (the
// columns named by header, for error messages), skipping blank lines.
func readRows(path, header string, width int) (*table, error) {
	return readTable(path, header, width, strings.Fields)
}

// readTable reads a text table whose lines, split into fields by split, have exactly width
// fields (any number if width is 0), skipping blank lines.
func readTable(path, header string, width int, split func(string) []string) (*table, error) {
	raw, name, err := readFile(path)
	if err != nil {
		return nil, err
	}
	t := &table{name: name}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		fields := split(sc.Text())
		r := row{file: name, line: line, fields: fields}
		if width > 0 && len(fields) != width {
			return nil, r.errorf("want %d fields (%s), got %d", width, header, len(fields))
		}
		t.rows = append(t.rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// readFile reads path, or path+".gz" when path does not exist, decompressing gzip content
// (recognised by its magic number, whatever the name). It returns the name actually read.
func readFile(path string) ([]byte, string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if g, gzErr := os.Open(path + ".gz"); gzErr == nil {
			f, err, path = g, nil, path+".gz"
		}
	}
	if err != nil {
		return nil, path, fmt.Errorf("%w (expected %s or %s.gz; see docs/data.md)", err, path, path)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, path, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, path, fmt.Errorf("%s: %w", path, err)
	}
	return raw, path, nil
}
