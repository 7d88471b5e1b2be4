package backend

import (
	"fmt"
	"reflect"
	"slices"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// GoMLX's own gradients of Dot and DotGeneral: defaultDotVJP serves the shapes fastDotVJP does
// not handle, and both are what BenchmarkDotGradient compares with.
var (
	defaultDotVJP        = VJPRegistration[NodeTypeDot]
	defaultDotGeneralVJP = VJPRegistration[NodeTypeDotGeneral]
)

// registerFastGradients replaces GoMLX's gradients of Dot and DotGeneral, for every graph built
// afterwards, by ones that are themselves DotGenerals: for C = A·B with adjoint V, dA = V·Bᵀ and
// dB = Aᵀ·V, generalised to any contracting and batch axes.
func registerFastGradients() {
	VJPRegistration[NodeTypeDot] = fastDotVJP
	VJPRegistration[NodeTypeDotGeneral] = fastDotGeneralVJP
}

// dotGeneralAxes reads the axes of a DotGeneral node. GoMLX v0.26.0 keeps them in unexported
// fields of the node's inputs (*graph.nodeInputsDotGeneral); reflection may read them. Should a
// GoMLX upgrade change that layout, this panics (inside graph building, GoMLX's convention)
// saying so, and TestDotGeneralAxesLayout fails with that message.
func dotGeneralAxes(node *Node) (lhsContracting, lhsBatch, rhsContracting, rhsBatch []int) {
	in := reflect.ValueOf(node).Elem().FieldByName("inputs")
	if in.IsValid() && in.Kind() == reflect.Interface && !in.IsNil() {
		in = in.Elem()
		if in.Kind() == reflect.Pointer && !in.IsNil() {
			in = in.Elem()
		}
	}
	get := func(name string) []int {
		var f reflect.Value
		if in.Kind() == reflect.Struct {
			f = in.FieldByName(name)
		}
		if !f.IsValid() || f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.Int {
			panic(fmt.Sprintf("backend: GoMLX's DotGeneral node no longer holds its axes in inputs.%s []int "+
				"(the layout of GoMLX v0.26.0, which sgformer/backend/fastgrad.go reads): update dotGeneralAxes for this GoMLX", name))
		}
		out := make([]int, f.Len())
		for i := range out {
			out[i] = int(f.Index(i).Int())
		}
		return out
	}
	return get("lhsContractingAxes"), get("lhsBatchAxes"), get("rhsContractingAxes"), get("rhsBatchAxes")
}

// crossAxes returns the axes of an operand of the given rank that are neither contracted nor
// batch axes, in order.
func crossAxes(rank int, contracting, batch []int) []int {
	var out []int
	for a := range rank {
		if !slices.Contains(contracting, a) && !slices.Contains(batch, a) {
			out = append(out, a)
		}
	}
	return out
}

// fastDotGeneralVJP is the gradient of DotGeneral(lhs, rhs), whose output axes are
// [batch…, lhs cross…, rhs cross…].
func fastDotGeneralVJP(node *Node, vjps []*Node, _ shapes.Shape) []*Node {
	v := vjps[0]
	lhs, rhs := node.Inputs()[0], node.Inputs()[1]
	lc, lb, rc, rb := dotGeneralAxes(node)
	lCross, rCross := crossAxes(lhs.Rank(), lc, lb), crossAxes(rhs.Rank(), rc, rb)
	nb := len(lb)
	vLhsCross := make([]int, len(lCross))
	for i := range vLhsCross {
		vLhsCross[i] = nb + i
	}
	vRhsCross := make([]int, len(rCross))
	for i := range vRhsCross {
		vRhsCross[i] = nb + len(lCross) + i
	}
	return []*Node{
		operandGradient(v, rhs, lhs.Rank(), lc, lb, lCross, rc, rb, rCross, vRhsCross),
		operandGradient(v, lhs, rhs.Rank(), rc, rb, rCross, lc, lb, lCross, vLhsCross),
	}
}

// operandGradient returns the gradient with respect to one operand ("this") of a DotGeneral
// whose other operand is other: v contracted with other over other's cross axes, batched over
// the batch axes, which gives axes [batch…, this cross…, other's contracting axes in ascending
// order…]; those are then transposed back to this operand's layout.
func operandGradient(v, other *Node, rank int, thisC, thisB, thisCross, otherC, otherB, otherCross, vOtherCross []int) *Node {
	nb := len(thisB)
	vBatch := make([]int, nb)
	for i := range vBatch {
		vBatch[i] = i
	}
	grad := DotGeneral(v, vOtherCross, vBatch, other, otherCross, otherB)
	perm := make([]int, rank) // perm[axis of this] = axis of grad
	for k, a := range thisB {
		perm[a] = k
	}
	for k, a := range thisCross {
		perm[a] = nb + k
	}
	for p, oa := range slices.Sorted(slices.Values(otherC)) {
		perm[thisC[slices.Index(otherC, oa)]] = nb + len(thisCross) + p
	}
	for i, p := range perm {
		if i != p {
			return TransposeAllAxes(grad, perm...) // axis i of the result is axis perm[i] of grad
		}
	}
	return grad
}

// fastDotVJP is the gradient of Dot for two matrices; other shapes use GoMLX's own.
func fastDotVJP(node *Node, vjps []*Node, outShape shapes.Shape) []*Node {
	a, b := node.Inputs()[0], node.Inputs()[1]
	if a.Rank() != 2 || b.Rank() != 2 {
		return defaultDotVJP(node, vjps, outShape)
	}
	v := vjps[0] // v [i,k] for a [i,j], b [j,k]
	return []*Node{
		DotGeneral(v, []int{1}, nil, b, []int{1}, nil), // [i,j]
		DotGeneral(a, []int{0}, nil, v, []int{0}, nil), // [j,k]
	}
}
