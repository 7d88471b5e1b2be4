package main

import (
	stdcontext "context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/ui/commandline"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/term"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/metrics"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// dataFlags select a dataset (a task.Source, recorded in a run's run.json) and
// where preprocessing caches go.
type dataFlags struct {
	task.Source
	CacheDir string
	csv      csvFlags
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.Dataset, "dataset", task.Synthetic, datasetUsage())
	fs.StringVar(&d.DataDir, "data-dir", "", "directory holding the dataset's files (default: $SGFORMER_DATA/FOLDER, ../shared/data/FOLDER, or where sgformer download puts them)")
	fs.IntVar(&d.TrainSubset, "train-subset", 0, "train on the first N graphs of the training split only (0: all)")
	fs.IntVar(&d.SyntheticGraphs, "synthetic-graphs", 300, "number of graphs of the synthetic dataset")
	cache, _ := os.UserCacheDir()
	fs.StringVar(&d.CacheDir, "cache-dir", filepath.Join(cache, "sgformer"), "directory for preprocessing caches")
	registerNoVerify(fs, &d.NoVerify)
	d.csv.register(fs)
}

// hyperFlags are the named flags for the hyperparameters users set most; -set sets any.
type hyperFlags struct {
	fs       *flag.FlagSet
	settings *string
	skip     []string // parameters without a named flag here
}

// named maps flag names to context parameters, whose usage (training.AllParams) is
// the flag's.
var named = []struct{ flag, param string }{
	{"model", model.ParamModel},
	{"epochs", training.ParamEpochs},
	{"layers", model.ParamLayers},
	{"hidden", model.ParamHidden},
	{"pe-k", model.ParamPEK},
	{"pe-mode", model.ParamPEMode},
	{"sampling-ratio", training.ParamSamplingRatio},
	{"seed", training.ParamSeed},
	{"batch-size", training.ParamBatchSize},
	{"lr", training.ParamLearningRate},
	{"execution", model.ParamExecution},
	{"dropout", model.ParamDropout},
	{"devices", training.ParamDevices},
}

// usageOf returns the usage of the hyperparameter param.
func usageOf(param string) string {
	for _, p := range training.AllParams() {
		if p.Name == param {
			return p.Usage
		}
	}
	return param
}

// newContext returns a context with the defaults, the recipe of the dataset at sampling ratio
// p (recipe.At), and room for flags; published tells whether the paper has that
// recipe.
func newContext(dataset string, p float64) (ctx *context.Context, published bool) {
	ctx = context.New()
	training.Defaults(ctx)
	params, published := recipe.At(dataset, p)
	ctx.SetParams(params)
	return ctx, published
}

// recipeContext is newContext for the dataset and sampling ratio given in args (before
// parsing), saying on log (if not nil) when the paper has no recipe at that ratio.
func recipeContext(args []string, log io.Writer) *context.Context {
	dataset := recipeDataset(args)
	ratio := 0.0
	if r, err := strconv.ParseFloat(peekFlag(args, "sampling-ratio", ""), 64); err == nil {
		ratio = r
	} else if params := recipe.Default(dataset); params != nil {
		ratio, _ = params[training.ParamSamplingRatio].(float64)
	}
	if ratio == 0 {
		ratio = 1
	}
	ctx, published := newContext(dataset, ratio)
	if !published && log != nil && recipe.Default(dataset) != nil {
		fmt.Fprintf(log, "%s: the paper publishes no recipe at sampling ratio %g; using its first recipe with that ratio\n", dataset, ratio)
	}
	return ctx
}

// register defines the named flags (with the context's values as defaults), except those of
// the parameters in skip, and -set.
func (h *hyperFlags) register(fs *flag.FlagSet, ctx *context.Context, skip ...string) {
	h.fs, h.skip = fs, skip
	for _, n := range named {
		if slices.Contains(skip, n.param) {
			continue
		}
		v, _ := ctx.GetParam(n.param)
		fs.String(n.flag, fmt.Sprint(v), usageOf(n.param))
	}
	// GoMLX's commandline.CreateContextSettingsFlag registers on the global flag set; this is
	// the same flag on ours, parsed by commandline.ParseContextSettings.
	var params []string
	ctx.EnumerateParams(func(scope, key string, value any) {
		if scope == context.RootScope {
			params = append(params, fmt.Sprintf("  %s (default %v)", key, value))
		}
	})
	slices.Sort(params)
	h.settings = fs.String("set", "", "hyperparameters as \"name=value;name=value\", any of:\n"+strings.Join(params, "\n"))
}

