package main

import (
	"context"
	"strings"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/task"
)

func downloadCmd(args []string, io stdio) error {
	fs := newFlagSet("download")
	dataset := fs.String("dataset", "", "dataset: "+strings.Join(sourceNames(), ", "))
	dir := fs.String("data-dir", "", "directory for the dataset's files (default: $SGFORMER_DATA/FOLDER, ../shared/data/FOLDER if present, else the user cache)")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *dataset == "" {
		return usagef("--dataset D is required")
	}
	if _, err := data.SourceOf(*dataset); err != nil {
		return unknownDataset(*dataset, sourceNames(), "; "+task.Synthetic+" and "+task.SyntheticFourCycles+" are built in")
	}
	if *dir == "" {
		var err error
		if *dir, err = data.DefaultDir(*dataset); err != nil {
			return err
		}
	}
	if err := data.Download(context.Background(), *dataset, *dir, io.err); err != nil {
		return err
	}
	return writeJSON(io.out, map[string]any{"dataset": *dataset, "data_dir": *dir})
}
