package training

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/metrics"
	"github.com/sgformer/sgformer/sgformer/model"
)

// The step lines: one per step once the interval has passed since the last, none at the
// epoch's end (its epoch line follows), with the graphs done and the epoch's.
func TestProgressStepLines(t *testing.T) {
	for _, tc := range []struct {
		name     string
		interval time.Duration
		pos      int
		want     string
	}{
		{"due", time.Nanosecond, 4, "epoch 2: 4/10 graphs  "},
		{"at the epoch's end", time.Nanosecond, 10, ""},
		{"not due", time.Hour, 4, ""},
	} {
		var log strings.Builder
		data := &epochData{epoch: 2, order: make([]int, 10)}
		p := &progress{log: &log, interval: tc.interval, data: data}
		p.epochStarted()
		data.pos = tc.pos
		p.step()
		if got := log.String(); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") || tc.want != "" && !strings.Contains(got, "graphs/s  epoch eta ") {
			t.Errorf("%s: %q, want a line starting %q", tc.name, got, tc.want)
		}
	}
}

// The epoch line, as the CLI prints it, with the ETA of the epochs left at the mean time of
// those done less the time they spent building programs: 12.3 s less 8.3 s, twice.
func TestProgressEpochLine(t *testing.T) {
	mae, err := metrics.ByName("mae")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	p := &progress{log: &log, metric: mae, epochs: 5, first: 3, began: time.Now().Add(-12340 * time.Millisecond)}
	st := &state{best: best{BestEpoch: 2, BestValid: 0.5, TestAtBest: 0.625}}
	p.epochDone(Record{Epoch: 3, TrainLoss: 1.25, Valid: 0.75, Test: 0.875, LR: 0.001, Seconds: 12.34, Programs: 2, CompileSeconds: 8.34}, st)
	want := "epoch 3/5  train_loss 1.2500  val mae 0.7500  test 0.8750  lr 0.001  12.3s, 2 new programs 8.3s  (best val 0.5000 at epoch 2, test 0.6250)  eta 8s\n"
	if got := log.String(); got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// Without a progress bar (a log file), an epoch reports its progress in lines: graphs done,
// rate and the epoch's ETA, at most one per stepLogInterval and none after the last batch.
func TestStepLog(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { stepLogInterval = d }(stepLogInterval)
	stepLogInterval = time.Nanosecond
	tk := syntheticTask(t, 30, 4)
	var log strings.Builder
	ctx := context.New()
	Defaults(ctx)
	ctx.SetParams(recipeAt(t, "synthetic", 1))
	ctx.SetParams(map[string]any{model.ParamModel: model.Subgraphormer, ParamEpochs: 1, ParamBatchSize: 8})
	if _, err := Train(ctx, tk, Options{Out: t.TempDir(), Backend: be, Log: &log}); err != nil {
		t.Fatal(err)
	}
	n := len(tk.Train)
	var lines []string
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.HasPrefix(line, "epoch 1: ") {
			lines = append(lines, line)
		}
	}
	want := []string{fmt.Sprintf("epoch 1: 8/%d graphs", n), fmt.Sprintf("epoch 1: 16/%d graphs", n)}
	if len(lines) != (n-1)/8 || !strings.HasPrefix(lines[0], want[0]) || !strings.HasPrefix(lines[1], want[1]) || !strings.Contains(lines[0], "graphs/s  epoch eta ") {
		t.Errorf("step lines %q", lines)
	}
}
