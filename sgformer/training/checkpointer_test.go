package training

import (
	"errors"
	"testing"
	"time"

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
