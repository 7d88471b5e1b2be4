package training

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
)

// Saves within an epoch: at a step once the interval has passed since the last save (which
// restarts it), never at the epoch's last step.
func TestPartialSaves(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sinceLast time.Duration
		pos       int
		saved     bool
	}{
		{"due", 2 * time.Hour, 4, true},
		{"not due", time.Minute, 4, false},
		{"at the epoch's last step", 2 * time.Hour, 10, false},
	} {
		saves := 0
		last := time.Now().Add(-tc.sinceLast)
		p := &partialSaves{interval: time.Hour, saved: last, data: &epochData{pos: tc.pos, order: make([]int, 10)},
			save: func() error { saves++; return nil }}
		if err := p.step(); err != nil {
			t.Fatal(err)
		}
		if saves == 1 != tc.saved || p.saved.Equal(last) == tc.saved {
			t.Errorf("%s: %d saves, clock restarted %v; want a save: %v", tc.name, saves, !p.saved.Equal(last), tc.saved)
		}
	}
}

// A checkpoint saved within an epoch resumes there; one whose epoch under way does not follow
// its last epoch is corrupt.
func TestCheckpointerPartial(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	ctx, _, err := BuildModel(be, model.Spec{NodeVocab: []int{2}, EdgeVocab: []int{2}, Tasks: 1},
		map[string]any{model.ParamLayers: 1, model.ParamHidden: 6, model.ParamHeads: 1, model.ParamPEK: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		partial *partialEpoch
		corrupt bool
	}{
		{"at an epoch's end", nil, false},
		{"within the next epoch", &partialEpoch{Epoch: 3, Graphs: 16, LossSum: 2.5, LossCount: 2}, false},
		{"within a later epoch", &partialEpoch{Epoch: 4}, true},
	} {
		c := checkpointer{ctx: ctx, out: t.TempDir()}
		st := &state{Epoch: 2, LR: 0.5}
		if err := c.savePartial(st, tc.partial); err != nil {
			t.Fatal(err)
		}
		if st.Partial != nil {
			t.Errorf("%s: the state kept the epoch under way after the save", tc.name)
		}
		var got state
		p, err := c.resume(&got)
		if tc.corrupt {
			if !errors.Is(err, errCorrupt) {
				t.Errorf("%s: %v, want a corrupt checkpoint", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.Epoch != 2 || got.LR != 0.5 || got.Partial != nil || (p == nil) != (tc.partial == nil) || p != nil && (p.Graphs != 16 || p.LossSum != 2.5 || p.LossCount != 2) {
			t.Errorf("%s: resumed %+v within %+v, want epoch 2 within %+v", tc.name, got, p, tc.partial)
		}
	}
}

// A save of the best epoch's checkpoint killed before any of its renames or removals leaves a
// run that loadBest reads as one best epoch, weights and label together: the previous best until
// the new checkpoint is in place (from bestDir.old after the first rename, not the latest
// checkpoint, another epoch's), then the new one, though the summary file, written after the
// checkpoints, still names the previous one. Without either checkpoint, or before the first
// epoch's end, loadBest fails saying which is missing.
func TestBestSaveKilledAtEveryStep(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	ctx := context.New()
	Defaults(ctx)
	ctx.SetParams(recipeAt(t, "synthetic", 1))
	ctx.SetParam(ParamEpochs, 1)
	if _, err := Train(ctx, syntheticTask(t, 16, 2), Options{Out: run, Backend: be}); err != nil {
		t.Fatal(err)
	}
	errKilled := errors.New("killed")
	t.Cleanup(func() { killPoint = func() error { return nil } })
	for kill := range 5 { // before each of saveTo's 4 steps, then not at all
		dir := filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(dir, os.DirFS(run)); err != nil {
			t.Fatal(err)
		}
		ctx := context.New()
		sum, err := loadBest(ctx, dir)
		if err != nil || sum.BestEpoch != 1 {
			t.Fatalf("the trained run: best epoch %v, %v", sum, err)
		}
		epoch1 := weights(ctx)
		shiftWeights(t, ctx) // epoch 2, not better than epoch 1
		c := checkpointer{ctx: ctx, out: dir}
		if err := c.saveLatest(&state{Epoch: 2, best: best{BestEpoch: 1, BestValid: sum.BestValid, TestAtBest: sum.TestAtBest}}); err != nil {
			t.Fatal(err)
		}
		shiftWeights(t, ctx) // epoch 3, the new best
		epoch3 := weights(ctx)
		steps := 0
		killPoint = func() error {
			if steps == kill {
				return errKilled
			}
			steps++
			return nil
		}
		err = c.saveBest(&state{Epoch: 3, best: best{BestEpoch: 3, BestValid: sum.BestValid / 2, TestAtBest: 0.25}})
		killPoint = func() error { return nil }
		if killed := errors.Is(err, errKilled); killed != (kill < 4) || (!killed && err != nil) {
			t.Fatalf("kill before step %d: %v", kill, err)
		}
		got := context.New()
		sum, err = loadBest(got, dir)
		if err != nil {
			t.Fatalf("kill before step %d: %v", kill, err)
		}
		want, wantWeights := 1, epoch1
		if kill >= 3 { // the new checkpoint is in place
			want, wantWeights = 3, epoch3
		}
		if w := weights(got); sum.BestEpoch != want || w != wantWeights || (want == 3) != (sum.TestAtBest == 0.25) {
			held := map[string]string{epoch1: "epoch 1's", epoch3: "epoch 3's"}[w]
			t.Errorf("kill before step %d: best epoch %d (test at best %g) holding weights %q; want epoch %d's", kill, sum.BestEpoch, sum.TestAtBest, held, want)
		}
	}
	if err := os.RemoveAll(filepath.Join(run, bestDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := loadBest(context.New(), run); err == nil || !strings.Contains(err.Error(), "has no best model") || !strings.Contains(err.Error(), bestDir+".old") {
		t.Errorf("without %s: %v", bestDir, err)
	}
	if err := os.Remove(filepath.Join(run, SummaryFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := loadBest(context.New(), run); err == nil || !strings.Contains(err.Error(), "has no finished epoch") {
		t.Errorf("without %s: %v", SummaryFile, err)
	}
}

// weights is the values of the trainable variables of ctx, printed in name order.
func weights(ctx *context.Context) string {
	var lines []string
	for v := range ctx.IterVariables() {
		if v.Trainable {
			lines = append(lines, fmt.Sprintln(v.ScopeAndName(), v.MustValue().Value()))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// shiftWeights adds 1 to every trainable float32 variable of ctx.
func shiftWeights(t *testing.T, ctx *context.Context) {
	for v := range ctx.IterVariables() {
		if !v.Trainable || v.Shape().DType != dtypes.Float32 {
			continue
		}
		flat := tensors.MustCopyFlatData[float32](v.MustValue())
		for i := range flat {
			flat[i]++
		}
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(flat, v.Shape().Dimensions...)); err != nil {
			t.Fatal(err)
		}
	}
}
