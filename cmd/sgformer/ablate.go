package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/sgformer/ablation"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/training"
)

// cellDir is the run directory of one ablation cell.
func cellDir(out, modelName string, ratio float64, k, seed int) string {
	return filepath.Join(out, strings.ReplaceAll(modelName, "+", "plus"), fmt.Sprintf("ratio-%g_pe-%d_seed-%d", ratio, k, seed))
}

func ablateCmd(args []string, io stdio) error {
	fs := newFlagSet("ablate")
	var d dataFlags
	d.register(fs)
	out := fs.String("out", "", "directory for the grid's runs, table.md and table.json")
	ratios := fs.String("ratios", "1,0.5,0.2,0.05", "comma-separated subgraph sampling ratios (Sec. 4.3)")
	ks := fs.String("pe-k", "0,8", "comma-separated PE sizes k (0: no PE)")
	seeds := fs.String("seeds", "0,1,2", "comma-separated seeds")
	backendName := fs.String("backend", "", `GoMLX backend: "go", "xla:cpu", "xla:cuda" (default $GOMLX_BACKEND, else xla:cpu if installed, else go)`)
	limit := fs.Duration("time-limit", 0, "stop at the first epoch boundary after which another epoch would end later than this time from now (e.g. 9m), to continue with the same command; 0: none")
	dataset := recipeDataset(args)
	var h hyperFlags
	// The grid sets the PE size, sampling ratio and seed of each cell.
	h.register(fs, recipeContext(args, io.err), model.ParamPEK, training.ParamSamplingRatio, training.ParamSeed)
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out DIR is required")
	}
	ratioList, err := parseList(*ratios, "ratios", func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		return err
	}
	kList, err := parseList(*ks, "pe-k", strconv.Atoi)
	if err != nil {
		return err
	}
	seedList, err := parseList(*seeds, "seeds", strconv.Atoi)
	if err != nil {
		return err
	}
	cells := len(ratioList) * len(kList) * len(seedList)
	end := deadline(*limit)
	// Several workers may train one grid (the same command in several processes, on one
	// machine or on several sharing the file system): each cell's run directory has one writer
	// (training.LockFile), so a worker skips the cells others train, and waits for them at the
	// end of its pass, taking over any whose worker stopped.
	for {
		var held []string // the run directories of cells other workers train
		i := 0
		for _, k := range kList {
			for _, ratio := range ratioList {
				for _, seed := range seedList {
					i++
					// Each cell trains with the recipe of its sampling ratio, then the flags.
					ctx, _ := newContext(dataset, ratio)
					if err := h.apply(ctx); err != nil {
						return err
					}
					ctx.SetParams(map[string]any{model.ParamPEK: k, training.ParamSamplingRatio: ratio, training.ParamSeed: seed})
					c, err := training.ReadConfig(ctx)
					if err != nil {
						return usageError{err.Error()}
					}
					name := fmt.Sprintf("cell %d/%d: ratio %g, k %d, seed %d", i, cells, ratio, k, seed)
					run := cellDir(*out, c.Model.Model, ratio, k, seed)
					taken, stopped, err := trainCell(ctx, d, run, name, training.Options{Out: run, Epochs: c.Epochs, Deadline: end}, *backendName, io)
					switch {
					case err != nil:
						return fmt.Errorf("cell ratio %g, k %d, seed %d: %w", ratio, k, seed, err)
					case stopped:
						fmt.Fprintf(io.err, "time limit reached: run the same command again to continue the grid\n")
						return nil
					case taken:
						held = append(held, run)
					}
				}
			}
		}
		if len(held) == 0 {
			break
		}
		fmt.Fprintf(io.err, "waiting for %d cell(s) other workers train; a cell whose worker stops is taken over\n", len(held))
		free := func(run string) bool { return !training.Locked(run) }
		for !slices.ContainsFunc(held, free) {
			time.Sleep(lockPoll)
		}
	}
	return renderTable(*out, 4, io)
}

