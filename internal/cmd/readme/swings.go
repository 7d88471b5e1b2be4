package main

import (
	"fmt"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// swingsSection renders scripts/validation-swings.sh's records: each epoch's training loss and
// test MAE of sgformer (and its validation MAE) and of the PyG peer, then the last epoch's
// weights evaluated with the running averages training left and with BatchNorm recalibrated.
func swingsSection(file string, recs record.Set) (string, error) {
	ours := [3][]float64{recs.Values("sgformer", "train_loss", ""), recs.Values("sgformer", "val", ""), recs.Values("sgformer", "test", "")}
	pyg := [2][]float64{recs.Values("pyg", "train_loss", ""), recs.Values("pyg", "test_mae", "")}
	n := len(ours[0])
	if n == 0 || len(ours[1]) != n || len(ours[2]) != n || len(pyg[0]) != len(pyg[1]) {
		return "", fmt.Errorf("%s: want each epoch's training loss, validation and test MAE of sgformer and training loss and test MAE of pyg", file)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n| epoch | sgformer: training loss | validation MAE | test MAE | PyG: training loss | test MAE |\n|---:|---:|---:|---:|---:|---:|\n", file, provenance(recs))
	for i := range max(n, len(pyg[0])) {
		cells := []string{fmt.Sprint(i + 1)}
		for _, col := range [][]float64{ours[0], ours[1], ours[2], pyg[0], pyg[1]} {
			cell := "—"
			if i < len(col) {
				cell = fmt.Sprintf("%.3f", col[i])
			}
			cells = append(cells, cell)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	b.WriteString("\n| the last epoch's weights (`sgformer eval --checkpoint latest`) | epoch | BatchNorm's running averages | validation MAE | test MAE |\n|---|---:|---|---:|---:|\n")
	for _, run := range []struct{ name, label string }{{"sgformer", "the run above"}, {"gpu", "`results/zinc12k-gpu/runs/seed-0` (the full training split, on a GPU)"}} {
		for _, bn := range []struct{ part, label string }{{"running", "as training left them"}, {"recalibrated", "recalibrated (`--recalibrate-bn`)"}} {
			part := "eval " + run.name + " " + bn.part
			epoch, ok1 := recs.Value(part, "epoch", "")
			val, ok2 := recs.Value(part, "val", "")
			test, ok3 := recs.Value(part, "test", "")
			if !ok1 || !ok2 || !ok3 {
				return "", fmt.Errorf("%s: no %q", file, part)
			}
			fmt.Fprintf(&b, "| %s | %.0f | %s | %.3f | %.3f |\n", run.label, epoch, bn.label, val, test)
		}
	}
	return b.String(), nil
}
