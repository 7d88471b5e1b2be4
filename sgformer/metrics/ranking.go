package metrics

import (
	"fmt"
	"math"
	"sort"
)

// ROCAUC is the ROC-AUC as OGB's evaluator computes it (ogbg-molhiv, ogbg-molbace): for each
// task, over its labelled entries (targets 0 or 1, NaN missing), the area under the ROC curve
// (ties between scores count one half, as the trapezoidal rule gives), averaged over the tasks
// that have both a positive and a negative; an error if none has.
func ROCAUC(pred, target [][]float64) (float64, error) {
	return perTask(pred, target, rocAUC)
}

// AveragePrecision is the average precision as LRGB computes it (Peptides-func): for each
// class with both a positive and a negative among its labelled entries, Σ_k (R_k − R_{k−1})·P_k
// over the distinct score thresholds in decreasing order (scikit-learn's definition, without
// interpolation), averaged over those classes.
func AveragePrecision(pred, target [][]float64) (float64, error) {
	return perTask(pred, target, averagePrecision)
}

// perTask applies f to each task's labelled (score, label) pairs that hold both classes, and
// averages.
func perTask(pred, target [][]float64, f func(scores, labels []float64) float64) (float64, error) {
	if len(pred) != len(target) {
		return 0, fmt.Errorf("metrics: %d predictions for %d targets", len(pred), len(target))
	}
	if len(target) == 0 {
		return math.NaN(), fmt.Errorf("metrics: no targets")
	}
	tasks := len(target[0])
	sum, used := 0.0, 0
	for t := range tasks {
		var scores, labels []float64
		pos, neg := 0, 0
		for i := range target {
			if len(target[i]) != tasks || len(pred[i]) != tasks {
				return 0, fmt.Errorf("metrics: row %d has %d predictions and %d targets, want %d", i, len(pred[i]), len(target[i]), tasks)
			}
			y := target[i][t]
			switch {
			case math.IsNaN(y):
				continue
			case y == 1:
				pos++
			case y == 0:
				neg++
			default:
				return 0, fmt.Errorf("metrics: row %d task %d: label %v is not 0 or 1", i, t, y)
			}
			scores, labels = append(scores, pred[i][t]), append(labels, y)
		}
		if pos > 0 && neg > 0 {
			sum += f(scores, labels)
			used++
		}
	}
	if used == 0 {
		return math.NaN(), fmt.Errorf("metrics: no task has both a positive and a negative label")
	}
	return sum / float64(used), nil
}

// byScore returns the indices of scores in decreasing order.
func byScore(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx
}

// rocAUC is the probability that a random positive scores above a random negative, ties
// counting one half.
func rocAUC(scores, labels []float64) float64 {
	idx := byScore(scores)
	var pos, neg, area float64
	for lo := 0; lo < len(idx); {
		hi := lo
		var p, n float64
		for ; hi < len(idx) && scores[idx[hi]] == scores[idx[lo]]; hi++ {
			if labels[idx[hi]] == 1 {
				p++
			} else {
				n++
			}
		}
		area += n * (pos + p/2) // negatives here rank below every earlier positive, tie with these
		pos += p
		neg += n
		lo = hi
	}
	return area / (pos * neg)
}

// averagePrecision is Σ (R_k − R_{k−1}) P_k over the distinct thresholds.
func averagePrecision(scores, labels []float64) float64 {
	idx := byScore(scores)
	total := 0.0
	for _, y := range labels {
		total += y
	}
	var tp, seen, ap, lastRecall float64
	for lo := 0; lo < len(idx); {
		hi := lo
		for ; hi < len(idx) && scores[idx[hi]] == scores[idx[lo]]; hi++ {
			tp += labels[idx[hi]]
			seen++
		}
		recall := tp / total
		ap += (recall - lastRecall) * tp / seen
		lastRecall = recall
		lo = hi
	}
	return ap
}
