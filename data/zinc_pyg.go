package data

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/types"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/internal/torchpickle"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// pygSplits are the split names of PyG's ZINC files, in the order of the dataset's graphs.
var pygSplits = []string{"train", "val", "test"}

// molecule is one ZINC graph as PyG builds it: atom types, each bond once (u < v) with its type,
// and the target rounded to float32 (PyG's y).
type molecule struct {
	atoms     []int32
	bonds     []graph.Edge
	bondTypes []int32
	y         float64
}

// zincPickles reads ZINC-12k from benchmarking-gnns' pickles, the canonical download that PyG's
// ZINC(subset=True) keeps in its raw folder: {train,val,test}.pickle (lists of dicts with
// "atom_type", "bond_type" (the n×n bond-type matrix) and "logP_SA_cycle_normalized") and the
// subset's indices {train,val,test}.index (comma-separated), read as PyG's ZINC.process does.
func zincPickles(dir string) (*Dataset, error) { return readZINCPickles(dir, "zinc12k", true) }

// ZINCFull reads ZINC-full, every molecule of benchmarking-gnns' pickles (220,011 / 24,445 /
// 5,000 in the canonical download), as PyG's ZINC(subset=False) does: {train,val,test}.pickle
// in dir or in dir/raw (PyG's dataset folder), graphs numbered train, val, test in the pickles'
// order. The encoding is ZINC-12k's.
func ZINCFull(dir string) (*Dataset, error) {
	if _, err := os.Stat(filepath.Join(dir, "raw", "train.pickle")); err == nil {
		dir = filepath.Join(dir, "raw")
	}
	return readZINCPickles(dir, "zinc-full", false)
}

