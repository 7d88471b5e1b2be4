// Package task turns a dataset into a task ready for training: the data of a run (a Source: a
// dataset by name, a table of molecules or a synthetic task, and how much of it), read and
// every graph preprocessed as the model needs (Load), with its split.
package task

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
)

// Task is a dataset ready for training: every graph preprocessed, and the standard split.
type Task struct {
	// Name is the dataset's name, e.g. "zinc12k".
	Name     string
	Examples []batch.Example
	// Train, Valid and Test index Examples.
	Train, Valid, Test []int
	Spec               model.Spec
	// Source is where the task's data came from (Load), recorded with a run.
	Source Source
}

// New assembles a task from graphs, their preprocessed forms, their labels (row-major,
// tasks per graph, NaN where missing) and the split.
func New(name string, graphs []*graph.Graph, items []preprocess.Item, labels []float64, spec model.Spec, train, valid, test []int) (*Task, error) {
	if len(items) != len(graphs) || len(labels) != len(graphs)*spec.Tasks {
		return nil, fmt.Errorf("task: %s: %d graphs, %d preprocessed, %d labels for %d tasks", name, len(graphs), len(items), len(labels), spec.Tasks)
	}
	t := &Task{Name: name, Spec: spec, Train: train, Valid: valid, Test: test, Examples: make([]batch.Example, len(graphs))}
	for i, g := range graphs {
		t.Examples[i] = batch.Example{Graph: g, Item: items[i], Target: labels[i*spec.Tasks : (i+1)*spec.Tasks]}
	}
	for _, split := range [][]int{train, valid, test} {
		for _, i := range split {
			if i < 0 || i >= len(graphs) {
				return nil, fmt.Errorf("task: %s: split index %d outside [0, %d)", name, i, len(graphs))
			}
		}
	}
	return t, nil
}

// Select returns the examples of split (indices into Examples), in its order.
func (t *Task) Select(split []int) []batch.Example {
	out := make([]batch.Example, len(split))
	for i, j := range split {
		out[i] = t.Examples[j]
	}
	return out
}

// Synthetic tasks built in (data.Synthetic): counting triangles (also "synthetic-triangles")
// or 4-cycles on random graphs.
const (
	Synthetic           = "synthetic"
	SyntheticFourCycles = "synthetic-4cycles"
)

// CSVPrefix starts the name of a dataset read from a table of molecules: "csv:FILE", with the
// reading options in Source.CSV (data.MoleculeCSV).
const CSVPrefix = "csv:"

// Names lists the dataset names Load reads: the synthetic tasks and data.Sources (and
// any "csv:FILE", CSVPrefix).
func Names() []string {
	names := []string{Synthetic, SyntheticFourCycles}
	for _, s := range data.Sources {
		names = append(names, s.Name)
	}
	return names
}

// specs are the dimensions of the datasets Load reads by name, as their loaders in package data
// read them (alchemy12k's vocabularies come from its files, and a table of molecules' tasks
// from its columns): SpecOf gives them without reading the data, and Load checks what it reads
// against them.
var specs = map[string]model.Spec{
	"zinc12k":             {NodeVocab: []int{28}, EdgeVocab: []int{4}, EdgeMin: []int{1}, Tasks: 1},
	"zinc-full":           {NodeVocab: []int{28}, EdgeVocab: []int{4}, EdgeMin: []int{1}, Tasks: 1},
	"ogbg-molhiv":         {NodeVocab: data.AtomFeatureDims, EdgeVocab: data.BondFeatureDims, Tasks: 1},
	"ogbg-molesol":        {NodeVocab: data.AtomFeatureDims, EdgeVocab: data.BondFeatureDims, Tasks: 1},
	"ogbg-molbace":        {NodeVocab: data.AtomFeatureDims, EdgeVocab: data.BondFeatureDims, Tasks: 1},
	"peptides-func":       {NodeVocab: data.AtomFeatureDims, EdgeVocab: data.BondFeatureDims, Tasks: 10},
	"peptides-struct":     {NodeVocab: data.AtomFeatureDims, EdgeVocab: data.BondFeatureDims, Tasks: 11},
	Synthetic:             {NodeVocab: []int{1}, EdgeVocab: []int{2}, Tasks: 1},
	"synthetic-triangles": {NodeVocab: []int{1}, EdgeVocab: []int{2}, Tasks: 1},
	SyntheticFourCycles:   {NodeVocab: []int{1}, EdgeVocab: []int{2}, Tasks: 1},
}

// SpecOf returns the dimensions of the dataset of that name, where they are known before its
// files are read.
func SpecOf(dataset string) (model.Spec, bool) {
	s, ok := specs[dataset]
	return s, ok
}

// Source selects the data of a run: a dataset and how much of it.
type Source struct {
	// Dataset is a name of Names.
	Dataset string `json:"dataset"`
	// DataDir holds the dataset's files ("": data.DefaultDir).
	DataDir string `json:"data_dir,omitempty"`
	// TrainSubset, if positive, trains on the first graphs of the training split only.
	TrainSubset int `json:"train_subset,omitempty"`
	// SyntheticGraphs is the number of graphs of a synthetic task (0: 300).
	SyntheticGraphs int `json:"synthetic_graphs,omitempty"`
	// NoVerify accepts a copy of the dataset that differs from the published one
	// (data.LoadOptions.NoVerify).
	NoVerify bool `json:"no_verify,omitempty"`
	// CSV says how to read a table of molecules, for a Dataset "csv:FILE" (data.MoleculeCSV).
	CSV *data.CSVOptions `json:"csv,omitempty"`
	// Spec is the data's dimensions, set by Load.
	Spec model.Spec `json:"spec"`
	// LabelNames names the tasks where the dataset does (data.Dataset.LabelNames), set by
	// Load; runs from before it was recorded have none.
	LabelNames []string `json:"label_names,omitempty"`
}

