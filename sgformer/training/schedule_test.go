package training

import (
	"math"
	"testing"

	"github.com/sgformer/sgformer/sgformer/metrics"
)

// Each schedule alone, epoch by epoch, against hand-computed learning rates: before is asked
// with the current rate 7 (a schedule that keeps the rate returns it), after as the run goes.
func TestSchedules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      schedule
		epochs []int
		before []float64 // the rate before each epoch, from 7
	}{
		{"constant", constant{}, []int{1, 2, 50}, []float64{7, 7, 7}},
		{"plateau", plateau{state: &plateauState{}}, []int{1, 2}, []float64{7, 7}},
		// progress (epoch−from)/(to−from): 0, ¼, ½, 1 of a half cosine from 1 down to 0.1.
		{"cosine", cosine{base: 1, minLR: 0.1, from: 0, to: 4}, []int{0, 1, 2, 4},
			[]float64{1, 0.1 + 0.45*(1+math.Sqrt2/2), 0.55, 0.1}},
		// From 2 to 3 (after a warm-up of 2 epochs), over at least one epoch.
		{"cosine over one epoch", cosine{base: 1, minLR: 0, from: 2, to: 2}, []int{3}, []float64{0}},
		{"warmup then constant", warmup{epochs: 4, base: 2, then: constant{}}, []int{1, 2, 4, 5}, []float64{0.5, 1, 2, 7}},
	} {
		for i, epoch := range tc.epochs {
			if got := tc.s.before(epoch, 7); math.Abs(got-tc.before[i]) > 1e-15 {
				t.Errorf("%s: before epoch %d: %v, want %v", tc.name, epoch, got, tc.before[i])
			}
		}
		if tc.name != "plateau" {
			if got := tc.s.after(3, 0.5, 7); got != 7 {
				t.Errorf("%s: after an epoch: %v, want the rate kept (7)", tc.name, got)
			}
		}
	}
}

// ReduceLROnPlateau against hand-computed rates: an epoch improves on the best by more than
// the relative threshold 1e-4 or counts as bad; after more than patience bad epochs the rate is
// multiplied by the factor, down to the minimum.
func TestPlateau(t *testing.T) {
	mae, err := metrics.ByName("mae")
	if err != nil {
		t.Fatal(err)
	}
	auc, err := metrics.ByName("rocauc")
	if err != nil {
		t.Fatal(err)
	}
	type epoch struct {
		valid, lr float64 // the validation metric, and the rate after the epoch
		bad       int
	}
	for _, tc := range []struct {
		name     string
		p        plateau
		lr       float64
		epochs   []epoch
		wantBest float64
	}{
		{"lower is better, patience 1", plateau{metric: mae, patience: 1, factor: 0.5, minLR: 0.1}, 1, []epoch{
			{10, 1, 0},     // the first epoch sets the best
			{9.9995, 1, 1}, // better, but within the threshold (10·(1−1e-4) = 9.999)
			{9, 1, 0},
			{9.5, 1, 1},
			{9.5, 0.5, 0}, // a second bad epoch: more than the patience
			{9.5, 0.5, 1},
			{9.5, 0.25, 0},
			{9.5, 0.25, 1},
			{9.5, 0.125, 0},
			{9.5, 0.125, 1},
			{9.5, 0.1, 0}, // 0.0625 is below the minimum
		}, 9},
		{"higher is better, patience 0", plateau{metric: auc, patience: 0, factor: 0.1, minLR: 0}, 1, []epoch{
			{0.5, 1, 0},
			{0.50001, 0.1, 0}, // within the threshold (0.5·(1+1e-4) = 0.50005): bad, beyond patience 0
			{0.6, 0.1, 0},
			{0.4, 0.1 * 0.1, 0},
		}, 0.6},
	} {
		tc.p.state = &plateauState{}
		lr := tc.lr
		for i, e := range tc.epochs {
			if got := tc.p.before(i+1, lr); got != lr {
				t.Errorf("%s: before epoch %d: %v, want the rate kept (%v)", tc.name, i+1, got, lr)
			}
			lr = tc.p.after(i+1, e.valid, lr)
			if math.Abs(lr-e.lr) > 1e-15 || tc.p.state.BadEpochs != e.bad {
				t.Errorf("%s: after epoch %d (val %v): lr %v with %d bad epochs, want %v with %d", tc.name, i+1, e.valid, lr, tc.p.state.BadEpochs, e.lr, e.bad)
			}
		}
		if tc.p.state.PlateauBest != tc.wantBest {
			t.Errorf("%s: best %v, want %v", tc.name, tc.p.state.PlateauBest, tc.wantBest)
		}
	}
}

// newSchedule picks each schedule by name, starting from the initial rate, and keeps
// ReduceLROnPlateau's state in the run's state (which checkpoints save).
func TestNewSchedule(t *testing.T) {
	st := &state{BaseLR: 2}
	for _, tc := range []struct {
		cfg  Config
		want schedule
	}{
		{Config{Schedule: Constant}, constant{}},
		{Config{Schedule: Plateau, PlateauPatience: 3, PlateauFactor: 0.5, MinLearningRate: 1e-5}, plateau{patience: 3, factor: 0.5, minLR: 1e-5, state: &st.plateauState}},
		{Config{Schedule: Cosine, MinLearningRate: 1e-5, Epochs: 10}, cosine{base: 2, minLR: 1e-5, from: 0, to: 10}},
		{Config{Schedule: Cosine, MinLearningRate: 1e-5, WarmupEpochs: 3, Epochs: 10}, warmup{epochs: 3, base: 2, then: cosine{base: 2, minLR: 1e-5, from: 3, to: 10}}},
	} {
		got := newSchedule(tc.cfg, st)
		if want, ok := tc.want.(plateau); ok { // a metric holds a func: compare by field
			p, ok := got.(plateau)
			if !ok || p.patience != want.patience || p.factor != want.factor || p.minLR != want.minLR || p.state != want.state {
				t.Errorf("%+v: %#v, want %#v", tc.cfg, got, want)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%+v: %#v, want %#v", tc.cfg, got, tc.want)
		}
	}
}
