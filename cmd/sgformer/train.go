package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/ui/commandline"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/metrics"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/training"
)

// dataFlags select a dataset; they are stored in a run's RunFile so that resume, eval and
// predict find the same data.
type dataFlags struct {
	Dataset     string `json:"dataset"`
	DataDir     string `json:"data_dir,omitempty"`
	TrainSubset int    `json:"train_subset,omitempty"`
	Synthetic   int    `json:"synthetic_graphs,omitempty"`
	CacheDir    string `json:"-"`
	NoVerify    bool   `json:"no_verify,omitempty"`
	// PEK and Spec are filled in when the data is loaded.
	PEK  int        `json:"pe_k"`
	Spec model.Spec `json:"spec"`
}

// runFile holds a run's dataFlags.
const runFile = "run.json"

func (d *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.Dataset, "dataset", "synthetic", datasetUsage())
	fs.StringVar(&d.DataDir, "data-dir", "", "directory holding the dataset's files (default: $SGFORMER_DATA/FOLDER, ../shared/data/FOLDER, or where sgformer download puts them)")
	fs.IntVar(&d.TrainSubset, "train-subset", 0, "train on the first N graphs of the training split only (0: all)")
	fs.IntVar(&d.Synthetic, "synthetic-graphs", 300, "number of graphs of the synthetic dataset")
	cache, _ := os.UserCacheDir()
	fs.StringVar(&d.CacheDir, "cache-dir", filepath.Join(cache, "sgformer"), "directory for preprocessing caches")
	registerNoVerify(fs, &d.NoVerify)
}

// load reads the dataset and preprocesses it for a model with PE size k.
func (d *dataFlags) load(k int, mode preprocess.Mode, log io.Writer) (*training.Task, error) {
	var ds *data.Dataset
	var err error
	switch d.Dataset {
	case "synthetic", "synthetic-triangles":
		ds, err = data.Synthetic(data.Triangles, d.Synthetic, 1)
	case "synthetic-4cycles":
		ds, err = data.Synthetic(data.FourCycles, d.Synthetic, 1)
	default:
		ds, err = loadDataset(d.Dataset, d.DataDir, d.NoVerify)
	}
	if err != nil {
		return nil, err
	}
	opt := preprocess.Options{PEK: k, PEMode: mode}
	var items []preprocess.Item
	if strings.HasPrefix(d.Dataset, "synthetic") {
		items, err = preprocess.Dataset(ds.Graphs, opt, 0, nil)
	} else {
		path := filepath.Join(d.CacheDir, fmt.Sprintf("%s-pe%d-%s.cache", ds.Name, k, opt.PEMode))
		var fresh bool
		items, fresh, err = preprocess.Cached(path, ds.Graphs, opt, 0, nil)
		if err == nil && fresh {
			fmt.Fprintf(log, "preprocessed %d graphs into %s\n", len(items), path)
		}
	}
	if err != nil {
		return nil, err
	}
	train := ds.Split.Train
	if d.TrainSubset > 0 && d.TrainSubset < len(train) {
		train = train[:d.TrainSubset]
	}
	d.PEK = k
	d.Spec = model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, Tasks: ds.Tasks}
	return training.NewTask(ds.Name, ds.Graphs, items, ds.Labels, d.Spec, train, ds.Split.Valid, ds.Split.Test)
}

// hyperFlags are the named flags for the hyperparameters users set most; -set sets any.
type hyperFlags struct {
	fs       *flag.FlagSet
	settings *string
	skip     []string // parameters without a named flag here
}

// named maps flag names to context parameters.
var named = []struct{ flag, param, usage string }{
	{"model", model.ParamModel, "model: subgraphormer, sswl+ or gin"},
	{"epochs", training.ParamEpochs, "training epochs"},
	{"layers", model.ParamLayers, "number of blocks"},
	{"hidden", model.ParamHidden, "hidden width"},
	{"pe-k", model.ParamPEK, "product-graph PE columns"},
	{"sampling-ratio", training.ParamSamplingRatio, "fraction of subgraphs kept per graph and epoch (Sec. 4.3)"},
	{"seed", training.ParamSeed, "random seed"},
	{"batch-size", training.ParamBatchSize, "graphs per batch"},
	{"lr", training.ParamLearningRate, "initial learning rate"},
	{"execution", model.ParamExecution, "product-graph operators: sparse or dense"},
	{"dropout", model.ParamDropout, "dropout rate"},
}

