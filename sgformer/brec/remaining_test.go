package brec

import (
	"math"
	"testing"
	"time"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// The time left is the elapsed time scaled by the work left over the work done: for a model,
// product graphs of n^K nodes, so that large pairs after small ones are not timed by the small
// ones' pace; for an oracle, pairs.
func TestRemaining(t *testing.T) {
	pair := func(n int) data.Pair {
		g, err := graph.New(n, nil, graph.Features{}, graph.Features{})
		if err != nil {
			t.Fatal(err)
		}
		return data.Pair{A: g, B: g}
	}
	todo := []data.Pair{pair(10), pair(10), pair(20), pair(40)}
	nodes := func(k int) func(data.Pair) float64 {
		return func(p data.Pair) float64 { return math.Pow(float64(p.A.N()), float64(k)) }
	}
	for _, tc := range []struct {
		name    string
		i       int // the last pair done
		work    func(data.Pair) float64
		elapsed time.Duration
		want    time.Duration
	}{
		{"pairs", 1, func(data.Pair) float64 { return 1 }, 2 * time.Second, 2 * time.Second}, // 2 left at 1 s each
		{"K = 2", 1, nodes(2), 2 * time.Second, 20 * time.Second},                            // 400 + 1,600 left, 200 done
		{"K = 3", 2, nodes(3), 5 * time.Second, 32 * time.Second},                            // 64,000 left, 10,000 done
		{"the last pair", 3, nodes(2), 7 * time.Second, 0},
	} {
		if got := remaining(todo, tc.i, tc.work, tc.elapsed); got != tc.want {
			t.Errorf("%s: remaining %v, want %v", tc.name, got, tc.want)
		}
	}
}