// checkValue reports whether value is not of the type of ctx's parameter param ("want an
// integer", "want a number", "want true or false").
func checkValue(ctx *context.Context, param, value string) error {
	current, _ := ctx.GetParam(param)
	switch current.(type) {
	case int:
		if _, err := strconv.Atoi(value); err != nil {
			return errors.New("want an integer")
		}
	case float64:
		if f, err := strconv.ParseFloat(value, 64); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return errors.New("want a finite number")
		}
	case bool:
		if _, err := strconv.ParseBool(value); err != nil {
			return errors.New("want true or false")
		}
	}
	return nil
}

// apply sets the hyperparameters given on the command line: named flags, then -set.
func (h *hyperFlags) apply(ctx *context.Context) error {
	var settings []string
	var err error
	h.fs.Visit(func(f *flag.Flag) {
		for _, n := range named {
			if n.flag == f.Name && !slices.Contains(h.skip, n.param) {
				if e := checkValue(ctx, n.param, f.Value.String()); e != nil && err == nil {
					err = usagef("invalid value %q for flag -%s: %v", f.Value.String(), f.Name, e)
				}
				settings = append(settings, n.param+"="+f.Value.String())
			}
		}
	})
	if err != nil {
		return err
	}
	if *h.settings != "" {
		if err := checkSettings(ctx, *h.settings); err != nil {
			return err
		}
		settings = append(settings, *h.settings)
	}
	if len(settings) > 0 {
		if _, err = commandline.ParseContextSettings(ctx, strings.Join(settings, ";")); err != nil {
			return usageError{err.Error()}
		}
	}
	return nil
}

// runConfig reads the hyperparameters of ctx for a run to start from: its errors are usage
// errors, found before anything is loaded.
func runConfig(ctx *context.Context) (training.Config, error) {
	c, err := training.ReadConfig(ctx)
	if err != nil {
		return c, usageError{err.Error()}
	}
	if c.LearningRate == 0 {
		return c, usagef("%s = 0, want a positive rate", training.ParamLearningRate)
	}
	return c, nil
}

// sourceToResume reads the data source of the run in dir, to resume it.
func sourceToResume(dir string) (task.Source, error) {
	src, err := training.ReadSource(dir)
	if errors.Is(err, os.ErrNotExist) {
		return src, fmt.Errorf("nothing to resume in %s: it holds no run (it stopped before it began, or never started); "+
			"run the same command without --resume to start it", dir)
	}
	if err != nil {
		return src, fmt.Errorf("nothing to resume in %s: %w", dir, err)
	}
	return src, nil
}

// sameDir reports whether the paths a and b name the same directory (however spelled: relative,
// absolute, through a link).
func sameDir(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA != nil || errB != nil {
		absA, _ := filepath.Abs(a)
		absB, _ := filepath.Abs(b)
		return absA == absB
	}
	return os.SameFile(ia, ib)
}

