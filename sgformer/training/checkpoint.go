package training

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"

	"github.com/sgformer/sgformer/sgformer/task"
)

// state is where a run stands, saved with each checkpoint.
type state struct {
	Epoch        int     `json:"epoch"`
	best                 // the epoch with the best validation metric so far
	plateauState         // ReduceLROnPlateau's (zero under another schedule)
	LR           float64 `json:"lr"`
	BaseLR       float64 `json:"base_lr"` // the initial learning rate, which schedules start from
	Seconds      float64 `json:"seconds"`
	// Programs and CompileSeconds sum the records' (absent from runs before they were counted).
	Programs       int     `json:"programs,omitempty"`
	CompileSeconds float64 `json:"compile_seconds,omitempty"`
	// DeviceBytes is the largest device memory of the run's XLA programs (Summary).
	DeviceBytes int64 `json:"device_bytes,omitempty"`
	// Frozen lists the variables that are not trained (BatchNorm's running averages, the
	// random-number state, counters): GoMLX's checkpoints do not record it, and a variable
	// loaded as trainable would be changed by the optimizer.
	Frozen []string `json:"frozen"`
	// Variables lists the context's variables (parameter names) in the order it created them,
	// which decides the order of a program's parameters and outputs and so its compiled form:
	// loaded in this order, a resumed run builds the programs of a fresh one, which the compile
	// cache holds. GoMLX's checkpoints keep the variables in no order. Empty in checkpoints
	// written before it was recorded, whose variables load in name order.
	Variables []string `json:"variables,omitempty"`
	// Backend is the backend the run trains on (backend.Kind): a run resumes on it only, since
	// another continues it differently (its own random streams, its own rounding). Empty in
	// checkpoints written before it was recorded, which resume anywhere.
	Backend string `json:"backend,omitempty"`
	// Partial, when set, is the epoch under way when the checkpoint was saved (Epoch + 1).
	Partial *partialEpoch `json:"partial,omitempty"`
	// Checksum is the SHA-256 of this state (without the checksum) and of every file of the
	// checkpoint's variables, so that a damaged checkpoint is never resumed from.
	Checksum string `json:"checksum"`
}

// plateauState is where ReduceLROnPlateau stands, saved with each checkpoint (in state).
type plateauState struct {
	PlateauBest float64 `json:"plateau_best"` // meaningful after the first epoch
	BadEpochs   int     `json:"bad_epochs"`
}

// checkpointer owns a run's checkpoints: the latest (CheckpointDir), saved at the end of each
// epoch and within one, to resume from; and the best epoch's (bestDir), to predict with, which
// leaves out the optimizer's state (modelVariables): two thirds of an Adam run's variables,
// which prediction does not read. Each save replaces its directory atomically (save).
type checkpointer struct {
	ctx *context.Context
	out string
}

// resume reads the latest checkpoint into the context and st, and returns the epoch it was
// saved within (nil if at an epoch's end), for epochData.resume. The context keeps the
// ParamEpochs and ParamDevices it sets (Options.Resume).
func (c checkpointer) resume(st *state) (*partialEpoch, error) {
	kept := map[string]any{}
	for _, name := range []string{ParamEpochs, ParamDevices} {
		if v, ok := c.ctx.GetParam(name); ok {
			kept[name] = v
		}
	}
	if err := load(c.ctx, filepath.Join(c.out, CheckpointDir), st); err != nil {
		return nil, resumeError(c.out, err)
	}
	c.ctx.SetParams(kept)
	partial := st.Partial
	st.Partial = nil
	if partial != nil && partial.Epoch != st.Epoch+1 {
		return nil, c.corrupt("epoch %d under way after epoch %d", partial.Epoch, st.Epoch)
	}
	return partial, nil
}

// corrupt is the error of resuming from a latest checkpoint found inconsistent.
func (c checkpointer) corrupt(format string, args ...any) error {
	return resumeError(c.out, fmt.Errorf("checkpoint %s is %w: %s", filepath.Join(c.out, CheckpointDir), errCorrupt, fmt.Sprintf(format, args...)))
}

func (c checkpointer) saveLatest(st *state) error {
	return save(c.ctx, filepath.Join(c.out, CheckpointDir), st, allVariables)
}