// Molecules reports whether src's data are molecules featurised with OGB's rules (9 atom and
// 3 bond features, the vocabularies of data.AtomFeatureDims and data.BondFeatureDims), which
// SMILES can be turned into: the OGB molecule sets, the Peptides and tables of molecules.
func (src Source) Molecules() bool {
	return slices.Equal(src.Spec.NodeVocab, data.AtomFeatureDims) && slices.Equal(src.Spec.EdgeVocab, data.BondFeatureDims)
}

// Load reads src's dataset and preprocesses it as the model configured by cfg needs: its
// PE, tuple order and connectivities. Unless cacheDir is empty, the preprocessing is cached
// there (preprocess.Cached; synthetic tasks are not cached) and log, if not nil, hears when it
// was computed. When the product graphs of every graph would not fit in memory, they are left
// out and built batch by batch (preprocess.Options.OnDemand), and log hears that too.
func Load(src Source, cfg model.Config, cacheDir string, log io.Writer) (*Task, error) {
	ds, err := Dataset(src)
	if err != nil {
		return nil, err
	}
	opt := cfg.Preprocess()
	if err := preprocess.CheckMemory(ds.Graphs, opt); errors.As(err, new(*memory.Error)) {
		opt.OnDemand = true // e.g. the 30 GiB of Peptides-func's product graphs
		if log != nil {
			fmt.Fprintf(log, "product graphs built batch by batch, not kept: %v\n", err)
		}
	}
	var items []preprocess.Item
	if strings.HasPrefix(src.Dataset, Synthetic) || cacheDir == "" {
		items, err = preprocess.Dataset(ds.Graphs, opt, 0, nil)
	} else {
		path := filepath.Join(cacheDir, preprocess.CacheName(CacheStem(ds.Name), opt))
		var fresh bool
		items, fresh, err = preprocess.Cached(path, ds.Graphs, opt, 0, nil)
		if errors.Is(err, preprocess.ErrCorrupt) { // moved aside, for a look, and computed again
			aside := path + ".corrupt"
			if e := os.Rename(path, aside); e != nil {
				return nil, fmt.Errorf("%w (and moving it aside failed: %v)", err, e)
			}
			if log != nil {
				fmt.Fprintf(log, "%v: moved to %s, computing it again\n", err, aside)
			}
			items, fresh, err = preprocess.Cached(path, ds.Graphs, opt, 0, nil)
		}
		if err == nil && fresh && log != nil {
			fmt.Fprintf(log, "preprocessed %d graphs into %s\n", len(items), path)
		}
	}
	if err != nil {
		return nil, err
	}
	train := ds.Split.Train
	if src.TrainSubset < 0 || src.TrainSubset > len(train) {
		return nil, &SubsetError{Asked: src.TrainSubset, Graphs: len(train)}
	}
	if src.TrainSubset > 0 {
		train = train[:src.TrainSubset]
	}
	src.Spec = model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, EdgeMin: ds.EdgeMin, Tasks: ds.Tasks}
	if want, ok := SpecOf(src.Dataset); ok && !reflect.DeepEqual(src.Spec, want) {
		return nil, fmt.Errorf("task: %s read with dimensions %+v, not its own %+v", src.Dataset, src.Spec, want)
	}
	src.LabelNames = ds.LabelNames
	task, err := New(ds.Name, ds.Graphs, items, ds.Labels, src.Spec, train, ds.Split.Valid, ds.Split.Test)
	if err != nil {
		return nil, err
	}
	task.Source = src
	return task, nil
}

// CacheStem is the name a dataset's preprocessing cache goes by (preprocess.CacheName): its
// name, or for a table of molecules "csv-" and the file's base name (the cache's fingerprint of
// the graphs tells two tables of the same name apart).
func CacheStem(dataset string) string {
	if file, ok := strings.CutPrefix(dataset, CSVPrefix); ok {
		return "csv-" + strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	return dataset
}

// A SubsetError reports a Source.TrainSubset that the training split cannot give.
type SubsetError struct{ Asked, Graphs int }

func (e *SubsetError) Error() string {
	return fmt.Sprintf("task: train subset of %d graphs asked of a training split of %d", e.Asked, e.Graphs)
}

// An UnknownDatasetError names a dataset Dataset does not know.
type UnknownDatasetError struct{ Name string }

func (e *UnknownDatasetError) Error() string {
	return fmt.Sprintf("unknown dataset %q (available: %s, or %sFILE for a table of molecules)", e.Name, strings.Join(Names(), ", "), CSVPrefix)
}

// Dataset reads the dataset of src: a synthetic task, a table of molecules ("csv:FILE",
// read as src.CSV says), or one of data.Sources from src.DataDir, checked against the
// published dataset unless src.NoVerify.
func Dataset(src Source) (*data.Dataset, error) {
	if file, ok := strings.CutPrefix(src.Dataset, CSVPrefix); ok {
		if src.CSV == nil {
			return nil, fmt.Errorf("task: %s: a table of molecules needs its columns, task and split (Source.CSV)", src.Dataset)
		}
		return data.MoleculeCSV(file, *src.CSV)
	}
	count := src.SyntheticGraphs
	if count <= 0 {
		count = 300
	}
	switch src.Dataset {
	case Synthetic, "synthetic-triangles":
		return data.Synthetic(data.Triangles, count, 1)
	case SyntheticFourCycles:
		return data.Synthetic(data.FourCycles, count, 1)
	}
	if _, err := data.SourceOf(src.Dataset); err != nil {
		return nil, &UnknownDatasetError{src.Dataset}
	}
	return data.LoadWith(src.Dataset, src.DataDir, data.LoadOptions{NoVerify: src.NoVerify})
}