// readZINCPickles reads the pickles in dir: the molecules the index files list when subset is
// true, else all of them.
func readZINCPickles(dir, name string, subset bool) (*Dataset, error) {
	var splits [][]molecule
	for _, split := range pygSplits {
		var index []int
		if subset {
			var err error
			if index, err = readIndex(filepath.Join(dir, split+".index")); err != nil {
				return nil, err
			}
		}
		path := filepath.Join(dir, split+".pickle")
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		v, err := torchpickle.Unpickle(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		list, ok := v.(*types.List)
		if !ok {
			return nil, fmt.Errorf("%s: holds a %T, want a list of molecules", path, v)
		}
		if !subset {
			index = make([]int, list.Len())
			for i := range index {
				index[i] = i
			}
		}
		mols := make([]molecule, len(index))
		for i, at := range index {
			if at >= list.Len() {
				return nil, fmt.Errorf("%s: molecule %d, but %s holds %d", filepath.Join(dir, split+".index"), at, path, list.Len())
			}
			if mols[i], err = pickledMolecule(list.Get(at)); err != nil {
				return nil, fmt.Errorf("%s: molecule %d: %w", path, at, err)
			}
		}
		splits = append(splits, mols)
	}
	return zincDataset(name, splits)
}

// readIndex reads a benchmarking-gnns index file: molecule numbers separated by commas.
func readIndex(path string) ([]int, error) {
	raw, name, err := readFile(path)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(strings.TrimSpace(string(raw)), ",")
	index := make([]int, len(fields))
	for i, f := range fields {
		if index[i], err = strconv.Atoi(strings.TrimSpace(f)); err != nil || index[i] < 0 {
			return nil, fmt.Errorf("%s: entry %d: %q is not a molecule number", name, i+1, f)
		}
	}
	return index, nil
}

// pickledMolecule converts one benchmarking-gnns molecule dict.
func pickledMolecule(v any) (molecule, error) {
	d, ok := v.(*types.Dict)
	if !ok {
		return molecule{}, fmt.Errorf("a %T, want a dict", v)
	}
	field := func(key string) (*torchpickle.Tensor, error) {
		t, ok := d.Get(key)
		if !ok {
			return nil, fmt.Errorf("no %q", key)
		}
		if t, ok := t.(*torchpickle.Tensor); ok {
			return t, nil
		}
		return nil, fmt.Errorf("%q is a %T, want a tensor", key, t)
	}
	atoms, err := field("atom_type")
	if err != nil {
		return molecule{}, err
	}
	adj, err := field("bond_type")
	if err != nil {
		return molecule{}, err
	}
	y, err := field("logP_SA_cycle_normalized")
	if err != nil {
		return molecule{}, err
	}
	n := atoms.Len()
	if !slices.Equal(adj.Shape, []int{n, n}) || !adj.Integer() {
		return molecule{}, fmt.Errorf("bond_type: %s %v, want an integer [%d %d] matrix", adj.DType(), adj.Shape, n, n)
	}
	if y.Len() != 1 {
		return molecule{}, fmt.Errorf("logP_SA_cycle_normalized: %d values, want 1", y.Len())
	}
	m := molecule{atoms: make([]int32, n), y: float64(float32(y.Float(0)))}
	for i := range n {
		m.atoms[i] = int32(atoms.Int(i))
	}
	for u := range n {
		for v := u + 1; v < n; v++ {
			b, back := adj.Int(u*n+v), adj.Int(v*n+u)
			if b != back {
				return molecule{}, fmt.Errorf("bond_type: not symmetric: [%d,%d] = %d, [%d,%d] = %d", u, v, b, v, u, back)
			}
			if b != 0 {
				m.bonds = append(m.bonds, graph.Edge{u, v})
				m.bondTypes = append(m.bondTypes, int32(b))
			}
		}
		if adj.Int(u*n+u) != 0 {
			return molecule{}, fmt.Errorf("bond_type: atom %d bonded to itself", u)
		}
	}
	return m, nil
}

// zincProcessed reads PyG's processed ZINC(subset=True) files {train,val,test}.pt in dir: a
// torch.save of the collated split (x, edge_index in both directions, edge_attr, y) and its
// slices, as PyG's InMemoryDataset writes it (a Data object or, since PyG 2.4, its dict).
func zincProcessed(dir string) (*Dataset, error) {
	var splits [][]molecule
	for _, split := range pygSplits {
		mols, err := readProcessed(filepath.Join(dir, split+".pt"))
		if err != nil {
			return nil, err
		}
		splits = append(splits, mols)
	}
	return zincDataset("zinc12k", splits)
}

// readProcessed reads the molecules of one processed PyG file.
func readProcessed(path string) ([]molecule, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := torchpickle.Load(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	mols, err := processedMolecules(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return mols, nil
}

func processedMolecules(v any) ([]molecule, error) {
	t, ok := v.(*types.Tuple)
	if !ok || t.Len() < 2 {
		return nil, fmt.Errorf("holds a %T, want PyG's (data, slices, ...)", v)
	}
	store := t.Get(0)
	if o, ok := store.(*torchpickle.Object); ok { // Data → _store (GlobalStorage) → _mapping
		if s, ok := o.Fields["_store"].(*torchpickle.Object); ok {
			store = s.Fields["_mapping"]
		}
	}
	get := func(v any, what, key string) (*torchpickle.Tensor, error) {
		d, ok := v.(*types.Dict)
		if !ok {
			return nil, fmt.Errorf("%ss: a %T, want a dict", what, v)
		}
		t, ok := d.Get(key)
		if !ok {
			return nil, fmt.Errorf("no %s %q", what, key)
		}
		tensor, ok := t.(*torchpickle.Tensor)
		if !ok || !tensor.Integer() && key != "y" {
			return nil, fmt.Errorf("%s %q: a %T, want an integer tensor", what, key, t)
		}
		return tensor, nil
	}
	var tensors, slice [4]*torchpickle.Tensor
	for i, key := range []string{"x", "edge_index", "edge_attr", "y"} {
		var err error
		if tensors[i], err = get(store, "tensor", key); err != nil {
			return nil, err
		}
		if slice[i], err = get(t.Get(1), "slice", key); err != nil {
			return nil, err
		}
	}
	x, edgeIndex, edgeAttr, y := tensors[0], tensors[1], tensors[2], tensors[3]
	graphs := slice[0].Len() - 1
	edges := edgeAttr.Len()
	switch {
	case graphs < 0 || slice[1].Len() != graphs+1 || slice[2].Len() != graphs+1 || slice[3].Len() != graphs+1:
		return nil, fmt.Errorf("slices of %d, %d, %d and %d entries, want equal", slice[0].Len(), slice[1].Len(), slice[2].Len(), slice[3].Len())
	case len(edgeIndex.Shape) != 2 || edgeIndex.Shape[0] != 2 || edgeIndex.Shape[1] != edges:
		return nil, fmt.Errorf("edge_index of shape %v, want [2 %d]", edgeIndex.Shape, edges)
	case x.Len() != int(slice[0].Int(graphs)) || edges != int(slice[1].Int(graphs)) || y.Len() != graphs:
		return nil, fmt.Errorf("%d atoms, %d bonds, %d targets; the slices say %d, %d, %d", x.Len(), edges, y.Len(), slice[0].Int(graphs), slice[1].Int(graphs), graphs)
	}
	mols := make([]molecule, graphs)
	for g := range mols {
		lo, hi := int(slice[0].Int(g)), int(slice[0].Int(g+1))
		elo, ehi := int(slice[1].Int(g)), int(slice[1].Int(g+1))
		if lo < 0 || lo > hi || hi > x.Len() || elo < 0 || elo > ehi || ehi > edges || slice[2].Int(g) != int64(elo) {
			return nil, fmt.Errorf("graph %d: slices out of order", g)
		}
		m := molecule{atoms: make([]int32, hi-lo), y: float64(float32(y.Float(g)))}
		for i := range m.atoms {
			m.atoms[i] = int32(x.Int(lo + i))
		}
		// Each bond is listed in both directions with the same type; keep u < v.
		seen := map[graph.Edge]int64{}
		for e := elo; e < ehi; e++ {
			u, v, b := int(edgeIndex.Int(e)), int(edgeIndex.Int(edges+e)), edgeAttr.Int(e)
			if u < 0 || v < 0 || u >= len(m.atoms) || v >= len(m.atoms) || u == v {
				return nil, fmt.Errorf("graph %d: edge %d (%d,%d) outside its %d atoms or a loop", g, e-elo, u, v, len(m.atoms))
			}
			key := graph.Edge{min(u, v), max(u, v)}
			if prev, ok := seen[key]; ok {
				if prev != b {
					return nil, fmt.Errorf("graph %d: bond (%d,%d) has types %d and %d", g, key[0], key[1], prev, b)
				}
				delete(seen, key)
				m.bonds = append(m.bonds, key)
				m.bondTypes = append(m.bondTypes, int32(b))
				continue
			}
			seen[key] = b
		}
		if len(seen) > 0 {
			return nil, fmt.Errorf("graph %d: %d bonds listed in one direction only", g, len(seen))
		}
		mols[g] = m
	}
	return mols, nil
}

// zincDataset assembles a ZINC dataset from its splits, graphs numbered train, val, test in
// order (as in the text export and PyG).
func zincDataset(name string, splits [][]molecule) (*Dataset, error) {
	ds := &Dataset{Name: name, Tasks: 1, NodeVocab: []int{zincAtomTypes}, EdgeVocab: []int{zincBondTypes + 1}, EdgeMin: []int{1}}
	parts := []*[]int{&ds.Split.Train, &ds.Split.Valid, &ds.Split.Test}
	for s, mols := range splits {
		for _, m := range mols {
			g := len(ds.Graphs)
			for _, a := range m.atoms {
				if a < 0 || a >= zincAtomTypes {
					return nil, fmt.Errorf("%s graph %d: atom type %d outside [0, %d)", pygSplits[s], len(*parts[s]), a, zincAtomTypes)
				}
			}
			for _, b := range m.bondTypes {
				if b < 1 || b > zincBondTypes {
					return nil, fmt.Errorf("%s graph %d: bond type %d outside 1..%d", pygSplits[s], len(*parts[s]), b, zincBondTypes)
				}
			}
			bonds := m.bonds
			order := make([]int, len(bonds)) // bonds sorted, as the text export lists them
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(i, j int) int {
				return cmp.Or(cmp.Compare(bonds[i][0], bonds[j][0]), cmp.Compare(bonds[i][1], bonds[j][1]))
			})
			sorted, kinds := make([]graph.Edge, len(order)), make([]int32, len(order))
			for i, o := range order {
				sorted[i], kinds[i] = bonds[o], m.bondTypes[o]
			}
			gr, err := graph.New(len(m.atoms), sorted, graph.Features{Width: 1, Ints: m.atoms}, graph.Features{Width: 1, Ints: kinds})
			if err != nil {
				return nil, fmt.Errorf("%s graph %d: %w", pygSplits[s], len(*parts[s]), err)
			}
			ds.Graphs = append(ds.Graphs, gr)
			ds.Labels = append(ds.Labels, m.y)
			*parts[s] = append(*parts[s], g)
		}
	}
	return ds, nil
}

// convertZINC turns the canonical download in dir (pickles and indices) into the text export.
func convertZINC(dir string) error {
	ds, err := zincPickles(dir)
	if err != nil {
		return err
	}
	return writeZINC(ds, dir)
}

// writeZINC writes ds as the text export ZINC reads (ZINC_*.txt.gz and ZINC_splits.json) into dir.
func writeZINC(ds *Dataset, dir string) error {
	var nodes, edges, labels strings.Builder
	for g, gr := range ds.Graphs {
		for v, a := range gr.NodeFeatures.Ints {
			fmt.Fprintf(&nodes, "%d %d %d\n", g, v, a)
		}
		for i, e := range gr.Edges() {
			fmt.Fprintf(&edges, "%d %d %d %d\n", g, e[0], e[1], gr.EdgeFeatures.Ints[i])
		}
		fmt.Fprintf(&labels, "%d %s\n", g, strconv.FormatFloat(ds.Labels[g], 'g', -1, 64))
	}
	for name, text := range map[string]string{zincNodes: nodes.String(), zincEdges: edges.String(), zincLabels: labels.String()} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(text))
		if err := zw.Close(); err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(dir, name+".gz"), buf.Bytes()); err != nil {
			return err
		}
	}
	split, err := json.Marshal([]map[string]any{{"test": ds.Split.Test,
		"model_selection": []map[string][]int{{"train": ds.Split.Train, "validation": ds.Split.Valid}}}})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, zincSplits), split)
}

