package main

import (
	"slices"
	"testing"
)

func TestPredictionColumns(t *testing.T) {
	for _, c := range []struct {
		header, names []string
		tasks         int
		want          []string
		wantErr       string
	}{
		{[]string{"smiles"}, []string{"measured log solubility in mols per litre"}, 1,
			[]string{"pred_measured_log_solubility_in_mols_per_litre"}, "error"},
		{[]string{"name", "smiles", "logS"}, []string{"logS"}, 1, []string{"pred_logS"}, "error"},
		{[]string{"smiles", "pred_logS", "error"}, []string{"logS"}, 1, []string{"pred_pred_logS"}, "pred_error"},
		{[]string{"smiles"}, nil, 2, []string{"pred_0", "pred_1"}, "error"},
		{[]string{"smiles"}, []string{"only one name"}, 2, []string{"pred_0", "pred_1"}, "error"},
		{[]string{"smiles"}, []string{"  -- HIV/active (%) --", "Class"}, 2, []string{"pred_HIV_active", "pred_Class"}, "error"},
		{[]string{"smiles"}, []string{"été", "x"}, 2, []string{"pred_été", "pred_x"}, "error"},
		{[]string{"smiles"}, []string{"a", "a!"}, 2, []string{"pred_a", "pred_pred_a"}, "error"},
	} {
		preds, errCol := predictionColumns(c.header, c.names, c.tasks)
		if !slices.Equal(preds, c.want) || errCol != c.wantErr {
			t.Errorf("predictionColumns(%q, %q, %d) = %q, %q; want %q, %q", c.header, c.names, c.tasks, preds, errCol, c.want, c.wantErr)
		}
	}
}
