package brec_test

import (
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/xlatest"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/brec"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/training"
)

// BREC's protocol on a small Subgraphormer: it tells the 6-cycle from two triangles (1-WL
// cannot, a node-marked subgraph model can), passing the reliability check; it cannot tell the
// 4×4 rook's graph from the Shrikhande graph, beyond 2-FWL, which bounds 2-tuple models.
func TestModelPair(t *testing.T) {
	be := xlatest.CPU(t)
	opt := brec.DefaultModelOptions(map[string]any{model.ParamLayers: 2, model.ParamHidden: 24, model.ParamHeads: 2, model.ParamPEK: 0})
	opt.LearningRate = 1e-3 // BREC's 1e-5 is its default; models set their own
	m, err := brec.NewModel(be, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The pair told apart tested again last: the same model, started afresh, tells it apart
	// again, with the same numbers.
	var first brec.Record
	for i, c := range []struct {
		pair int
		want bool
	}{{0, true}, {1, false}, {0, true}} {
		r, err := m.Pair(pairs[c.pair], "subgraphormer")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("pair %d: %+v", c.pair, r)
		if r.Distinguished != c.want || !r.Reliable || r.T2Reliability >= brec.Threshold {
			t.Errorf("pair %d (%s): distinguished %v (want %v), reliable %v: T2 %.4g, reliability T2 %.4g after %d epochs, loss %.4g",
				c.pair, pairs[c.pair].Category, r.Distinguished, c.want, r.Reliable, r.T2, r.T2Reliability, r.Epochs, r.Loss)
		}
		switch i {
		case 0:
			first = r
		case 2:
			if r.T2 != first.T2 || r.T2Reliability != first.T2Reliability || r.Epochs != first.Epochs {
				t.Errorf("pair %d again: T2 %v, %v after %d epochs; the first time %v, %v after %d", c.pair, r.T2, r.T2Reliability, r.Epochs, first.T2, first.T2Reliability, first.Epochs)
			}
		}
	}
}

// A benchmark's pairs come in many sizes: a model tests more of them than GoMLX compiles
// programs for one executor (32) and maxSizes, dropping its programs on the way, and a pair
// tested again after the drop gives the numbers it gave before.
func TestModelManySizes(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	// No padding (bucket 1): every size its own shapes.
	opt := brec.DefaultModelOptions(map[string]any{model.ParamModel: model.GIN, model.ParamLayers: 1, model.ParamHidden: 8, training.ParamBucket: 1.0})
	opt.Epochs = 1
	m, err := brec.NewModel(be, opt)
	if err != nil {
		t.Fatal(err)
	}
	var first brec.Record
	for n := 6; n <= 40; n++ {
		// The n-cycle and a triangle beside an (n − 3)-cycle: 2-regular both, n nodes and edges.
		var edges []graph.Edge
		for _, e := range testgraphs.Cycle(n - 3).Edges() {
			edges = append(edges, graph.Edge{e[0] + 3, e[1] + 3})
		}
		b, err := graph.New(n, append(edges, testgraphs.TwoTriangles().Edges()[:3]...), graph.Features{}, graph.Features{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.Pair(data.Pair{Index: n, Category: "cycles", A: testgraphs.Cycle(n), B: b}, "gin")
		if err != nil {
			t.Fatalf("%d nodes: %v", n, err)
		}
		if n == 6 {
			first = r
		}
	}
	again, err := m.Pair(data.Pair{Index: 6, Category: "cycles", A: testgraphs.Cycle(6), B: testgraphs.TwoTriangles()}, "gin")
	if err != nil || again.T2 != first.T2 || again.T2Reliability != first.T2Reliability {
		t.Errorf("the first pair again: T2 %v, %v (%v); the first time %v, %v", again.T2, again.T2Reliability, err, first.T2, first.T2Reliability)
	}
}
