package data

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/types"

	"github.com/sgformer/sgformer/internal/csvfile"
	"github.com/sgformer/sgformer/internal/torchpickle"
)

// LRGB's Peptides datasets (Dwivedi et al., "Long Range Graph Benchmark", NeurIPS 2022), as
// LRGB's loaders read them (graphgps/loader/dataset/peptides_functional.py and
// peptides_structural.py in vijaydwivedi75/lrgb and rampasek/GraphGPS): 15,535 peptides as
// SMILES, featurised with OGB's smiles2graph, and a random stratified split.
const (
	peptidesFuncCSV     = "peptide_multi_class_dataset.csv.gz"
	peptidesFuncSplit   = "splits_random_stratified_peptide"
	peptidesStructCSV   = "peptide_structure_dataset.csv.gz"
	peptidesStructSplit = "splits_random_stratified_peptide_structure"
)

// PeptidesFuncClasses are Peptides-func's 10 functional classes, in the order of its labels
// (LRGB's peptides_functional.py).
var PeptidesFuncClasses = []string{"antifungal", "cell_cell_communication", "anticancer", "drug_delivery_vehicle",
	"antimicrobial", "antiviral", "antihypertensive", "antibacterial", "antiparasitic", "toxic"}

// PeptidesStructTargets are Peptides-struct's 11 regression targets, the columns of its CSV
// (LRGB's peptides_structural.py).
var PeptidesStructTargets = []string{"Inertia_mass_a", "Inertia_mass_b", "Inertia_mass_c",
	"Inertia_valence_a", "Inertia_valence_b", "Inertia_valence_c", "length_a", "length_b", "length_c",
	"Spherocity", "Plane_best_fit"}

// PeptidesFunc reads LRGB's Peptides-func from dir: peptide_multi_class_dataset.csv.gz (columns
// index, smiles, peptide_seq, labels, identifier; labels a 10-way multi-hot list such as
// "[0, 0, 1, 0, 0, 0, 0, 0, 0, 1]", PeptidesFuncClasses) in dir or dir/raw (GraphGPS's folder),
// and the split splits_random_stratified_peptide.json (train, val and test row indices, as in
// shared/data) or .pickle (LRGB's download: NumPy arrays). Each SMILES is featurised with OGB's
// rules (MoleculeGraphs) in parallel. Errors name the file, line and column.
func PeptidesFunc(dir string) (*Dataset, error) {
	return readPeptides(dir, "peptides-func", peptidesFuncCSV, peptidesFuncSplit, []string{"labels"}, PeptidesFuncClasses,
		func(fields []string, out []float64) error {
			s, ok := strings.CutPrefix(strings.TrimSpace(fields[0]), "[")
			if s, ok = strings.CutSuffix(s, "]"); !ok {
				return fmt.Errorf("labels %q: want a list such as [0, 1, 0, ...]", fields[0])
			}
			parts := strings.Split(s, ",")
			if len(parts) != len(out) {
				return fmt.Errorf("labels %q: %d values, want %d", fields[0], len(parts), len(out))
			}
			for i, p := range parts {
				y, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
				if err != nil || y != 0 && y != 1 {
					return fmt.Errorf("labels %q: %q is not 0 or 1", fields[0], strings.TrimSpace(p))
				}
				out[i] = y
			}
			return nil
		})
}