// newContext returns a context with the defaults, the dataset's recipe, and room for flags.
func newContext(dataset string) *context.Context {
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(training.Recipe(dataset))
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
		fs.String(n.flag, fmt.Sprint(v), n.usage)
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

// apply sets the hyperparameters given on the command line: named flags, then -set.
func (h *hyperFlags) apply(ctx *context.Context) error {
	var settings []string
	var err error
	h.fs.Visit(func(f *flag.Flag) {
		for _, n := range named {
			if n.flag == f.Name && !slices.Contains(h.skip, n.param) {
				settings = append(settings, n.param+"="+f.Value.String())
			}
		}
	})
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
	if _, err := model.ReadConfig(ctx); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// newBackend creates the backend and says which one runs.
func newBackend(name string, io stdio) (backends.Backend, error) {
	b, err := backend.New(name)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(io.err, "backend: %s\n", b.Description())
	return b, nil
}

func trainCmd(args []string, io stdio) error {
	fs := flag.NewFlagSet("sgformer train", flag.ContinueOnError)
	var d dataFlags
	d.register(fs)
	out := fs.String("out", "", "run directory (checkpoints, metrics.jsonl, summary.json)")
	resume := fs.Bool("resume", false, "continue the run in --out from its last checkpoint")
	backendName := fs.String("backend", "", `GoMLX backend: "go" (pure Go), "xla:cpu", "xla:cuda" (default $GOMLX_BACKEND, else go)`)
	limit := fs.Duration("time-limit", 0, "stop after the last epoch that ends within this time from now (e.g. 9m, a job's limit), at a checkpoint to --resume from; 0: none")
	// Defaults depend on the dataset, so find it before registering the hyperparameter flags.
	ctx := newContext(peekFlag(args, "dataset", "synthetic"))
	var h hyperFlags
	h.register(fs, ctx)
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out RUN is required")
	}
	if err := h.apply(ctx); err != nil {
		return err
	}
	summary, err := runTraining(ctx, &d, training.Options{Out: *out, Resume: *resume, Epochs: epochsFlag(fs), Deadline: deadline(*limit)}, *backendName, io)
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

// epochsFlag returns the --epochs value if given on the command line, else 0.
func epochsFlag(fs *flag.FlagSet) int {
	epochs := 0
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "epochs" {
			fmt.Sscan(f.Value.String(), &epochs)
		}
	})
	return epochs
}

// runTraining trains (or resumes) one run in out.
func runTraining(ctx *context.Context, d *dataFlags, opt training.Options, backendName string, io stdio) (*training.Summary, error) {
	out, resume := opt.Out, opt.Resume
	if resume {
		raw, err := os.ReadFile(filepath.Join(out, runFile))
		if err != nil {
			return nil, fmt.Errorf("nothing to resume in %s: %w", out, err)
		}
		cacheDir := d.CacheDir
		if err := json.Unmarshal(raw, d); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(out, runFile), err)
		}
		d.CacheDir = cacheDir
		ctx = context.New() // the checkpoint's hyperparameters, not the flags'
		training.Defaults(ctx)
	}
	var err error
	if opt.Backend, err = newBackend(backendName, io); err != nil {
		return nil, err
	}
	k := d.PEK // on resume, the run's (from its run file)
	if !resume {
		c, err := model.ReadConfig(ctx)
		if err != nil {
			return nil, err
		}
		k = c.PEK
	}
	task, err := d.load(k, preprocess.Exact, io.err)
	if err != nil {
		return nil, err
	}
	if !resume {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
		raw, _ := json.MarshalIndent(d, "", "  ")
		if err := os.WriteFile(filepath.Join(out, runFile), append(raw, '\n'), 0o644); err != nil {
			return nil, err
		}
	}
	opt.Progress, opt.Log = io.err, io.err
	return training.Train(ctx, task, opt)
}

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

// loadRun loads the best checkpoint of a run with its data flags and a predictor.
func loadRun(run, backendName string, io stdio) (*context.Context, *dataFlags, *training.Predictor, *training.Summary, error) {
	raw, err := os.ReadFile(filepath.Join(run, runFile))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s is not a run directory: %w", run, err)
	}
	d := &dataFlags{}
	if err := json.Unmarshal(raw, d); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s: %w", filepath.Join(run, runFile), err)
	}
	ctx := context.New()
	training.Defaults(ctx)
	sum, err := training.Load(ctx, run)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	be, err := newBackend(backendName, io)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	p, err := training.NewPredictor(ctx, be, d.Spec)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return ctx, d, p, sum, nil
}

func evalCmd(args []string, io stdio) error {
	fs := flag.NewFlagSet("sgformer eval", flag.ContinueOnError)
	run := fs.String("run", "", "run directory written by sgformer train")
	backendName := fs.String("backend", "", "GoMLX backend (default $GOMLX_BACKEND, else go)")
	cache, _ := os.UserCacheDir()
	cacheDir := fs.String("cache-dir", filepath.Join(cache, "sgformer"), "directory for preprocessing caches")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *run == "" {
		return usagef("--run RUN is required")
	}
	ctx, d, p, sum, err := loadRun(*run, *backendName, io)
	if err != nil {
		return err
	}
	c, err := model.ReadConfig(ctx)
	if err != nil {
		return err
	}
	d.CacheDir = *cacheDir
	task, err := d.load(c.PEK, preprocess.Exact, io.err)
	if err != nil {
		return err
	}
	metric, err := metrics.ByName(sum.Metric)
	if err != nil {
		return err
	}
	result := map[string]any{"run": *run, "dataset": task.Name, "model": c.Model, "epoch": sum.BestEpoch, "metric": sum.Metric}
	for _, split := range []struct {
		name string
		idx  []int
	}{{"val", task.Valid}, {"test", task.Test}} {
		if result[split.name], err = p.Evaluate(task, split.idx, metric); err != nil {
			return err
		}
	}
	return writeJSON(io.out, result)
}

func predictCmd(args []string, io stdio) error {
	fs := flag.NewFlagSet("sgformer predict", flag.ContinueOnError)
	run := fs.String("run", "", "run directory written by sgformer train")
	path := fs.String("graph", "", `graph JSON with "node_features" and "edge_features" in the dataset's encoding, or - for standard input`)
	backendName := fs.String("backend", "", "GoMLX backend (default $GOMLX_BACKEND, else go)")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *run == "" {
		return usagef("--run RUN is required")
	}
	g, err := readGraph(*path, io)
	if err != nil {
		return err
	}
	_, _, p, _, err := loadRun(*run, *backendName, io)
	if err != nil {
		return err
	}
	pred, err := p.PredictGraph(g)
	if err != nil {
		return err
	}
	return writeJSON(io.out, map[string]any{"prediction": pred})
}
