package data

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/internal/csvfile"
)

// Task is the kind of prediction the labels of a table of molecules ask for.
type Task string

// The tasks of a table of molecules.
const (
	// Regression labels are real numbers.
	Regression Task = "regression"
	// Classification labels are 0 or 1, one binary task per label column.
	Classification Task = "classification"
)

// The splits of a table of molecules, besides a split file.
const (
	// SplitRandom is RandomSplit: 80/10/10 at random, from CSVOptions.Seed.
	SplitRandom = "random"
	// SplitScaffold is ScaffoldSplit over the Bemis–Murcko scaffolds: OGB's scaffold split.
	SplitScaffold = "scaffold"
)

// CSVOptions say how to read a table of molecules (MoleculeCSV). They are recorded with a run
// (as JSON), so that evaluation and prediction read the same data.
type CSVOptions struct {
	// SMILESColumn is the header of the column of SMILES.
	SMILESColumn string `json:"smiles_column"`
	// LabelColumns are the headers of the label columns, one task each.
	LabelColumns []string `json:"label_columns"`
	// Task is Regression or Classification.
	Task Task `json:"task"`
	// Split is SplitRandom, SplitScaffold, or the path of a JSON split file like LRGB's:
	// {"train": [...], "val": [...], "test": [...]}, row indices from 0 (the first row after
	// the header).
	Split string `json:"split"`
	// Seed draws the random split.
	Seed int `json:"seed,omitempty"`
}

// Check reports options that cannot read a table: no label column, a label column given twice
// or equal to the SMILES column, an unknown task.
func (o CSVOptions) Check() error {
	switch {
	case o.SMILESColumn == "":
		return errors.New("no SMILES column given")
	case len(o.LabelColumns) == 0:
		return errors.New("no label column given")
	case o.Task != Regression && o.Task != Classification:
		return fmt.Errorf("task %q: want %s or %s", o.Task, Regression, Classification)
	case o.Split == "":
		return fmt.Errorf("no split given: want %s, %s or a JSON file", SplitRandom, SplitScaffold)
	}
	for i, c := range o.LabelColumns {
		if c == o.SMILESColumn {
			return fmt.Errorf("label column %q is the SMILES column", c)
		}
		if slices.Index(o.LabelColumns, c) != i {
			return fmt.Errorf("label column %q given twice", c)
		}
	}
	return nil
}

// MoleculeCSV reads a table of molecules from the CSV file at path (plain or gzip-compressed;
// a header line naming the columns): the SMILES of opt.SMILESColumn, featurised with OGB's
// rules (MoleculeGraphs), and the labels of opt.LabelColumns, one task each. An empty label
// cell is a missing label (NaN, masked out of losses and metrics); a regression label is a
// finite number, a classification label 0 or 1. The split is opt.Split's. Other columns are
// ignored. Errors name the file, line and column; a SMILES that does not parse is an error
// (the first rows refused are listed), so that no molecule is left out silently.
func MoleculeCSV(path string, opt CSVOptions) (*Dataset, error) {
	if err := opt.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := csvfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	smilesCol, err := r.Column(opt.SMILESColumn)
	if err != nil {
		return nil, err
	}
	cols := make([]int, len(opt.LabelColumns))
	for i, c := range opt.LabelColumns {
		if cols[i], err = r.Column(c); err != nil {
			return nil, err
		}
	}
	var ss []string
	var lines []int
	var labels []float64
	for {
		rec, line, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for i, c := range cols {
			y, err := csvLabel(rec[c], opt.Task)
			if err != nil {
				return nil, r.Errorf(line, "column %q: %v", opt.LabelColumns[i], err)
			}
			labels = append(labels, y)
		}
		ss, lines = append(ss, rec[smilesCol]), append(lines, line)
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("%s: no rows after the header", path)
	}
	graphs, err := featurize(path, opt.SMILESColumn, ss, lines)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Name: "csv:" + path, Graphs: graphs, Tasks: len(cols), Labels: labels,
		LabelNames: slices.Clone(opt.LabelColumns), NodeVocab: AtomFeatureDims, EdgeVocab: BondFeatureDims}
	switch opt.Split {
	case SplitRandom:
		ds.Split = RandomSplit(len(graphs), uint64(opt.Seed))
	case SplitScaffold:
		keys, errs := ScaffoldKeys(ss)
		if err := rowErrors(path, opt.SMILESColumn, lines, errs); err != nil {
			return nil, err
		}
		ds.Split = ScaffoldSplit(keys)
	default:
		if ds.Split, err = readSplitFile(opt.Split, len(graphs), path); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// csvLabel parses one label cell of a task: empty (or NaN) is missing.
func csvLabel(cell string, task Task) (float64, error) {
	cell = strings.TrimSpace(cell)
	if cell == "" || strings.EqualFold(cell, "nan") {
		return math.NaN(), nil
	}
	y, err := strconv.ParseFloat(cell, 64)
	if err != nil || math.IsInf(y, 0) {
		return 0, fmt.Errorf("%q is neither a finite number nor empty (missing)", cell)
	}
	if task == Classification && y != 0 && y != 1 {
		return 0, fmt.Errorf("%q is not a class label (0 or 1 for classification; empty when missing)", cell)
	}
	return y, nil
}
