package data

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/sgformer/sgformer/sgformer/graph"
)

// Alchemy-12k's files: alchemy_full in the TU graph-kernel format (the folder of
// alchemy_full.zip, what PyG's TUDataset(name="alchemy_full") reads), and the split of Morris
// et al., "Weisfeiler and Leman go sparse" (NeurIPS 2020), one index file per part.
const (
	alchemyName       = "alchemy_full"
	alchemyA          = alchemyName + "_A.txt"
	alchemyIndicator  = alchemyName + "_graph_indicator.txt"
	alchemyNodeLabels = alchemyName + "_node_labels.txt"
	alchemyEdgeLabels = alchemyName + "_edge_labels.txt"
	alchemyTargets    = alchemyName + "_graph_attributes.txt"
	// AlchemyTasks is the number of targets per molecule: the 12 quantum-mechanical properties
	// of the Alchemy dataset (the authors' num_elements_in_target).
	AlchemyTasks = 12
	// maxTULabels bounds the categories of a node or edge label column: Alchemy's have a few,
	// and a column spanning more values is no category a model could embed.
	maxTULabels = 1 << 10
)

// alchemySplit are the index files of the train, validation and test parts.
var alchemySplit = [3]string{"train_al_10.index", "val_al_10.index", "test_al_10.index"}

// Alchemy reads Alchemy-12k from dir as the authors' get_alchemy_dataloader (utils/data.py)
// builds it from PyG's TUDataset(name="alchemy_full"):
//   - every molecule of alchemy_full is read from the TU files: nodes by graph
//     (_graph_indicator.txt), atom labels (_node_labels.txt), bonds in both directions with 1-based
//     node ids over the whole dataset (_A.txt) and their labels (_edge_labels.txt), and 12 targets
//     per graph (_graph_attributes.txt), read as float32 as PyG does; node attributes (the
//     coordinates) are not read, as TUDataset drops them by default;
//   - node and edge features are a label's category: the label minus the smallest in its file,
//     among as many categories as the labels span — the index of the one-hot column PyG's
//     read_tu_data makes of it (so the vocabularies are those widths, 6 and 4 for alchemy_full
//     in the authors' configuration); self loops are dropped, as PyG does (after taking the
//     labels' range); each bond becomes one undirected edge, which must be listed in both
//     directions with one label;
//   - the targets are standardised per column with the mean and the unbiased standard
//     deviation over every graph of alchemy_full: their code computes them from
//     dataset.data.y after indexing the dataset, and PyG's data holds the full dataset
//     whatever the index (in float64 here, from the float32 values);
//   - the graphs are the entries of train_al_10.index, val_al_10.index and test_al_10.index, in
//     that order (10,000, 1,000 and 1,000 in the published files), numbered from 0, and the split
//     is those three runs. An index listed twice gives two entries, as dataset[indices] does:
//     the published split repeats molecules within and across its parts.
//
// Errors name the file and line. The TU files must agree: as many label lines as nodes and
// bonds, a target line per graph, graph ids 1, 2, … in order without gaps, bonds inside one
// graph, no bond listed twice, indices of listed graphs.
func Alchemy(dir string) (*Dataset, error) {
	tu, err := readTU(dir, alchemyName, AlchemyTasks)
	if err != nil {
		return nil, err
	}
	mean, std, err := tu.standardisation()
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Name: "alchemy12k", Tasks: AlchemyTasks, NodeVocab: []int{tu.nodeVocab}, EdgeVocab: []int{tu.edgeVocab}}
	built := map[int]*graph.Graph{}
	parts := [3]*[]int{&ds.Split.Train, &ds.Split.Valid, &ds.Split.Test}
	for p, name := range alchemySplit {
		ids, err := readIndexFile(filepath.Join(dir, name), tu.graphs(), tu.indicator)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			g, ok := built[id]
			if !ok {
				if g, err = tu.graph(id); err != nil {
					return nil, err
				}
				built[id] = g
			}
			*parts[p] = append(*parts[p], len(ds.Graphs))
			ds.Graphs = append(ds.Graphs, g)
			for j := range AlchemyTasks {
				ds.Labels = append(ds.Labels, (tu.targets[id*AlchemyTasks+j]-mean[j])/std[j])
			}
		}
	}
	return ds, nil
}

