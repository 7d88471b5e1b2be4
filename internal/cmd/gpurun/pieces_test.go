package main

import (
	"strings"
	"testing"
	"time"
)

func TestParsePieces(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		names []string // the pieces' folders, when valid
		err   string   // else the error
	}{
		{args: []string{"check", "parity", "speed:sparse"}, names: []string{"check", "parity", "speed-sparse"}},
		{args: []string{"speed:sparse", "speed:dense", "pyg"}, names: []string{"speed-sparse", "speed-dense", "pyg"}},
		{args: []string{"zinc:0,1,2"}, names: []string{"zinc-0-1-2"}},
		// 5 tarballs, 2 seeds' runs and pieces.jsonl: the most the device returns
		{args: []string{"check", "parity", "pyg", "speed:sparse", "zinc:0,1"}, names: []string{"check", "parity", "pyg", "speed-sparse", "zinc-0-1"}},
		{args: []string{"check", "speed:fast"}, err: "unknown piece speed:fast"},
		{args: []string{"speed"}, err: "unknown piece speed"},
		{args: []string{"check:1"}, err: "unknown piece check:1"},
		{args: []string{"zinc:0,x"}, err: "unknown piece zinc:0,x"},
		{args: []string{"zinc:"}, err: "unknown piece zinc:"},
		{args: []string{"zinc:-1"}, err: "unknown piece zinc:-1"},
		{args: []string{"zinc:01"}, err: "unknown piece zinc:01"},
		{args: []string{"check", "summary"}, err: "unknown piece summary"},
		{args: []string{"check", "check"}, err: "piece check given twice"},
		{args: []string{"zinc:0,0"}, err: "zinc:0,0 names seed 0 twice"},
		{args: []string{"zinc:0,1", "zinc:1"}, err: "seed 1 is in zinc:0,1 and in zinc:1"},
		{args: []string{"check", "parity", "pyg", "speed:sparse", "zinc:0,1,2"}, err: "would leave 9 files in $OUT, and the device returns 8"},
	} {
		got, err := parsePieces(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want one with %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		var names []string
		for _, p := range got {
			names = append(names, p.name())
		}
		if strings.Join(names, " ") != strings.Join(tc.names, " ") {
			t.Errorf("%v: folders %v, want %v", tc.args, names, tc.names)
		}
	}
}

func TestParsePiece(t *testing.T) {
	p, err := parsePiece("zinc:2,10")
	if err != nil || p.kind != "zinc" || len(p.seeds) != 2 || p.seeds[0] != 2 || p.seeds[1] != 10 {
		t.Errorf("zinc:2,10 = %+v, %v", p, err)
	}
	p, err = parsePiece("speed:dense")
	if err != nil || p.kind != "speed" || p.exec != "dense" {
		t.Errorf("speed:dense = %+v, %v", p, err)
	}
}

func TestPieceLimit(t *testing.T) {
	for _, tc := range []struct {
		budget, elapsed, left time.Duration
		start                 bool
	}{
		{540 * time.Second, 0, 540 * time.Second, true},
		{540 * time.Second, 100*time.Second + 300*time.Millisecond, 440 * time.Second, true},
		{540 * time.Second, 480*time.Second + 999*time.Millisecond, 60 * time.Second, true},
		{540 * time.Second, 481 * time.Second, 59 * time.Second, false},
		{540 * time.Second, 600 * time.Second, -60 * time.Second, false},
		{30 * time.Second, 0, 30 * time.Second, false},
	} {
		left, start := pieceLimit(tc.budget, tc.elapsed)
		if left != tc.left || start != tc.start {
			t.Errorf("pieceLimit(%v, %v) = %v, %v; want %v, %v", tc.budget, tc.elapsed, left, start, tc.left, tc.start)
		}
	}
}

func TestZincLimit(t *testing.T) {
	for _, tc := range []struct {
		budget, left, limit time.Duration
		err                 bool
	}{
		{540 * time.Second, 540 * time.Second, 510 * time.Second, false}, // the margin for the last checkpoint
		{300 * time.Second, 540 * time.Second, 300 * time.Second, false}, // $ZINC_BUDGET_S
		{540 * time.Second, 60 * time.Second, 30 * time.Second, false},
		{540 * time.Second, 30 * time.Second, 0, true},
		{540 * time.Second, 10 * time.Second, 0, true},
	} {
		limit, err := zincLimit(tc.budget, tc.left)
		if limit != tc.limit || (err != nil) != tc.err {
			t.Errorf("zincLimit(%v, %v) = %v, %v; want %v (error %v)", tc.budget, tc.left, limit, err, tc.limit, tc.err)
		}
	}
}

func TestConfigFrom(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	c, err := configFrom(env())
	if err != nil {
		t.Fatal(err)
	}
	want := config{out: "build/gpu-out", work: "build/gpu-work", results: "results/zinc12k-gpu", python: "python3",
		budget: 540 * time.Second, zincBudget: 540 * time.Second, zincEpochs: 400, rtol: 1e-3}
	if c != want {
		t.Errorf("defaults %+v, want %+v", c, want)
	}
	c, err = configFrom(env("SGFORMER_GPU_DRYRUN", "1", "GPU_CALL_BUDGET_S", "3600", "ZINC_EPOCHS", "2", "PARITY_RTOL", "1e-5"))
	if err != nil || !c.dry || c.budget != time.Hour || c.zincEpochs != 2 || c.rtol != 1e-5 {
		t.Errorf("set: %+v, %v", c, err)
	}
	for _, kv := range [][2]string{
		{"SGFORMER_GPU_DRYRUN", "yes"}, {"GPU_CALL_BUDGET_S", "9m"}, {"ZINC_BUDGET_S", "0"},
		{"ZINC_EPOCHS", "-1"}, {"PARITY_RTOL", "x"}, {"PARITY_RTOL", "0"},
	} {
		if _, err := configFrom(env(kv[0], kv[1])); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%s=%s: error %v, want one naming it", kv[0], kv[1], err)
		}
	}
}
