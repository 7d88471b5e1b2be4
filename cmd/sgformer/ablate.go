package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
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
	out := fs.String("out", "", "directory for the grid's runs, grid.json, table.md and table.json")
	ratios := fs.String("ratios", "1,0.5,0.2,0.05", "comma-separated subgraph sampling ratios (Sec. 4.3)")
	ks := fs.String("pe-k", "0,8", "comma-separated PE sizes k (0: no PE)")
	seeds := fs.String("seeds", "0,1,2", "comma-separated seeds")
	backendName := fs.String("backend", "", `GoMLX backend: "go", "xla:cpu", "xla:cuda" (default $GOMLX_BACKEND, else xla:cpu if installed, else go)`)
	limit := fs.Duration("time-limit", 0, "stop at the first epoch boundary after which another epoch would end later than this time from now (e.g. 9m), to continue with the same command; 0: none")
	list := fs.Bool("list", false, "print the grid's cells, one JSON object a line (index, model, ratio, PE, seed, run, state), and train nothing")
	only := fs.Int("cell", -1, "train only the cell of this index (from 0, as --list numbers them; a Slurm array task: --cell $SLURM_ARRAY_TASK_ID): a finished cell is left as it is, an interrupted one resumed")
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
	cells, err := gridCells(dataset, &h, *ratios, *ks, *seeds, *out)
	if err != nil {
		return err
	}
	if err := checkGrid(*out, cells); err != nil {
		return err
	}
	if *list {
		enc := json.NewEncoder(io.out)
		for _, c := range cells {
			if err := enc.Encode(map[string]any{"index": c.Index, "model": c.Model, "sampling_ratio": c.Ratio, "pe_k": c.PEK,
				"seed": c.Seed, "run": filepath.Join(*out, c.Run), "state": c.state(*out)}); err != nil {
				return err
			}
		}
		return nil
	}
	end := deadline(*limit)
	opt := func(c gridCell) training.Options {
		return training.Options{Out: filepath.Join(*out, c.Run), Deadline: end}
	}
	if *only >= 0 || flagValue(fs, "cell") != "" {
		if *only < 0 || *only >= len(cells) {
			return usagef("--cell %d: the grid has %d cells, 0 to %d (--list lists them)", *only, len(cells), len(cells)-1)
		}
		c := cells[*only]
		taken, stopped, err := trainCell(c.ctx, d, c.name(len(cells)), c.epochs, opt(c), *backendName, io)
		switch {
		case err != nil:
			return fmt.Errorf("cell %d: %w", c.Index, err)
		case taken:
			return fmt.Errorf("cell %d is trained by another worker (%s holds its lock): run this task again once it stops", c.Index, filepath.Join(*out, c.Run))
		case stopped:
			fmt.Fprintf(io.err, "time limit reached: run the same command again to continue the cell\n")
		}
		return nil
	}
	// Several workers may train one grid (the same command in several processes, on one
	// machine or on several sharing the file system): each cell's run directory has one writer
	// (training.Locked), so a worker skips the cells others train, and waits for them at the
	// end of its pass, taking over any whose worker stopped.
	for {
		var held []string // the run directories of cells other workers train
		for _, c := range cells {
			taken, stopped, err := trainCell(c.ctx, d, c.name(len(cells)), c.epochs, opt(c), *backendName, io)
			switch {
			case err != nil:
				return fmt.Errorf("cell ratio %g, k %d, seed %d: %w", c.Ratio, c.PEK, c.Seed, err)
			case stopped:
				fmt.Fprintf(io.err, "time limit reached: run the same command again to continue the grid\n")
				return nil
			case taken:
				held = append(held, filepath.Join(*out, c.Run))
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

// gridCell is one cell of an ablation grid: its place, its hyperparameters (the context it
// trains with) and its run directory, relative to the grid's directory.
type gridCell struct {
	Index  int            `json:"index"`
	Model  string         `json:"model"`
	Ratio  float64        `json:"sampling_ratio"`
	PEK    int            `json:"pe_k"`
	Seed   int            `json:"seed"`
	Run    string         `json:"run"`
	Config map[string]any `json:"config"`
	ctx    *context.Context
	epochs int
}

func (c gridCell) name(cells int) string {
	return fmt.Sprintf("cell %d (%d of %d): ratio %g, k %d, seed %d", c.Index, c.Index+1, cells, c.Ratio, c.PEK, c.Seed)
}

// state is where the cell's run stands: done, running (another process holds its lock),
// resumable (a checkpoint), or new.
func (c gridCell) state(out string) string {
	run := filepath.Join(out, c.Run)
	done, resume := cellState(run, c.epochs)
	switch {
	case done:
		return "done"
	case training.Locked(run):
		return "running"
	case resume:
		return "resumable"
	}
	return "new"
}

// gridCells returns the grid's cells, PE sizes outermost and seeds innermost, each with the
// recipe of its sampling ratio, then the flags.
func gridCells(dataset string, h *hyperFlags, ratios, ks, seeds, out string) ([]gridCell, error) {
	ratioList, err := parseList(ratios, "ratios", func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		return nil, err
	}
	kList, err := parseList(ks, "pe-k", strconv.Atoi)
	if err != nil {
		return nil, err
	}
	seedList, err := parseList(seeds, "seeds", strconv.Atoi)
	if err != nil {
		return nil, err
	}
	var cells []gridCell
	for _, k := range kList {
		for _, ratio := range ratioList {
			for _, seed := range seedList {
				ctx, _ := newContext(dataset, ratio)
				if err := h.apply(ctx); err != nil {
					return nil, err
				}
				ctx.SetParams(map[string]any{model.ParamPEK: k, training.ParamSamplingRatio: ratio, training.ParamSeed: seed})
				c, err := runConfig(ctx)
				if err != nil {
					return nil, err
				}
				run, err := filepath.Rel(out, cellDir(out, c.Model.Model, ratio, k, seed))
				if err != nil {
					return nil, err
				}
				// The grid's record leaves out what may change between calls: the devices (each task
				// may have others; a checkpoint resumes on any) and the epochs (a grid is extended
				// by training its cells further).
				config := training.Hyperparameters(ctx)
				delete(config, training.ParamDevices)
				delete(config, training.ParamEpochs)
				cells = append(cells, gridCell{Index: len(cells), Model: c.Model.Model, Ratio: ratio, PEK: k, Seed: seed, Run: run,
					Config: config, ctx: ctx, epochs: c.Epochs})
			}
		}
	}
	return cells, nil
}

// gridFile names the file of a grid's directory that records its cells: the meaning of each
// --cell index, fixed once the grid is made.
const gridFile = "grid.json"

// checkGrid writes the grid's cells to out/grid.json, or, where a grid is recorded there, checks
// that these are its cells: a grid whose flags changed would give an index another cell.
func checkGrid(out string, cells []gridCell) error {
	path := filepath.Join(out, gridFile)
	now, err := json.Marshal(cells)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		return atomicfile.Write(path, append(now, '\n'))
	}
	if err != nil {
		return err
	}
	var was []gridCell
	if err := json.Unmarshal(raw, &was); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var is []gridCell
	if err := json.Unmarshal(now, &is); err != nil {
		return err
	}
	for i := range max(len(was), len(is)) {
		if i >= len(was) || i >= len(is) {
			return usagef("%s holds a grid of %d cells, these flags make %d: give the flags it was made with, or another --out", path, len(was), len(is))
		}
		a, _ := json.Marshal(was[i])
		b, _ := json.Marshal(is[i])
		if string(a) != string(b) {
			return usagef("%s: cell %d was %s, these flags make it %s: give the flags the grid was made with, or another --out", path, i, describeCell(was[i], is[i]), describeCell(is[i], was[i]))
		}
	}
	return nil
}

// describeCell names a cell by its place in the grid and the hyperparameters in which it
// differs from other, the same cell as another grid has it.
func describeCell(c, other gridCell) string {
	place := fmt.Sprintf("%s ratio %g, k %d, seed %d", c.Model, c.Ratio, c.PEK, c.Seed)
	var diff []string
	for _, name := range slices.Sorted(maps.Keys(c.Config)) {
		switch name {
		case model.ParamModel, training.ParamSamplingRatio, model.ParamPEK, training.ParamSeed: // in place
			continue
		}
		if a, b := fmt.Sprint(c.Config[name]), fmt.Sprint(other.Config[name]); a != b {
			diff = append(diff, name+" "+a)
		}
	}
	if len(diff) == 0 {
		return place
	}
	return place + " (" + strings.Join(diff, ", ") + ")"
}

// trainCell trains the ablation cell called name in its run directory opt.Out to its epochs,
// resuming it from its checkpoint (for more epochs, if the grid has more now), unless it is
// done, another worker trains it (taken), or opt.Deadline has passed (stopped). A cell another
// worker started or finished since it was examined is examined again.
func trainCell(ctx *context.Context, d dataFlags, name string, epochs int, opt training.Options, backendName string, io stdio) (taken, stopped bool, err error) {
	run := opt.Out
	for {
		done, resume := cellState(run, epochs)
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
		cellCtx := ctx
		if resume { // the run's hyperparameters, trained to the grid's epochs
			if cellCtx, err = runHyperparameters(run); err != nil {
				return false, false, err
			}
			cellCtx.SetParam(training.ParamEpochs, epochs)
		}
		_, err := runTraining(cellCtx, &cd, opt, backendName, "the same sgformer ablate command (the cell resumes where it stopped)", io)
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