// resumeContext returns the hyperparameters to resume run with: the run's (config.json) with
// the flags given applied. It reports, as a usage error, a flag that contradicts the run's
// configuration or data (run.json, config.json): only --epochs, --devices, --time-limit and
// --checkpoint-every may change.
func (h *hyperFlags) resumeContext(run string) (*context.Context, error) {
	src, err := sourceToResume(run)
	if err != nil {
		return nil, err
	}
	var bad error
	visited := map[string]bool{}
	h.fs.Visit(func(f *flag.Flag) {
		visited[f.Name] = true
		var was any
		switch f.Name {
		case "dataset":
			was = src.Dataset
		case "data-dir":
			was = src.DataDir
		case "train-subset":
			was = src.TrainSubset
		case "synthetic-graphs":
			was = src.SyntheticGraphs
		case "smiles-column", "label-columns", "task", "split":
			var opt data.CSVOptions
			if src.CSV != nil {
				opt = *src.CSV
			}
			was = map[string]any{"smiles-column": opt.SMILESColumn, "label-columns": strings.Join(opt.LabelColumns, ","), "task": opt.Task, "split": opt.Split}[f.Name]
		default:
			return
		}
		if f.Name == "data-dir" && sameDir(f.Value.String(), src.DataDir) {
			return
		}
		if bad == nil && f.Value.String() != fmt.Sprint(was) {
			bad = usagef("--%s %s contradicts the run's %s %v; on --resume only --epochs, --devices, --time-limit and --checkpoint-every may change", f.Name, f.Value, f.Name, was)
		}
	})
	if bad != nil {
		return nil, bad
	}
	ran, err := runHyperparameters(run)
	if err != nil {
		return nil, err
	}
	asked, err := ran.Clone() // the run's, to apply the flags to
	if err != nil {
		return nil, err
	}
	if err := h.apply(asked); err != nil {
		return nil, err
	}
	for _, p := range training.AllParams() {
		a, _ := asked.GetParam(p.Name)
		r, _ := ran.GetParam(p.Name)
		if p.Name == training.ParamEpochs || p.Name == training.ParamDevices || fmt.Sprint(a) == fmt.Sprint(r) {
			continue
		}
		given := fmt.Sprintf("%s=%v", p.Name, a)
		for _, n := range named {
			if n.param == p.Name && visited[n.flag] {
				given = fmt.Sprintf("--%s %v", n.flag, a)
			}
		}
		return nil, usagef("%s contradicts the run's %s = %v; on --resume only --epochs, --devices, --time-limit and --checkpoint-every may change", given, p.Name, r)
	}
	return asked, nil
}

// runHyperparameters returns a context with the hyperparameters of the run directory run (its
// config.json; the defaults for those it predates).
func runHyperparameters(run string) (*context.Context, error) {
	ctx := context.New()
	training.Defaults(ctx)
	if err := training.ReadHyperparameters(ctx, run); err != nil {
		return nil, err
	}
	return ctx, nil
}

// newBackend creates the backend and says which one runs, and why it is the pure-Go one when
// that was not asked for.
func newBackend(name string, io stdio) (backends.Backend, error) {
	if name == "" && os.Getenv("GOMLX_BACKEND") == "" {
		if _, why := backend.Default(); why != "" {
			fmt.Fprintf(io.err, "backend: %s\n", why)
		}
	}
	b, err := backend.New(name)
	if errors.Is(err, backend.ErrUnknown) {
		if name == "" {
			return nil, usagef("$GOMLX_BACKEND: %v", err)
		}
		return nil, usagef("--backend: %v", err)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(io.err, "backend: %s\n", backend.Describe(b))
	return b, nil
}

func trainCmd(args []string, io stdio) error {
	fs := newFlagSet("train")
	var d dataFlags
	d.register(fs)
	out := fs.String("out", "", "run directory (checkpoints, metrics.jsonl, summary.json)")
	resume := fs.Bool("resume", false, "continue the run in --out from its last checkpoint")
	backendName := fs.String("backend", "", `GoMLX backend: "go" (pure Go), "xla:cpu", "xla:cuda" (default $GOMLX_BACKEND, else xla:cpu if installed, else go)`)
	limit := fs.Duration("time-limit", 0, "stop after the last epoch that ends within this time from now (e.g. 9m, a job's limit), at a checkpoint to --resume from; 0: none")
	every := fs.Duration("checkpoint-every", 30*time.Minute, "also save the checkpoint within an epoch this often, for --resume after a kill in a long epoch; 0: at the end of each epoch only")
	// Defaults depend on the dataset and sampling ratio, so find them before registering the
	// hyperparameter flags.
	ctx := recipeContext(args, io.err)
	var h hyperFlags
	h.register(fs, ctx)
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out RUN is required")
	}
	var err error
	if *resume { // more epochs, or other devices: a checkpoint resumes on any number
		if ctx, err = h.resumeContext(*out); err != nil {
			return err
		}
	} else if err := h.apply(ctx); err != nil {
		return err
	}
	if d.TrainSubset < 0 {
		return usagef("--train-subset %d: want 0 (all) or a number of graphs", d.TrainSubset)
	}
	if *limit < 0 {
		return usagef("--time-limit %v: want 0 (none) or a positive duration", *limit)
	}
	if *every < 0 {
		return usagef("--checkpoint-every %v: want 0 (none within an epoch) or a duration", *every)
	}
	opt := training.Options{Out: *out, Resume: *resume, Deadline: deadline(*limit), CheckpointInterval: *every}
	summary, err := runTraining(ctx, &d, opt, *backendName, "", io)
	if err != nil {
		return err
	}
	return writeJSON(io.out, summary)
}