// tuDataset is a dataset in the TU graph-kernel format, read whole: nodes numbered over the
// dataset from 0, graph by graph.
type tuDataset struct {
	// indicator, the name of the graph indicator file read, for messages.
	indicator string
	// start[g] is graph g's first node; start[G] the number of nodes.
	start []int
	// nodeLabel is each node's category, nodeVocab their number; likewise for edges.
	nodeLabel            []int32
	nodeVocab, edgeVocab int
	// bonds holds each undirected bond once, as (u, v) with u < v, sorted; bondStart[g] is
	// graph g's first.
	bonds     []tuBond
	bondStart []int
	// targets holds width values per graph, row-major.
	targets []float64
	width   int
}

// tuBond is an edge of A with its category and line.
type tuBond struct{ u, v, label, line int32 }

func (t *tuDataset) graphs() int { return len(t.start) - 1 }

// readTU reads the TU files prefix_A.txt, prefix_graph_indicator.txt, prefix_node_labels.txt,
// prefix_edge_labels.txt and prefix_graph_attributes.txt (width values per line) in dir. Each
// may be gzip-compressed with a ".gz" suffix.
func readTU(dir, prefix string, width int) (*tuDataset, error) {
	t := &tuDataset{width: width}
	file := func(kind string) string { return filepath.Join(dir, prefix+"_"+kind+".txt") }

	// Graph ids 1, 2, … in order, each with one node or more: at most one graph per line.
	nodes := 0
	var err error
	var g [1]int
	t.indicator, err = scanLines(file("graph_indicator"), func(l lineRef, fields [][]byte) error {
		if err := l.ints(fields, g[:]); err != nil {
			return err
		}
		switch last := len(t.start); {
		case g[0] == last+1:
			t.start = append(t.start, l.index)
		case g[0] != last || last == 0:
			return l.errorf("graph id %d after graph %d: nodes must be listed graph by graph, the graphs numbered 1, 2, … without gaps", g[0], last)
		}
		nodes++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if nodes == 0 {
		return nil, fmt.Errorf("%s lists no node", t.indicator)
	}
	t.start = append(t.start, nodes)

	labels, name, err := readLabels(file("node_labels"), "atom")
	if err != nil {
		return nil, err
	}
	if len(labels.values) != nodes {
		return nil, fmt.Errorf("%s: %d labels, but %s lists %d nodes", name, len(labels.values), t.indicator, nodes)
	}
	t.nodeLabel, t.nodeVocab = labels.values, labels.vocab

	if err := t.readBonds(file("A"), file("edge_labels")); err != nil {
		return nil, err
	}

	name, err = scanLines(file("graph_attributes"), func(l lineRef, fields [][]byte) error {
		if len(fields) != width {
			return l.errorf("want %d comma-separated targets, got %d", width, len(fields))
		}
		if l.index >= t.graphs() {
			return l.errorf("targets for graph %d, but %s lists %d graphs", l.index+1, t.indicator, t.graphs())
		}
		for _, f := range fields {
			y, err := strconv.ParseFloat(string(f), 64)
			if err != nil || math.IsNaN(y) || math.IsInf(y, 0) {
				return l.errorf("target %q is not a finite number", f)
			}
			t.targets = append(t.targets, float64(float32(y))) // PyG reads them as float32
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if got := len(t.targets) / width; got != t.graphs() {
		return nil, fmt.Errorf("%s: %d lines of targets, but %s lists %d graphs", name, got, t.indicator, t.graphs())
	}
	return t, nil
}

// readBonds reads the edges of the A file (1-based node ids, both directions of each bond) and
// their labels, and keeps each bond once.
func (t *tuDataset) readBonds(aPath, labelPath string) error {
	nodes := t.start[len(t.start)-1]
	graphOf := func(v int) int { // the graph of node v, by binary search of start
		g, found := slices.BinarySearch(t.start, v)
		if !found {
			g--
		}
		return g
	}
	var arcs []tuBond
	var e [2]int
	aName, err := scanLines(aPath, func(l lineRef, fields [][]byte) error {
		if err := l.ints(fields, e[:]); err != nil {
			return err
		}
		for _, v := range e {
			if v < 1 || v > nodes {
				return l.errorf("node %d outside 1..%d, the nodes of %s", v, nodes, filepath.Base(t.indicator))
			}
		}
		if gu, gv := graphOf(e[0]-1), graphOf(e[1]-1); gu != gv {
			return l.errorf("edge (%d, %d) joins node %d of graph %d and node %d of graph %d", e[0], e[1], e[0], gu+1, e[1], gv+1)
		}
		arcs = append(arcs, tuBond{u: int32(e[0] - 1), v: int32(e[1] - 1), line: int32(l.line)})
		return nil
	})
	if err != nil {
		return err
	}
	if len(arcs) == 0 { // no bond category to embed: not a dataset of molecules
		return fmt.Errorf("%s lists no edge", aName)
	}
	labels, lName, err := readLabels(labelPath, "bond")
	if err != nil {
		return err
	}
	if len(labels.values) != len(arcs) {
		return fmt.Errorf("%s: %d labels, but %s lists %d edges", lName, len(labels.values), aName, len(arcs))
	}
	t.edgeVocab = labels.vocab
	for i := range arcs {
		arcs[i].label = labels.values[i]
	}
	slices.SortFunc(arcs, func(a, b tuBond) int {
		return cmp.Or(cmp.Compare(a.u, b.u), cmp.Compare(a.v, b.v), cmp.Compare(a.line, b.line))
	})
	at := func(a tuBond) lineRef { return lineRef{file: aName, line: int(a.line)} }
	for i, a := range arcs {
		if i > 0 && arcs[i-1].u == a.u && arcs[i-1].v == a.v {
			return at(a).errorf("edge (%d, %d) listed again (first on line %d)", a.u+1, a.v+1, arcs[i-1].line)
		}
		r, found := slices.BinarySearchFunc(arcs, a, func(x, target tuBond) int {
			return cmp.Or(cmp.Compare(x.u, target.v), cmp.Compare(x.v, target.u))
		})
		if !found {
			return at(a).errorf("edge (%d, %d) without its reverse (%d, %d): the TU format lists both directions of each bond", a.u+1, a.v+1, a.v+1, a.u+1)
		}
		if rev := arcs[r]; rev.label != a.label {
			return at(a).errorf("edge (%d, %d) has label category %d, its reverse (line %d) %d", a.u+1, a.v+1, a.label, rev.line, rev.label)
		}
		if a.u < a.v { // each bond once; self loops dropped, as PyG's remove_self_loops does
			t.bonds = append(t.bonds, a)
		}
	}
	t.bondStart = make([]int, len(t.start))
	for g, first := range t.start {
		t.bondStart[g], _ = slices.BinarySearchFunc(t.bonds, int32(first), func(b tuBond, u int32) int { return cmp.Compare(b.u, u) })
	}
	return nil
}

// graph returns graph g (0-based): its nodes' and bonds' categories, the bonds in increasing
// order of their end points.
func (t *tuDataset) graph(g int) (*graph.Graph, error) {
	first, n := t.start[g], t.start[g+1]-t.start[g]
	bonds := t.bonds[t.bondStart[g]:t.bondStart[g+1]]
	edges := make([]graph.Edge, len(bonds))
	feat := make([]int32, len(bonds))
	for i, b := range bonds {
		edges[i] = graph.Edge{int(b.u) - first, int(b.v) - first}
		feat[i] = b.label
	}
	gr, err := graph.New(n, edges, graph.Features{Width: 1, Ints: t.nodeLabel[first : first+n]}, graph.Features{Width: 1, Ints: feat})
	if err != nil {
		return nil, fmt.Errorf("%s: graph %d: %w", t.indicator, g+1, err)
	}
	return gr, nil
}

// standardisation returns the mean and unbiased standard deviation of each target column over
// every graph.
func (t *tuDataset) standardisation() (mean, std []float64, err error) {
	graphs := t.graphs()
	if graphs < 2 {
		return nil, nil, fmt.Errorf("%s: %d graph: the targets' standard deviation needs two or more", t.indicator, graphs)
	}
	mean, std = make([]float64, t.width), make([]float64, t.width)
	for g := range graphs {
		for j := range t.width {
			mean[j] += t.targets[g*t.width+j]
		}
	}
	for j := range mean {
		mean[j] /= float64(graphs)
	}
	for g := range graphs {
		for j := range t.width {
			d := t.targets[g*t.width+j] - mean[j]
			std[j] += d * d
		}
	}
	for j := range std {
		std[j] = math.Sqrt(std[j] / float64(graphs-1))
		if std[j] == 0 {
			return nil, nil, fmt.Errorf("%s: target %d is the same for all %d graphs: it cannot be standardised", t.indicator, j+1, graphs)
		}
	}
	return mean, std, nil
}

// tuLabels is a label file read: each line's category (its label minus the smallest) and
// their number (the largest minus the smallest, plus one), as PyG's one-hot columns.
type tuLabels struct {
	values []int32
	vocab  int
}

// readLabels reads a TU label file of one integer label per line; what names the labels in
// messages.
func readLabels(path, what string) (tuLabels, string, error) {
	var raw []int
	var v [1]int
	name, err := scanLines(path, func(l lineRef, fields [][]byte) error {
		if err := l.ints(fields, v[:]); err != nil {
			return err
		}
		raw = append(raw, v[0])
		return nil
	})
	if err != nil || len(raw) == 0 {
		return tuLabels{}, name, err
	}
	lo, hi := slices.Min(raw), slices.Max(raw)
	if hi-lo >= maxTULabels {
		return tuLabels{}, name, fmt.Errorf("%s: %s labels span %d..%d, more than the %d categories a label column may have", name, what, lo, hi, maxTULabels)
	}
	l := tuLabels{values: make([]int32, len(raw)), vocab: hi - lo + 1}
	for i, v := range raw {
		l.values[i] = int32(v - lo)
	}
	return l, name, nil
}

// readIndexFile reads a split index file of Morris et al.'s layout: one line of comma-separated
// 0-based graph indices, each below graphs (the graphs of the file listed, named in messages).
func readIndexFile(path string, graphs int, listed string) ([]int, error) {
	var ids []int
	lines := 0
	name, err := scanLines(path, func(l lineRef, fields [][]byte) error {
		if lines++; lines > 1 {
			return l.errorf("a second line: an index file is one line of comma-separated graph indices")
		}
		ids = make([]int, 0, len(fields))
		for i := range fields {
			id, err := l.int(fields[i])
			if err != nil {
				return err
			}
			if id < 0 || id >= graphs {
				return l.errorf("graph index %d outside [0, %d), the graphs of %s", id, graphs, filepath.Base(listed))
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err == nil && len(ids) == 0 {
		err = fmt.Errorf("%s: no graph index", name)
	}
	return ids, err
}

// lineRef is a line of a text file, for parsing and error messages: its number from 1, and
// its index among the file's non-blank lines from 0.
type lineRef struct {
	file        string
	line, index int
}

func (l lineRef) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", l.file, l.line, fmt.Sprintf(format, args...))
}

// int parses a field as a decimal integer of at most 18 digits (TU ids and labels), without
// allocating: the TU files have millions.
func (l lineRef) int(field []byte) (int, error) {
	digits, sign := field, 1
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		if digits[0] == '-' {
			sign = -1
		}
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, l.errorf("%q is not an integer", field)
	}
	v := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, l.errorf("%q is not an integer", field)
		}
		v = 10*v + int(c-'0')
	}
	return sign * v, nil
}

// ints parses exactly len(out) integer fields into out.
func (l lineRef) ints(fields [][]byte, out []int) error {
	if len(fields) != len(out) {
		return l.errorf("want %d comma-separated integers, got %d fields", len(out), len(fields))
	}
	for i, f := range fields {
		v, err := l.int(f)
		if err != nil {
			return err
		}
		out[i] = v
	}
	return nil
}

// scanLines calls f with each non-blank line of the file at path (or path.gz, see readFile),
// split at commas, each field without surrounding blanks, and returns the name read.
func scanLines(path string, f func(lineRef, [][]byte) error) (string, error) {
	raw, name, err := readFile(path)
	if err != nil {
		return name, err
	}
	var fields [][]byte
	l := lineRef{file: name}
	for len(raw) > 0 {
		l.line++
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		fields = fields[:0]
		for field := range bytes.SplitSeq(line, []byte(",")) {
			fields = append(fields, bytes.TrimSpace(field))
		}
		if err := f(l, fields); err != nil {
			return name, err
		}
		l.index++
	}
	return name, nil
}