func (c checkpointer) saveBest(st *state) error {
	return save(c.ctx, filepath.Join(c.out, bestDir), st, modelVariables)
}

// allVariables keeps every variable of a checkpoint; modelVariables all but the optimizer's
// (its moments and learning rate, under optimizers.AdamDefaultScope and optimizers.Scope).
func allVariables(*context.Variable) bool { return true }

func modelVariables(v *context.Variable) bool {
	scope := v.Scope() + "/"
	return !strings.HasPrefix(scope, "/"+optimizers.AdamDefaultScope+"/") && !strings.HasPrefix(scope, "/"+optimizers.Scope+"/")
}

// savePartial saves the latest checkpoint within the epoch under way, p.
func (c checkpointer) savePartial(st *state, p *partialEpoch) error {
	st.Partial = p
	defer func() { st.Partial = nil }()
	return c.saveLatest(st)
}

// partialSaves saves the latest checkpoint within epochs (save), at the first step after each
// interval since the last save (Options.CheckpointInterval) other than an epoch's last (whose
// end saves it), so that a run killed in a long epoch loses at most that much. GoMLX's
// train.PeriodicCallback would start its clock at the first step rather than with the run, and
// restart it at an epoch's last step, where nothing is saved.
type partialSaves struct {
	interval time.Duration
	saved    time.Time
	data     *epochData
	save     func() error
}

// attach registers the saves after each training step of steps (after the hooks added before).
func (p *partialSaves) attach(steps *epochSteps) {
	p.saved = time.Now()
	steps.onStep(p.step)
}

// step saves if the last save is interval old and the epoch is not done.
func (p *partialSaves) step() error {
	if time.Since(p.saved) < p.interval || p.data.pos == len(p.data.order) {
		return nil
	}
	p.saved = time.Now()
	return p.save()
}

// loadBest reads the hyperparameters and the weights of the best epoch (bestDir) of a run into
// ctx, and the run's summary. The summary's best epoch and metrics are those saved with the
// weights, since the summary file lags behind them when a run stops between the two saves; a
// save of bestDir stopped between its renames is recovered from bestDir.old (load). Without
// either, or before the first epoch's end, it is an error: never another epoch's weights or
// metrics under the best epoch's label.
func loadBest(ctx *context.Context, run string) (*Summary, error) {
	sum, err := ReadSummary(run)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("training: %s has no finished epoch (no %s): wait for its first epoch to end, or resume it with --resume", run, SummaryFile)
	}
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(run, bestDir)
	var st state
	if err := load(ctx, dir, &st); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("training: %s has no best model: neither %s nor %s (which an interrupted save leaves) exists; train it again, or restore %s from a copy (its latest checkpoint holds the last epoch's weights, not the best epoch's)", run, dir, dir+".old", bestDir)
	} else if err != nil {
		return nil, fmt.Errorf("training: %s: %w", run, err)
	}
	if st.Epoch != st.BestEpoch {
		return nil, fmt.Errorf("training: %s: checkpoint %s is %w: it holds epoch %d under best epoch %d", run, dir, errCorrupt, st.Epoch, st.BestEpoch)
	}
	sum.BestEpoch, sum.BestValid, sum.TestAtBest = st.BestEpoch, st.BestValid, st.TestAtBest
	sum.Epochs = max(sum.Epochs, st.Epoch)
	return sum, nil
}

// LoadLatest reads the hyperparameters and the weights of the run's latest checkpoint
// (CheckpointDir) into ctx, the one it resumes from: the weights as training left them, saved at
// the end of an epoch or within one. It returns the epoch they are from: the last one finished,
// or the one under way.
func LoadLatest(ctx *context.Context, run string) (epoch int, err error) {
	var st state
	if err := load(ctx, filepath.Join(run, CheckpointDir), &st); errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("training: %s has no checkpoint (%s): it stopped before its first save, or its checkpoints were removed", run, CheckpointDir)
	} else if err != nil {
		return 0, fmt.Errorf("training: %s: %w", run, err)
	}
	if st.Partial != nil {
		return st.Partial.Epoch, nil
	}
	return st.Epoch, nil
}