// deadline is the time limit from now, or no deadline for a limit of 0.
func deadline(limit time.Duration) time.Time {
	if limit <= 0 {
		return time.Time{}
	}
	return time.Now().Add(limit)
}

// flagValue returns the value of the flag name if given on the command line, else "".
func flagValue(fs *flag.FlagSet, name string) string {
	value := ""
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			value = f.Value.String()
		}
	})
	return value
}

// runTraining trains (or resumes) one run in out with the hyperparameters of ctx (to resume:
// the run's, runHyperparameters, but for the epochs and devices). An interrupted run's error
// ends with again, what continues it (by default: sgformer train --resume --out RUN).
func runTraining(ctx *context.Context, d *dataFlags, opt training.Options, backendName, again string, io stdio) (*training.Summary, error) {
	if opt.Resume {
		src, err := sourceToResume(opt.Out)
		if err != nil {
			return nil, err
		}
		d.Source = src
	}
	cfg, err := runConfig(ctx) // the configuration, read once here and once by Train
	if err != nil {
		return nil, err
	}
	if opt.Backend, err = newBackend(backendName, io); err != nil {
		return nil, err
	}
	if _, err := training.ResolveDevices(cfg, opt.Backend); err != nil { // before the data are loaded
		return nil, usageError{err.Error()}
	}
	if !opt.Resume {
		seed, _ := ctx.GetParam(training.ParamSeed)
		s, _ := seed.(int)
		if d.CSV, err = d.csv.options(d.Dataset, s); err != nil {
			return nil, err
		}
		if _, err := data.SourceOf(d.Dataset); err == nil && d.DataDir == "" {
			// Where DefaultDir looks, downloaded there on first use; recorded, so that eval,
			// predict and --resume find it from any directory.
			if d.DataDir, err = data.Ensure(stdcontext.Background(), d.Dataset, io.err); err != nil {
				return nil, err
			}
		}
		if d.DataDir != "" { // recorded absolute, so that the run is found from anywhere
			if d.DataDir, err = filepath.Abs(d.DataDir); err != nil {
				return nil, err
			}
		}
	}
	tk, err := task.Load(d.Source, cfg.Model, d.CacheDir, io.err)
	var subset *task.SubsetError
	if errors.As(err, &subset) {
		return nil, usagef("--train-subset %d: the training split has %d graphs", subset.Asked, subset.Graphs)
	}
	if errors.As(err, new(*task.UnknownDatasetError)) {
		return nil, usageError{err.Error()}
	}
	if err != nil {
		return nil, err
	}
	opt.Log = io.err
	if term.Is(io.err) { // a progress bar redrawn in place has no place in a log file
		opt.Progress = io.err
	}
	stop, release := interrupts(io)
	defer release()
	opt.Stop = stop
	sum, err := training.Train(ctx, tk, opt)
	if errors.Is(err, training.ErrEpochsDone) {
		return nil, usageError{err.Error()}
	}
	if errors.Is(err, training.ErrInterrupted) {
		if again == "" {
			again = "sgformer train --resume --out " + opt.Out
		}
		return sum, interrupted{fmt.Sprintf("%v; continue with: %s", err, again)}
	}
	return sum, err
}

// devicesFlag is --devices of eval and predict: the devices each batch is split among, whatever
// the run trained on (a run's weights do not depend on them).
func devicesFlag(fs *flag.FlagSet) *string {
	return fs.String("devices", "1", `devices each batch is split among (data parallel, as in training): a number, or "all" of the backend's; the same predictions as on one, up to float32 rounding`)
}

// interrupts returns a channel closed on the first SIGINT or SIGTERM, announced on io.err, after
// which the signals have their default effect again (a second Ctrl-C ends the process at once);
// release stops listening.
func interrupts(io stdio) (stop <-chan struct{}, release func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	ch, done := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			signal.Stop(sig)
			fmt.Fprintf(io.err, "\n%v: stopping at the next training step, where the run is saved; again to quit at once (losing what the epoch did since its last checkpoint)\n", s)
			close(ch)
		case <-done:
		}
	}()
	return ch, func() { signal.Stop(sig); close(done) }
}

// interrupted is a run stopped by a signal: exit status 130, as a shell reports Ctrl-C.
type interrupted struct{ msg string }

func (e interrupted) Error() string { return e.msg }

