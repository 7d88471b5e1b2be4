package data

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/data/smiles"
	"github.com/sgformer/sgformer/internal/csvfile"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// OGB's molecular featurisation (ogb.utils.features): the number of categories of each of the
// 9 atom features (atomic number, chirality, degree, formal charge, number of Hs, radical
// electrons, hybridisation, aromatic, in ring) and the 3 bond features (type, stereo,
// conjugated). A model embeds each with its own table and sums them, as OGB's AtomEncoder and
// BondEncoder do. They are copies of smiles.AtomFeatureDims and smiles.BondFeatureDims, the
// featuriser's, as slices (a dataset's vocabularies).
var (
	AtomFeatureDims = slices.Clone(smiles.AtomFeatureDims[:])
	BondFeatureDims = slices.Clone(smiles.BondFeatureDims[:])
)

// OGB file names inside a dataset directory, as in OGB's download (each gzip-compressed;
// uncompressed copies without the ".gz" are read too).
const (
	ogbNumNodes = "raw/num-node-list.csv"
	ogbNumEdges = "raw/num-edge-list.csv"
	ogbNodeFeat = "raw/node-feat.csv"
	ogbEdges    = "raw/edge.csv"
	ogbEdgeFeat = "raw/edge-feat.csv"
	ogbLabels   = "raw/graph-label.csv"
	ogbSplitDir = "split/scaffold" // train.csv, valid.csv, test.csv: graph indices
)

// OGB reads an OGB graph-property-prediction molecule dataset (ogbg-molesol, ogbg-molbace,
// ogbg-molhiv, ...) named name from OGB's download layout in dir: per-graph node and edge
// counts, OGB's 9 atom and 3 bond integer features (checked against AtomFeatureDims and
// BondFeatureDims), edges once per bond with graph-local node ids, one row of task labels per
// graph (empty or "nan" entries are missing and stay NaN), and the scaffold split. Errors
// name the file and line. The files must agree: as many node and edge lines as the counts
// add up to, a label line per graph, edges between existing nodes, split indices of listed
// graphs. Lines cut off at the end of every file alike can still read as valid data; Load
// also checks the copy against the published dataset.
func OGB(name, dir string) (*Dataset, error) { return readOGB(name, dir, ogbSplitDir) }

