package main

import (
	"fmt"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// swingsSection renders scripts/validation-swings.sh's records: each epoch's training loss and
// test MAE of sgformer (and its validation MAE) and of the PyG peer with either start of its
// embeddings, then the last epoch's weights evaluated with the running averages training left
// and with BatchNorm recalibrated.
func swingsSection(file string, recs record.Set) (string, error) {
	cols := [][]float64{recs.Values("sgformer", "train_loss", ""), recs.Values("sgformer", "val", ""), recs.Values("sgformer", "test", "")}
	for _, peer := range []string{"pyg", "pyg authors-init"} {
		cols = append(cols, recs.Values(peer, "train_loss", ""), recs.Values(peer, "test_mae", ""))
	}
	rows := 0
	for _, col := range cols {
		rows = max(rows, len(col))
	}
	if len(cols[0]) == 0 || len(cols[1]) != len(cols[0]) || len(cols[2]) != len(cols[0]) ||
		len(cols[3]) == 0 || len(cols[4]) != len(cols[3]) || len(cols[5]) == 0 || len(cols[6]) != len(cols[5]) {
		return "", fmt.Errorf("%s: want each epoch's training loss, validation and test MAE of sgformer, and training loss and test MAE of the peers", file)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s):\n\n| epoch | sgformer: training loss | validation MAE | test MAE | PyG, N(0, 1) embeddings: training loss | test MAE | PyG, the authors' start: training loss | test MAE |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n", file, provenance(recs))
	for i := range rows {
		cells := []string{fmt.Sprint(i + 1)}
		for _, col := range cols {
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
