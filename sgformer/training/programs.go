package training

import (
	"strings"

	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// compilations counts the programs a process builds for its batches: GoMLX builds one per
// shape of the inputs (and XLA compiles each), for the training step and for evaluation, and
// the seconds they take.
type compilations struct {
	seen    map[string]bool
	count   int
	seconds float64
}

// add reports whether inputs of these shapes were not seen before, which it counts.
func (c *compilations) add(inputs []shapes.Shape) bool {
	var key strings.Builder
	for _, x := range inputs {
		key.WriteString(x.String())
	}
	if c.seen[key.String()] {
		return false
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[key.String()] = true
	c.count++
	return true
}

// take returns the programs counted and their seconds since the last take.
func (c *compilations) take() (int, float64) {
	n, s := c.count, c.seconds
	c.count, c.seconds = 0, 0
	return n, s
}

// shapesOf returns the shapes of xs.
func shapesOf(xs []*tensors.Tensor) []shapes.Shape {
	out := make([]shapes.Shape, len(xs))
	for i, x := range xs {
		out[i] = x.Shape()
	}
	return out
}