// Digest is a SHA-256 of the dataset's content — graphs (nodes, features, edges in any order and
// direction), labels and split — independent of the files it was read from: the same for
// ZINC-12k read from the text export, from benchmarking-gnns' pickles or from PyG's files. It
// hashes every value as a little-endian int64 (real features as their float32 bits, labels as
// their float64 bits), through a buffer, so that it costs a tenth of the time reading the
// files takes (ogbg-molhiv: 0.5 s against 5 s on a loaded 2-core machine).
func (ds *Dataset) Digest() string {
	d := digester{h: sha256.New(), buf: make([]byte, 0, 1<<16)}
	d.put(int64(len(ds.Graphs)), int64(ds.Tasks))
	var rows []int64 // one graph's node features, then its edges: min, max, features
	var order []int32
	for _, g := range ds.Graphs {
		nf, ef := g.NodeFeatures, g.EdgeFeatures
		d.put(int64(g.N()), int64(nf.Width), int64(ef.Width), int64(g.NumEdges()))
		rows = rows[:0]
		for v := range g.N() {
			rows = appendRow(rows, nf, v)
		}
		d.put(rows...)
		w := 2 + ef.Width
		if ef.Empty() {
			w = 2
		}
		rows, order = rows[:0], order[:0]
		for i, e := range g.Edges() {
			rows = append(rows, int64(min(e[0], e[1])), int64(max(e[0], e[1])))
			rows = appendRow(rows, ef, i)
			order = append(order, int32(i))
		}
		slices.SortFunc(order, func(a, b int32) int {
			return slices.Compare(rows[int(a)*w:int(a+1)*w], rows[int(b)*w:int(b+1)*w])
		})
		for _, i := range order {
			d.put(rows[int(i)*w : int(i+1)*w]...)
		}
	}
	for _, y := range ds.Labels {
		d.put(int64(math.Float64bits(y)))
	}
	for _, part := range [][]int{ds.Split.Train, ds.Split.Valid, ds.Split.Test} {
		d.put(int64(len(part)))
		for _, i := range part {
			d.put(int64(i))
		}
	}
	d.flush()
	return hex.EncodeToString(d.h.Sum(nil))
}

// digester feeds int64 values to a hash through a buffer.
type digester struct {
	h   hash.Hash
	buf []byte
}

func (d *digester) put(vs ...int64) {
	for _, v := range vs {
		d.buf = binary.LittleEndian.AppendUint64(d.buf, uint64(v))
	}
	if len(d.buf) >= 1<<15 {
		d.flush()
	}
}

func (d *digester) flush() {
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
}

// appendRow appends feature row i of f as Digest hashes it.
func appendRow(dst []int64, f graph.Features, i int) []int64 {
	for c := i * f.Width; c < (i+1)*f.Width; c++ {
		if f.Ints != nil {
			dst = append(dst, int64(f.Ints[c]))
		} else if f.Floats != nil {
			dst = append(dst, int64(math.Float32bits(f.Floats[c])))
		}
	}
	return dst
}
