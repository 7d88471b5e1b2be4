package model

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/sgformer/sgformer/sgformer/backend"
)

// Pooling of a sampled bag against hand-computed values: graph 0 has n = 3 and kept
// subgraphs 0 and 2 (6 product nodes), graph 1 has n = 2 and its full bag (4 nodes), the
// last slot is padding. SubgraphMean is the mean over kept subgraphs of their sums, Mean the
// mean over kept product nodes — never over rows that sampling dropped (the second defect of
// the reference code).
func TestPoolSampled(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 7}
	nodeGraph := []int32{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2}
	graphN := []float32{3, 2, 1}
	graphNodes := []float32{6, 4, 1}
	want := map[string][]float64{
		SubgraphMean: {21.0 / 2, 100.0 / 2, 7},
		Mean:         {21.0 / 6, 100.0 / 4, 7},
		Sum:          {21, 100, 7},
	}
	for pooling, w := range want {
		got := MustExecOnce(be, func(x, ng, n, nodes *Node) *Node {
			return pool(x, Inputs{NodeGraph: ng, GraphN: n, GraphNodes: nodes}, Config{Pooling: pooling})
		}, tensors.FromFlatDataAndDimensions(x, len(x), 1), tensors.FromFlatDataAndDimensions(nodeGraph, len(x), 1),
			tensors.FromValue(graphN), tensors.FromValue(graphNodes))
		flat := tensors.MustCopyFlatData[float64](got)
		for i := range w {
			if math.Abs(flat[i]-w[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", pooling, flat, w)
				break
			}
		}
	}
}