// OpenRun reads the run directory run for evaluation or prediction: a context with its
// hyperparameters and the weights of its best epoch, its data source and its summary, whose
// best epoch and metrics are those saved with the weights (loadBest). ParamDevices is one
// device, whatever the run trained on: the devices are the evaluating machine's (set
// ParamDevices before NewPredictor to use several); the weights do not depend on them.
func OpenRun(run string) (*context.Context, task.Source, *Summary, error) {
	src, err := ReadSource(run)
	if err != nil {
		return nil, src, nil, err
	}
	ctx := context.New()
	Defaults(ctx)
	sum, err := loadBest(ctx, run)
	if err != nil {
		return nil, src, nil, err
	}
	ctx.SetParam(ParamDevices, "1")
	return ctx, src, sum, nil
}

// save writes the context (hyperparameters and the variables keep accepts) and st to dir
// atomically: into a fresh staging directory, synced, then renamed over dir.
func save(ctx *context.Context, dir string, st *state, keep func(*context.Variable) bool) error {
	if err := saveTo(ctx, dir, st, keep); err != nil {
		os.RemoveAll(dir + ".staging") // a partial copy, which would keep a full disk full
		return saveError(dir, err)
	}
	return nil
}

// saveError words a failed save of the checkpoint dir of a run: what failed, the system's
// reason (which errors.Is sees: syscall.ENOSPC for a full disk) rather than the checkpoint
// library's chain, and what to do.
func saveError(dir string, err error) error {
	cause := err
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		cause = pathErr.Err
	}
	run := filepath.Dir(dir)
	then := "run the same command again: the run has no checkpoint yet, and starts over"
	if _, e := os.Stat(filepath.Join(run, CheckpointDir, stateFile)); e == nil {
		then = "resume it with --resume: its last checkpoint is kept"
	}
	return fmt.Errorf("training: saving a checkpoint of %s failed: %w; free space (or remove the cause), then %s", run, cause, then)
}

// saveTo is save, whose errors are the underlying ones.
func saveTo(ctx *context.Context, dir string, st *state, keep func(*context.Variable) bool) error {
	st.Frozen, st.Variables = st.Frozen[:0], st.Variables[:0]
	var left []*context.Variable
	for v := range ctx.IterVariables() {
		if !keep(v) {
			left = append(left, v)
			continue
		}
		if !v.Trainable {
			st.Frozen = append(st.Frozen, v.ScopeAndName())
		}
		st.Variables = append(st.Variables, v.ParameterName())
	}
	staging := dir + ".staging"
	if err := os.RemoveAll(staging); err != nil {
		return err
	}
	loader := ctx.Loader()
	h, err := checkpoints.Build(ctx).Dir(filepath.Join(staging, checkpointVars)).Keep(1).ExcludeVars(left...).Done()
	if err != nil {
		return err
	}
	err = h.Save()
	ctx.SetLoader(loader) // the staging handler must not serve variables later
	if err != nil {
		return err
	}
	st.Checksum = ""
	if st.Checksum, err = checksum(staging, st); err != nil {
		return err
	}
	if err := writeJSONAtomic(filepath.Join(staging, stateFile), st); err != nil {
		return err
	}
	if err := syncTree(staging); err != nil {
		return err
	}
	// A kill between any two steps leaves dir, or dir.old where dir is missing (load).
	old := dir + ".old"
	for _, step := range []func() error{
		func() error { return os.RemoveAll(old) },
		func() error {
			if err := os.Rename(dir, old); !errors.Is(err, os.ErrNotExist) {
				return err
			}
			return nil
		},
		func() error { return os.Rename(staging, dir) },
		func() error { return os.RemoveAll(old) },
	} {
		if err := killPoint(); err != nil {
			return err
		}
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// killPoint is called before each step of saveTo that renames or removes a checkpoint; a test
// sets it to stop a save there, as a kill would.
var killPoint = func() error { return nil }

// errCorrupt marks a checkpoint that exists but cannot be trusted.
var errCorrupt = errors.New("corrupt")

// load reads a checkpoint written by save into ctx and st. If the checkpoint directory is
// missing but an interrupted save left its predecessor (dir.old), that one is used. A
// checkpoint whose files do not match its checksum, or cannot be read, is an error wrapping
// errCorrupt; a missing one wraps os.ErrNotExist.
func load(ctx *context.Context, dir string, st *state) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(dir + ".old"); err == nil {
			dir += ".old"
		}
	}
	if _, err := os.Stat(dir); err != nil {
		return err
	}
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("checkpoint %s is %w: %s", dir, errCorrupt, fmt.Sprintf(format, args...))
	}
	raw, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return corrupt("%v", err)
	}
	if err := json.Unmarshal(raw, st); err != nil {
		return corrupt("%s: %v", stateFile, err)
	}
	if st.Checksum != "" { // runs from before checksums have none
		got, err := checksum(dir, st)
		if err != nil {
			return corrupt("%v", err)
		}
		if got != st.Checksum {
			return corrupt("its files do not match the checksum in %s", stateFile)
		}
	}
	if err := loadVariables(ctx, filepath.Join(dir, checkpointVars), st.Variables); err != nil {
		return corrupt("%v", err)
	}
	frozen := make(map[string]bool, len(st.Frozen))
	for _, name := range st.Frozen {
		frozen[name] = true
	}
	for v := range ctx.IterVariables() {
		if frozen[v.ScopeAndName()] {
			v.SetTrainable(false)
		}
	}
	return nil
}

