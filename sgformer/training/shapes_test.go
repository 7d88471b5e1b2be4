package training

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/batch"
	"github.com/sgformer/sgformer/sgformer/task"
)

// The batch profile bounds the shapes of a run (one per size level): 30 epochs of ogbg-molesol's
// training batches at the paper's recipe for a sampling ratio take no more shapes than node
// sizes, where bucketing nodes and each connectivity's edges apart gives combinations that
// grow with the epochs, and the profile pads the edges by at most 20 % more.
func TestProfileBoundsShapes(t *testing.T) {
	for _, ratio := range []float64{1, 0.2} {
		ctx := context.New()
		Defaults(ctx)
		recipe := recipeAt(t, "ogbg-molesol", ratio)
		ctx.SetParams(recipe)
		cfg, err := ReadConfig(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tk, err := task.Load(task.Source{Dataset: "ogbg-molesol", DataDir: shareddata.Dir(t, "ogbg_molesol")}, cfg.Model, t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		plain := newBatching(cfg, tk.Spec)
		profiled, err := plain.withProfile(tk.Select(tk.Train))
		if err != nil {
			t.Fatal(err)
		}
		type count struct{ shapes, nodes, padded, real int }
		counts := make([]count, 2)
		for k, b := range []batching{plain, profiled} {
			shapes, nodes := map[string]bool{}, map[int]bool{}
			for epoch := range 30 {
				rng := rand.New(rand.NewPCG(uint64(epoch), 1))
				order := rng.Perm(len(tk.Train))
				for lo := 0; lo < len(order); lo += b.size {
					exs := tk.Select(order[lo:min(lo+b.size, len(order))])
					products, err := b.products(exs, func(int) *rand.Rand { return rng })
					if err != nil {
						t.Fatal(err)
					}
					bt, err := batch.Build(exs, products, b.options, nil)
					if err != nil {
						t.Fatal(err)
					}
					shape := fmt.Sprint(bt.Nodes, bt.Graphs, len(bt.Bonds))
					for _, c := range bt.Connectivities {
						shape += fmt.Sprint(" ", c.Len())
						counts[k].padded += c.Len()
						counts[k].real += c.Real
					}
					shapes[shape], nodes[bt.Nodes] = true, true
				}
			}
			counts[k].shapes, counts[k].nodes = len(shapes), len(nodes)
		}
		t.Logf("ratio %g: bucketed apart %+v, profiled %+v", ratio, counts[0], counts[1])
		pad := func(c count) float64 { return float64(c.padded) / float64(c.real) }
		if c := counts[1]; c.shapes > c.nodes+2 || c.shapes*3 > counts[0].shapes*2 || pad(c) > pad(counts[0])*1.2 {
			t.Errorf("ratio %g: %d profiled shapes for %d node sizes (bucketed apart %d), edge padding %.3f (apart %.3f)",
				ratio, c.shapes, c.nodes, counts[0].shapes, pad(c), pad(counts[0]))
		}
	}
}