// trainCell trains the ablation cell called name in run (opt.Out) to its opt.Epochs, resuming it
// from its checkpoint, unless it is done, another worker trains it (taken), or opt.Deadline
// has passed (stopped). A cell another worker started or finished since it was examined is
// examined again.
func trainCell(ctx *context.Context, d dataFlags, run, name string, opt training.Options, backendName string, io stdio) (taken, stopped bool, err error) {
	for {
		done, resume := cellState(run, opt.Epochs)
		switch {
		case done:
			fmt.Fprintf(io.err, "== %s: done (%s)\n", name, run)
			return false, false, nil
		case training.Locked(run):
			fmt.Fprintf(io.err, "== %s: trained by another worker (%s)\n", name, run)
			return true, false, nil
		case !opt.Deadline.IsZero() && time.Now().After(opt.Deadline):
			return false, true, nil
		}
		fmt.Fprintf(io.err, "== %s (%s)\n", name, run)
		opt.Resume = resume
		cd := d // runTraining fills in the data source of the attempt
		_, err := runTraining(ctx, &cd, opt, backendName, io)
		switch {
		case errors.Is(err, training.ErrRunExists): // another worker started it since cellState
			continue
		case errors.Is(err, training.ErrLocked): // another worker took it since Locked
			fmt.Fprintf(io.err, "== %s: trained by another worker (%s)\n", name, run)
			return true, false, nil
		}
		return false, false, err
	}
}

// lockPoll is how often a worker waiting for the cells of other workers looks at their locks.
var lockPoll = 2 * time.Second

// cellState says whether a cell's run finished its epochs, or else whether it has a checkpoint
// to resume from.
func cellState(run string, epochs int) (done, resume bool) {
	if s, err := training.ReadSummary(run); err == nil && s.Epochs >= epochs {
		return true, false
	}
	_, err := os.Stat(filepath.Join(run, training.CheckpointDir))
	return false, err == nil
}

// parseList parses a non-empty comma-separated list of distinct values.
func parseList[T comparable](s, name string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, usagef("--%s: %q is not a number", name, f)
		}
		for _, w := range out {
			if w == v {
				return nil, usagef("--%s lists %v twice", name, v)
			}
		}
		out = append(out, v)
	}
	return out, nil
}

func tableCmd(args []string, io stdio) error {
	fs := newFlagSet("table")
	digits := fs.Int("digits", 4, "decimals of the metrics")
	describe(fs, "usage: sgformer table [--digits N] DIR\n\nCollects every run summary under DIR (an ablate or compare output, or any runs) into the paper's\n"+
		"tables, printed as Markdown and written to DIR/table.md and DIR/table.json. Runs that differ in\n"+
		"any hyperparameter but the seed (their config.json) are never averaged together; runs that\n"+
		"trained fewer epochs than planned are left out and listed.")
	// DIR may come before, between or after the flags.
	var dirs []string
	for {
		if err := parseFlags(fs, args, io); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		dirs, args = append(dirs, fs.Arg(0)), fs.Args()[1:]
	}
	if len(dirs) != 1 {
		return usagef("want one directory, got %d arguments", len(dirs))
	}
	return renderTable(dirs[0], *digits, io)
}

// renderTable collects the runs under dir and writes table.md (with the unfinished runs left
// out) and table.json (the rows) there, printing the Markdown.
func renderTable(dir string, digits int, io stdio) error {
	c, err := ablation.CollectAll(dir)
	if err != nil {
		return err
	}
	md := c.Markdown(digits)
	if len(c.Rows) == 0 {
		return fmt.Errorf("no finished run under %s:\n%s", dir, md)
	}
	if err := atomicfile.Write(filepath.Join(dir, "table.md"), []byte(md)); err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(dir, "table.json"), c.Rows); err != nil {
		return err
	}
	_, err = fmt.Fprint(io.out, md)
	return err
}