// loadVariables reads GoMLX's checkpoint files in dir into ctx, creating the variables in the
// order given (parameter names; state.Variables), then the others in name order. GoMLX's reader
// panics on some damaged files (it is written for files it wrote): a panic is an error here.
func loadVariables(ctx *context.Context, dir string, order []string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	h, err := checkpoints.Load(ctx).Dir(dir).Done() // the values, which ctx's loader now serves
	if err != nil {
		return err
	}
	values := h.LoadedVariables()
	rest := slices.Sorted(maps.Keys(values))
	for _, name := range slices.Concat(order, rest) {
		if _, ok := values[name]; ok {
			ctx.GetVariableByScopeAndName(context.VariableScopeAndNameFromParameterName(name)) // created, taking its value
		}
	}
	if len(values) > 0 {
		return fmt.Errorf("%d variables not loaded", len(values))
	}
	return nil
}

// checksum returns the SHA-256 of st without its checksum and of every file of the variables
// of the checkpoint dir (names and contents, in name order).
func checksum(dir string, st *state) (string, error) {
	copied := *st
	copied.Checksum = ""
	h := sha256.New()
	raw, err := json.Marshal(copied)
	if err != nil {
		return "", err
	}
	h.Write(raw)
	entries, err := os.ReadDir(filepath.Join(dir, checkpointVars))
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "", fmt.Errorf("%s is empty", filepath.Join(dir, checkpointVars))
	}
	for _, e := range entries { // ReadDir sorts by name
		content, err := os.ReadFile(filepath.Join(dir, checkpointVars, e.Name()))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), len(content))
		h.Write(content)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// resumeError explains why the run in out cannot be resumed: nothing to resume, or a corrupt
// checkpoint, with the way out.
func resumeError(out string, err error) error {
	if _, e := os.Stat(filepath.Join(out, CheckpointDir)); errors.Is(err, os.ErrNotExist) && errors.Is(e, os.ErrNotExist) {
		return fmt.Errorf("training: nothing to resume in %s: it has no checkpoint yet (it stopped before its first epoch ended); "+
			"run the same command without --resume to start it again", out)
	}
	if !errors.Is(err, errCorrupt) {
		return fmt.Errorf("training: nothing to resume in %s: %w", out, err)
	}
	best := filepath.Join(out, bestDir)
	way := "start over with another --out"
	var st state
	if raw, e := os.ReadFile(filepath.Join(best, stateFile)); e == nil && json.Unmarshal(raw, &st) == nil {
		way = fmt.Sprintf("the weights of the best epoch (%d) are in %s: to continue from them (with the optimizer's state started afresh), replace %s by it and resume; or %s",
			st.Epoch, best, filepath.Join(out, CheckpointDir), way)
	}
	return fmt.Errorf("training: cannot resume %s: %w; %s", out, err, way)
}

// syncTree fsyncs every file under dir.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}