// readOGB reads OGB's raw layout from dir with the split in the folder splitDir.
func readOGB(name, dir, splitDir string) (*Dataset, error) {
	csv := func(file, header string, width int) (*table, error) {
		return readTable(filepath.Join(dir, file), header, width, func(s string) []string {
			return strings.Split(strings.TrimSpace(s), ",")
		})
	}
	numNodes, err := csv(ogbNumNodes, "nodes", 1)
	if err != nil {
		return nil, err
	}
	numEdges, err := csv(ogbNumEdges, "edges", 1)
	if err != nil {
		return nil, err
	}
	nodeFeat, err := csv(ogbNodeFeat, "9 atom features", len(AtomFeatureDims))
	if err != nil {
		return nil, err
	}
	edges, err := csv(ogbEdges, "u,v", 2)
	if err != nil {
		return nil, err
	}
	edgeFeat, err := csv(ogbEdgeFeat, "3 bond features", len(BondFeatureDims))
	if err != nil {
		return nil, err
	}
	labels, err := csv(ogbLabels, "task labels", 0)
	if err != nil {
		return nil, err
	}
	graphs := len(numNodes.rows)
	if graphs == 0 {
		return nil, fmt.Errorf("%s lists no graph", numNodes.name)
	}
	for _, t := range []*table{numEdges, labels} {
		if len(t.rows) != graphs {
			return nil, fmt.Errorf("%s: %d rows, but %s lists %d graphs", t.name, len(t.rows), numNodes.name, graphs)
		}
	}
	if len(edgeFeat.rows) != len(edges.rows) {
		return nil, fmt.Errorf("%s: %d rows, but %s has %d edges", edgeFeat.name, len(edgeFeat.rows), edges.name, len(edges.rows))
	}

	ds := &Dataset{Name: name, Graphs: make([]*graph.Graph, graphs), NodeVocab: AtomFeatureDims, EdgeVocab: BondFeatureDims}
	nextNode, nextEdge := 0, 0
	for g := range graphs {
		n, err := count(numNodes.rows[g])
		if err != nil {
			return nil, err
		}
		m, err := count(numEdges.rows[g])
		if err != nil {
			return nil, err
		}
		if n > len(nodeFeat.rows)-nextNode {
			return nil, fmt.Errorf("%s: %d rows, but %s needs more for graph %d (line %d)", nodeFeat.name, len(nodeFeat.rows), numNodes.name, g, numNodes.rows[g].line)
		}
		if m > len(edges.rows)-nextEdge {
			return nil, fmt.Errorf("%s: %d rows, but %s needs more for graph %d (line %d)", edges.name, len(edges.rows), numEdges.name, g, numEdges.rows[g].line)
		}
		nf, err := categories(nodeFeat.rows[nextNode:nextNode+n], AtomFeatureDims, "atom feature")
		if err != nil {
			return nil, err
		}
		ef, err := categories(edgeFeat.rows[nextEdge:nextEdge+m], BondFeatureDims, "bond feature")
		if err != nil {
			return nil, err
		}
		es := make([]graph.Edge, m)
		for i, r := range edges.rows[nextEdge : nextEdge+m] {
			if es[i][0], err = r.int(0); err != nil {
				return nil, err
			}
			if es[i][1], err = r.int(1); err != nil {
				return nil, err
			}
		}
		gr, err := graph.New(n, es, graph.Features{Width: len(AtomFeatureDims), Ints: nf}, graph.Features{Width: len(BondFeatureDims), Ints: ef})
		if err != nil {
			var ee *graph.EdgeError
			if errors.As(err, &ee) {
				return nil, edges.rows[nextEdge+ee.Index].errorf("graph %d: %s (%s gives it %d nodes)", g, ee.Reason, filepath.Base(numNodes.name), n)
			}
			return nil, fmt.Errorf("%s: graph %d: %w", edges.name, g, err)
		}
		ds.Graphs[g] = gr
		nextNode += n
		nextEdge += m
	}
	if nextNode != len(nodeFeat.rows) || nextEdge != len(edges.rows) {
		return nil, fmt.Errorf("%s and %s list %d nodes and %d edges, but %s has %d rows and %s %d",
			numNodes.name, numEdges.name, nextNode, nextEdge, nodeFeat.name, len(nodeFeat.rows), edges.name, len(edges.rows))
	}

	ds.Tasks = len(labels.rows[0].fields)
	ds.Labels = make([]float64, 0, graphs*ds.Tasks)
	for _, r := range labels.rows {
		if len(r.fields) != ds.Tasks {
			return nil, r.errorf("%d labels, the first line has %d", len(r.fields), ds.Tasks)
		}
		for _, f := range r.fields {
			y, err := label(f)
			if err != nil {
				return nil, r.errorf("%v", err)
			}
			ds.Labels = append(ds.Labels, y)
		}
	}

	ds.LabelNames = ogbTaskNames(dir, ds.Tasks)

	parts := make([][]int, 3)
	for i, part := range []string{"train", "valid", "test"} {
		t, err := csv(filepath.Join(splitDir, part+".csv"), "graph index", 1)
		if err != nil {
			return nil, err
		}
		for _, r := range t.rows {
			id, err := r.int(0)
			if err != nil {
				return nil, err
			}
			parts[i] = append(parts[i], id)
		}
	}
	ds.Split = Split{Train: parts[0], Valid: parts[1], Test: parts[2]}
	if err := ds.Split.check(filepath.Join(dir, splitDir), graphs, filepath.Base(numNodes.name)); err != nil {
		return nil, err
	}
	return ds, nil
}

// ogbTaskNames returns the names of the tasks from the header of OGB's mapping/mol.csv.gz
// (every column but smiles and mol_id), nil when the file is absent or names another number.
func ogbTaskNames(dir string, tasks int) []string {
	r, err := csvfile.Open(filepath.Join(dir, "mapping", "mol.csv.gz"))
	if err != nil {
		return nil
	}
	defer r.Close()
	var names []string
	for _, h := range r.Header {
		if h != "smiles" && h != "mol_id" {
			names = append(names, h)
		}
	}
	if len(names) != tasks {
		return nil
	}
	return names
}

// count parses a non-negative count.
func count(r row) (int, error) {
	n, err := r.int(0)
	if err == nil && n < 0 {
		err = r.errorf("negative count %d", n)
	}
	return n, err
}

// categories parses rows of integer features, column j in [0, dims[j]).
func categories(rows []row, dims []int, what string) ([]int32, error) {
	out := make([]int32, 0, len(rows)*len(dims))
	for _, r := range rows {
		for j := range dims {
			x, err := r.int(j)
			if err != nil {
				return nil, err
			}
			if x < 0 || x >= dims[j] {
				return nil, r.errorf("%s column %d is %d, outside [0, %d)", what, j, x, dims[j]) // columns from 0, as the model's errors count them
			}
			out = append(out, int32(x))
		}
	}
	return out, nil
}

// label parses one task label: a finite number, or missing (empty or NaN) as NaN.
func label(f string) (float64, error) {
	f = strings.TrimSpace(f)
	if f == "" || strings.EqualFold(f, "nan") {
		return math.NaN(), nil
	}
	y, err := strconv.ParseFloat(f, 64)
	if err != nil || math.IsInf(y, 0) || math.IsNaN(y) {
		return 0, fmt.Errorf("label %q is neither a finite number nor missing (empty or nan)", f)
	}
	return y, nil
}
