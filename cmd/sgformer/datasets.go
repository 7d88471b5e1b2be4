package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
)

// sourceNames lists the datasets data.Load reads and download fetches.
func sourceNames() []string {
	var names []string
	for _, s := range data.Sources {
		names = append(names, s.Name)
	}
	return names
}

// datasetUsage is the usage of --dataset: every dataset task.Load reads.
func datasetUsage() string {
	names := task.Names()
	about := map[string]string{task.Synthetic: "triangle counting on random graphs, built in", task.SyntheticFourCycles: "4-cycle counting, built in"}
	for i, name := range names {
		if a, ok := about[name]; ok {
			names[i] = fmt.Sprintf("%s (%s)", name, a)
		}
	}
	return "dataset: " + strings.Join(names, ", ") + ", or " + task.CSVPrefix + "FILE for a table of molecules (see --smiles-column, --label-columns, --task, --split)"
}

// csvFlags say how to read a table of molecules, --dataset csv:FILE (data.CSVOptions).
type csvFlags struct {
	fs                                      *flag.FlagSet
	smilesColumn, labelColumns, task, split string
}

// csvFlagNames are the flags of csvFlags.
var csvFlagNames = []string{"smiles-column", "label-columns", "task", "split"}

func (c *csvFlags) register(fs *flag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.smilesColumn, "smiles-column", "smiles", "csv:FILE: the column of SMILES")
	fs.StringVar(&c.labelColumns, "label-columns", "", "csv:FILE: comma-separated label columns, one task each (an empty cell is a missing label)")
	fs.StringVar(&c.task, "task", "", "csv:FILE: regression (L1 loss, MAE) or classification (0/1 labels; BCE, ROC-AUC)")
	fs.StringVar(&c.split, "split", data.SplitScaffold, "csv:FILE: scaffold (OGB's Bemis-Murcko scaffold split, 80/10/10), random (80/10/10 from --seed) or a JSON file {\"train\": [...], \"val\": [...], \"test\": [...]} of row indices")
}

// options returns how to read dataset, a csv:FILE (nil for another dataset), with the random
// split drawn from seed. Missing options, and these flags given for another dataset, are
// usage errors.
func (c *csvFlags) options(dataset string, seed int) (*data.CSVOptions, error) {
	if !strings.HasPrefix(dataset, task.CSVPrefix) {
		for _, name := range csvFlagNames {
			if isSet(c.fs, name) {
				return nil, usagef("--%s is for --dataset %sFILE, a table of molecules", name, task.CSVPrefix)
			}
		}
		return nil, nil
	}
	opt := &data.CSVOptions{SMILESColumn: c.smilesColumn, Task: data.Task(c.task), Split: c.split, Seed: seed}
	if c.labelColumns != "" {
		opt.LabelColumns = strings.Split(c.labelColumns, ",")
	}
	switch {
	case strings.TrimPrefix(dataset, task.CSVPrefix) == "":
		return nil, usagef("--dataset %s: name the file, %sFILE", dataset, task.CSVPrefix)
	case c.task == "":
		return nil, usagef("--dataset %s needs --task regression or --task classification", dataset)
	case c.labelColumns == "":
		return nil, usagef("--dataset %s needs --label-columns A,B,...", dataset)
	}
	if err := opt.Check(); err != nil {
		return nil, usagef("--dataset %s: %v", dataset, err)
	}
	return opt, nil
}

// recipeDataset is the name of the recipe for the dataset given in args (before parsing): the
// dataset's, or for a table of molecules that of its --task (recipe.CSVName).
func recipeDataset(args []string) string {
	dataset := peekFlag(args, "dataset", task.Synthetic)
	if strings.HasPrefix(dataset, task.CSVPrefix) {
		return recipe.CSVName(data.Task(peekFlag(args, "task", "")))
	}
	return dataset
}

// unknownDataset is the usage error for a --dataset that is none of names.
func unknownDataset(name string, names []string, note string) error {
	return usagef("unknown dataset %q (available: %s%s)", name, strings.Join(names, ", "), note)
}