// peekFlag returns the value of --name in args (before parsing), or def.
func peekFlag(args []string, name, def string) string {
	for i, a := range args {
		for _, prefix := range []string{"-" + name, "--" + name} {
			if a == prefix && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, prefix+"="); ok {
				return v
			}
		}
	}
	return def
}

// openedRun is a run loaded for evaluation or prediction (loadRun).
type openedRun struct {
	ctx  *context.Context
	src  task.Source
	sum  *training.Summary
	be   backends.Backend
	pred *training.Predictor
}

// loadRun loads the best checkpoint of a run with its data source and a predictor on devices
// (ParamDevices: a number or "all"), which is checked against the backend and the run's
// configuration before anything is compiled.
func loadRun(run, backendName, devices string, io stdio) (*openedRun, error) {
	ctx, src, sum, err := training.OpenRun(run)
	if err != nil {
		return nil, err
	}
	be, err := newBackend(backendName, io)
	if err != nil {
		return nil, err
	}
	ctx.SetParam(training.ParamDevices, devices)
	cfg, err := training.ReadConfig(ctx)
	if err == nil {
		_, err = training.ResolveDevices(cfg, be)
	}
	if err != nil {
		return nil, usageError{err.Error()}
	}
	p, err := training.NewPredictor(ctx, be, src.Spec)
	if err != nil {
		return nil, err
	}
	return &openedRun{ctx: ctx, src: src, sum: sum, be: be, pred: p}, nil
}

func evalCmd(args []string, io stdio) error {
	fs := newFlagSet("eval")
	run := fs.String("run", "", "run directory written by sgformer train")
	backendName := fs.String("backend", "", "GoMLX backend (default $GOMLX_BACKEND, else xla:cpu if installed, else go)")
	cache, _ := os.UserCacheDir()
	cacheDir := fs.String("cache-dir", filepath.Join(cache, "sgformer"), "directory for preprocessing caches")
	dataDir := fs.String("data-dir", "", "directory holding the dataset's files, if not where the run read them (its run.json's data_dir, else $SGFORMER_DATA/FOLDER, ../shared/data/FOLDER or the download location)")
	devices := devicesFlag(fs)
	checkpoint := fs.String("checkpoint", "best", "the weights to evaluate: best (the best validation epoch's) or latest (the checkpoint the run resumes from: as training left them)")
	recalibrate := fs.Bool("recalibrate-bn", false, "set BatchNorm's running averages to those of the weights first: batches of the training split run in training mode, the weights fixed (nothing is saved)")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *run == "" {
		return usagef("--run RUN is required")
	}
	if *checkpoint != "best" && *checkpoint != "latest" {
		return usagef("--checkpoint %q: want best or latest", *checkpoint)
	}
	r, err := loadRun(*run, *backendName, *devices, io)
	if err != nil {
		return err
	}
	ctx, src, p, sum := r.ctx, r.src, r.pred, r.sum
	epoch := sum.BestEpoch
	if *checkpoint == "latest" { // in a context of its own: one holding the best epoch's weights keeps them
		p.Finalize()
		ctx = context.New()
		training.Defaults(ctx)
		if epoch, err = training.LoadLatest(ctx, *run); err != nil {
			return err
		}
		ctx.SetParam(training.ParamDevices, *devices)
		if p, err = training.NewPredictor(ctx, r.be, src.Spec); err != nil {
			return err
		}
	}
	if *dataDir != "" {
		src.DataDir = *dataDir
	}
	c, err := model.ReadConfig(ctx)
	if err != nil {
		return err
	}
	tk, err := task.Load(src, c, *cacheDir, io.err)
	if err != nil {
		return err
	}
	if *recalibrate {
		if err := training.RecalibrateBatchNorm(ctx, r.be, tk); err != nil {
			return err
		}
	}
	metric, err := metrics.ByName(sum.Metric)
	if err != nil {
		return err
	}
	result := map[string]any{"run": *run, "dataset": tk.Name, "model": c.Model, "checkpoint": *checkpoint, "epoch": epoch, "metric": sum.Metric, "recalibrated_bn": *recalibrate}
	for _, split := range []struct {
		name string
		idx  []int
	}{{"val", tk.Valid}, {"test", tk.Test}} {
		if result[split.name], err = p.Evaluate(tk, split.idx, metric); err != nil {
			return err
		}
	}
	return writeJSON(io.out, result)
}
