package model

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
)

// Losses take labels [targets, mask] (both [B+1, T], Tensors' layout) and predictions
// [B+1, T], and average over the present targets only.

// L1Loss is the mean absolute error over present targets (the ZINC loss).
func L1Loss(labels, predictions []*Node) *Node {
	return maskedMean(Abs(Sub(predictions[0], ConvertDType(labels[0], predictions[0].DType()))), labels[1])
}

// MSELoss is the mean squared error over present targets.
func MSELoss(labels, predictions []*Node) *Node {
	return maskedMean(Square(Sub(predictions[0], ConvertDType(labels[0], predictions[0].DType()))), labels[1])
}

// RMSELoss is the square root of the mean squared error over present targets, per batch (the
// authors' loss for ogbg-molesol). A batch predicted exactly has loss 0 and gradient 0.
func RMSELoss(labels, predictions []*Node) *Node {
	mse := MSELoss(labels, predictions)
	return Sqrt(MaxScalar(mse, 1e-30))
}

// BCEWithLogitsLoss is the binary cross-entropy of logits over present targets, computed
// stably as max(z, 0) − z·y + log(1 + e^−|z|).
func BCEWithLogitsLoss(labels, predictions []*Node) *Node {
	z := predictions[0]
	y := ConvertDType(labels[0], z.DType())
	loss := Add(Sub(MaxScalar(z, 0), Mul(z, y)), Log1p(Exp(Neg(Abs(z)))))
	return maskedMean(loss, labels[1])
}

// maskedMean averages x where mask is 1; elsewhere x is ignored, even if not finite.
func maskedMean(x, mask *Node) *Node {
	m := ConvertDType(mask, x.DType())
	present := GreaterThan(m, ZerosLike(m))
	return Div(ReduceAllSum(Where(present, x, ZerosLike(x))), MaxScalar(ReduceAllSum(m), 1))
}
