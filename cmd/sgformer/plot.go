package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/training"
)

// curvesFile is the base name of the training-curve figure plotCmd writes.
const curvesFile = "curves"

func plotCmd(args []string, io stdio) error {
	fs := newFlagSet("plot")
	format := fs.String("format", "both", "image format: svg, png or both")
	out := fs.String("out", "", "directory to write the figures into (default: RUN_DIR)")
	describe(fs, "usage: sgformer plot [--format svg|png|both] [--out DIR] RUN_DIR\n\n"+
		"Draws the training curves of a run (metrics.jsonl, summary.json) into curves.svg and curves.png.")
	// RUN_DIR may come before, between or after the flags.
	if err := parseFlags(fs, args, io); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() == 0 {
		return usagef("RUN_DIR is required: sgformer plot [--format svg|png|both] [--out DIR] RUN_DIR")
	}
	dir := fs.Arg(0)
	if err := parse(fs, fs.Args()[1:], io); err != nil {
		return err
	}
	var exts []string
	switch *format {
	case "svg", "png":
		exts = []string{"." + *format}
	case "both":
		exts = []string{".svg", ".png"}
	default:
		return usagef("--format %q: want svg, png or both", *format)
	}
	if *out == "" {
		*out = dir
	}

	recs, err := training.ReadRecords(filepath.Join(dir, training.MetricsFile))
	if err != nil {
		return err
	}
	sum, err := training.ReadSummary(dir)
	if err != nil {
		return err
	}
	fig, err := plots.Curves(recs, sum.Metric)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, training.MetricsFile), err)
	}
	fig.Title = fmt.Sprintf("%s on %s: test %s %.4g at the best validation epoch (%d of %d)",
		sum.Model, sum.Dataset, strings.ToUpper(sum.Metric), sum.TestAtBest, sum.BestEpoch, sum.Epochs)
	for _, ext := range exts {
		path := filepath.Join(*out, curvesFile+ext)
		if err := fig.Save(path); err != nil {
			return err
		}
		fmt.Fprintln(io.out, path)
	}
	return nil
}
