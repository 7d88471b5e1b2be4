package training

import (
	"math"
	"testing"

	"github.com/sgformer/sgformer/sgformer/metrics"
)

// The best epoch is the first, then each with a strictly better validation metric (a NaN is
// never better); its test metric goes with it.
func TestBestUpdate(t *testing.T) {
	mae, err := metrics.ByName("mae")
	if err != nil {
		t.Fatal(err)
	}
	auc, err := metrics.ByName("rocauc")
	if err != nil {
		t.Fatal(err)
	}
	type epoch struct {
		valid, test float64
		improved    bool
	}
	for _, tc := range []struct {
		name   string
		metric metrics.Metric
		epochs []epoch
		want   best
	}{
		{"mae", mae, []epoch{{3, 30, true}, {2, 20, true}, {2, 25, false}, {2.5, 5, false}, {math.NaN(), 1, false}}, best{2, 2, 20}},
		{"rocauc", auc, []epoch{{0.6, 0.5, true}, {0.5, 0.9, false}, {0.7, 0.6, true}}, best{3, 0.7, 0.6}},
		{"a NaN first epoch is the best until another", mae, []epoch{{math.NaN(), 1, true}, {5, 2, true}}, best{2, 5, 2}},
	} {
		var b best
		for i, e := range tc.epochs {
			if got := b.update(tc.metric, i+1, e.valid, e.test); got != e.improved {
				t.Errorf("%s: epoch %d (val %v): improved %v, want %v", tc.name, i+1, e.valid, got, e.improved)
			}
		}
		if b != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, b, tc.want)
		}
	}
}
