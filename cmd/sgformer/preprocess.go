package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/internal/term"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
	"github.com/sgformer/sgformer/sgformer/task"
)

// loadDataset reads a dataset by name from dir (its default directory if empty), checking that
// it is the published one unless noVerify, or a table of molecules read as csv says; an unknown
// name is a usage error.
func loadDataset(name, dir string, noVerify bool, csv *data.CSVOptions) (*data.Dataset, error) {
	ds, err := task.Dataset(task.Source{Dataset: name, DataDir: dir, NoVerify: noVerify, CSV: csv})
	if errors.As(err, new(*task.UnknownDatasetError)) {
		return nil, usageError{err.Error()}
	}
	return ds, err
}

// registerNoVerify defines --no-verify, for every command that loads a dataset.
func registerNoVerify(fs *flag.FlagSet, noVerify *bool) {
	fs.BoolVar(noVerify, "no-verify", false, "accept a copy of the dataset that differs from the published one (data modified on purpose): skip the checks against its pinned content digest and for truncated files")
}

func preprocessCmd(args []string, io stdio) error {
	fs := newFlagSet("preprocess")
	// The defaults are those sgformer train reads with the dataset's recipe: its PE and tuple
	// order, and its cache directory.
	name := peekFlag(args, "dataset", task.Synthetic) // train's default
	recipe, err := model.ReadConfig(recipeContext(append([]string{"--dataset", name}, args...), nil))
	if err != nil {
		return err
	}
	cache, _ := os.UserCacheDir()
	dataset := fs.String("dataset", name, datasetUsage())
	dataDir := fs.String("data-dir", "", "directory holding the dataset's files (default: $SGFORMER_DATA/FOLDER, ../shared/data/FOLDER, or the download location)")
	k := fs.Int("pe-k", recipe.PEK, "number k of product-graph PE columns, by default the dataset's recipe's")
	mode := fs.String("pe-mode", string(recipe.PEMode), `"exact", "reference" (the authors' PE) or "concat", by default the dataset's recipe's`)
	tupleK := fs.Int("tuple-k", recipe.TupleK, "order K of the product's tuples (Appendix B)")
	out := fs.String("out", filepath.Join(cache, "sgformer"), "directory for the cache file, by default the one sgformer train reads (its --cache-dir)")
	workers := fs.Int("workers", 0, "goroutines (0: one per CPU)")
	var noVerify bool
	registerNoVerify(fs, &noVerify)
	var csv csvFlags
	csv.register(fs)
	if err := parse(fs, args, io); err != nil {
		return err
	}
	csvOpt, err := csv.options(*dataset, 0)
	if err != nil {
		return err
	}
	opt := preprocess.Options{PEK: *k, PEMode: preprocess.Mode(*mode), TupleK: *tupleK}
	if err := opt.Validate(); err != nil {
		return usageError{err.Error()}
	}
	ds, err := loadDataset(*dataset, *dataDir, noVerify, csvOpt)
	if err != nil {
		return err
	}
	path := filepath.Join(*out, preprocess.CacheName(task.CacheStem(ds.Name), opt))
	start := time.Now()
	var progress func(done int)
	if term.Is(io.err) {
		bar := progressbar.NewOptions(len(ds.Graphs),
			progressbar.OptionSetWriter(io.err),
			progressbar.OptionSetDescription("preprocess "+ds.Name),
			progressbar.OptionSetItsString("graphs"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(io.err) }),
		)
		progress = func(done int) { bar.Set(done) }
	} else { // a log: no bar redrawn in place
		progress = progressLines(io.err, "preprocess "+ds.Name, len(ds.Graphs), 30*time.Second)
	}
	// The cache is written as it is computed, without the product graphs (which training
	// rebuilds): a few graphs at a time are in memory, not the whole dataset's.
	fresh, err := preprocess.Write(path, ds.Graphs, opt, *workers, progress)
	if _, ok := errors.AsType[*memory.Error](err); ok {
		return fmt.Errorf("%s: %w", ds.Name, err)
	}
	if err != nil {
		return err
	}
	nodes := 0
	for _, g := range ds.Graphs {
		n, err := product.NumNodes(g.N(), opt.K())
		if err != nil {
			return err
		}
		nodes += n
	}
	size := int64(0)
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	return writeJSON(io.out, map[string]any{
		"dataset": ds.Name, "graphs": len(ds.Graphs), "product_nodes": nodes, "pe_k": opt.PEK, "pe_mode": opt.PEMode,
		"cache": path, "cache_bytes": size, "recomputed": fresh, "seconds": time.Since(start).Seconds(),
	})
}

// progressLines returns a progress callback for a log: a line at most every interval with the
// graphs done of total, the rate and the ETA, and none once all are done.
func progressLines(w io.Writer, what string, total int, every time.Duration) func(done int) {
	start := time.Now()
	logged := start
	return func(done int) {
		if now := time.Now(); now.Sub(logged) >= every && done < total {
			logged = now
			rate := float64(done) / now.Sub(start).Seconds()
			eta := time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second)
			fmt.Fprintf(w, "%s: %d/%d graphs  %.3g graphs/s  eta %v\n", what, done, total, rate, eta)
		}
	}
}