// PeptidesStruct reads LRGB's Peptides-struct from dir: peptide_structure_dataset.csv.gz (a
// smiles column and the 11 target columns of PeptidesStructTargets) in dir or dir/raw, and the
// split splits_random_stratified_peptide_structure.json or .pickle. As LRGB's loader does, each
// target is standardised over the whole dataset to zero mean and unit standard deviation
// (pandas' std, with n − 1), and stored as float32, as PyG's data.y.
func PeptidesStruct(dir string) (*Dataset, error) {
	ds, err := readPeptides(dir, "peptides-struct", peptidesStructCSV, peptidesStructSplit, PeptidesStructTargets, PeptidesStructTargets,
		func(fields []string, out []float64) error {
			for i, f := range fields {
				y, err := label(f)
				if err != nil {
					return fmt.Errorf("column %q: %w", PeptidesStructTargets[i], err)
				}
				out[i] = y
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	standardize(ds.Labels, ds.Tasks)
	return ds, nil
}

// standardize sets each of the tasks columns of the row-major labels to zero mean and unit
// sample standard deviation over its present (not NaN) values, rounded to float32.
func standardize(labels []float64, tasks int) {
	for t := range tasks {
		var sum float64
		n := 0
		for i := t; i < len(labels); i += tasks {
			if !math.IsNaN(labels[i]) {
				sum += labels[i]
				n++
			}
		}
		if n < 2 {
			continue
		}
		mean := sum / float64(n)
		var ss float64
		for i := t; i < len(labels); i += tasks {
			if !math.IsNaN(labels[i]) {
				ss += (labels[i] - mean) * (labels[i] - mean)
			}
		}
		std := math.Sqrt(ss / float64(n-1))
		for i := t; i < len(labels); i += tasks {
			if std > 0 {
				labels[i] = float64(float32((labels[i] - mean) / std))
			}
		}
	}
}

// readPeptides reads one of LRGB's peptide CSVs and its split: the SMILES of the smiles column,
// and the labels that parse makes of the fields of columns.
func readPeptides(dir, name, csvName, splitBase string, columns, labelNames []string, parse func(fields []string, out []float64) error) (*Dataset, error) {
	path, err := findFile(dir, csvName, filepath.Join("raw", csvName))
	if err != nil {
		return nil, err
	}
	r, err := csvfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	smilesCol, err := r.Column("smiles")
	if err != nil {
		return nil, err
	}
	cols := make([]int, len(columns))
	for i, c := range columns {
		if cols[i], err = r.Column(c); err != nil {
			return nil, err
		}
	}
	var ss []string
	var lines []int
	var labels []float64
	fields := make([]string, len(cols))
	for {
		rec, line, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for i, c := range cols {
			fields[i] = rec[c]
		}
		row := make([]float64, len(labelNames))
		if err := parse(fields, row); err != nil {
			return nil, r.Errorf(line, "%v", err)
		}
		ss, lines, labels = append(ss, rec[smilesCol]), append(lines, line), append(labels, row...)
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("%s: no molecules", path)
	}
	graphs, err := featurize(path, "smiles", ss, lines)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Name: name, Graphs: graphs, Tasks: len(labelNames), Labels: labels, LabelNames: labelNames,
		NodeVocab: AtomFeatureDims, EdgeVocab: BondFeatureDims}
	splitPath, err := findFile(dir, splitBase+".json", splitBase+".pickle")
	if err != nil {
		return nil, err
	}
	if ds.Split, err = readSplitFile(splitPath, len(graphs), filepath.Base(path)); err != nil {
		return nil, err
	}
	return ds, nil
}

// findFile returns the first of names (relative to dir) that exists; the error, wrapping
// os.ErrNotExist, names them all.
func findFile(dir string, names ...string) (string, error) {
	for _, name := range names {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
	}
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = filepath.Join(dir, name)
	}
	return "", fmt.Errorf("%w: none of %s", os.ErrNotExist, strings.Join(paths, ", "))
}

// readSplitFile reads a split file like LRGB's, for the graphs (rows) of the file listed: a
// JSON object, or a pickled dict (LRGB's download, of NumPy arrays), with the row indices
// "train", "val" (or "valid") and "test".
func readSplitFile(path string, graphs int, listed string) (Split, error) {
	parts := map[string][]int{}
	if strings.HasSuffix(path, ".pickle") || strings.HasSuffix(path, ".pkl") {
		var err error
		if parts, err = readSplitPickle(path); err != nil {
			return Split{}, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		raw, err := os.ReadFile(path)
		if err != nil {
			return Split{}, err
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return Split{}, fmt.Errorf(`%s: %w (want {"train": [...], "val": [...], "test": [...]}, row indices from 0)`, path, err)
		}
	}
	if v, ok := parts["valid"]; ok {
		if _, both := parts["val"]; both {
			return Split{}, fmt.Errorf(`%s: both "val" and "valid"`, path)
		}
		parts["val"] = v
		delete(parts, "valid")
	}
	for key := range parts {
		if key != "train" && key != "val" && key != "test" {
			return Split{}, fmt.Errorf(`%s: unknown part %q (want train, val and test)`, path, key)
		}
	}
	for _, key := range []string{"train", "val", "test"} {
		if _, ok := parts[key]; !ok {
			return Split{}, fmt.Errorf(`%s: no part %q (want train, val and test)`, path, key)
		}
	}
	s := Split{Train: parts["train"], Valid: parts["val"], Test: parts["test"]}
	return s, s.check(path, graphs, listed)
}

// readSplitPickle reads a pickled dict of parts, each a NumPy (or torch) array of integers or a
// list of ints.
func readSplitPickle(path string) (map[string][]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := torchpickle.Unpickle(f)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*types.Dict)
	if !ok {
		return nil, fmt.Errorf("a pickled %T, want a dict of index arrays", v)
	}
	parts := map[string][]int{}
	for _, e := range *d {
		key, ok := e.Key.(string)
		if !ok {
			return nil, fmt.Errorf("key %v is not a string", e.Key)
		}
		var ids []int
		switch x := e.Value.(type) {
		case *torchpickle.Tensor:
			if !x.Integer() || len(x.Shape) != 1 {
				return nil, fmt.Errorf("%s: a %s array of shape %v, want a vector of indices", key, x.DType(), x.Shape)
			}
			for i := range x.Len() {
				ids = append(ids, int(x.Int(i)))
			}
		case *types.List:
			for i := range x.Len() {
				id, ok := x.Get(i).(int)
				if !ok {
					return nil, fmt.Errorf("%s[%d]: %v is not an index", key, i, x.Get(i))
				}
				ids = append(ids, id)
			}
		default:
			return nil, fmt.Errorf("%s: a %T, want an array of indices", key, e.Value)
		}
		parts[key] = ids
	}
	return parts, nil
}
