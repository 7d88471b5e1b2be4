package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sgformer/sgformer/internal/report"
)

// authorsModelSection renders the model the authors' code trained (scripts/authors-train.py
// wrote dir) beside its evaluation by sgformer (scripts/pytorch-import.sh wrote
// dir/sgformer-eval.json) and the paper's cell (internal/report), by
// templates/authors-model.md.tmpl.
func authorsModelSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		var data struct {
			Dir, Paper string
			BestEpoch  int // their best epoch counted from 1, as the documents count
			Theirs     struct {
				Complete      bool    `json:"complete"`
				Epochs        int     `json:"epochs"`
				Done          int     `json:"epochs_done"`
				BestEpoch     int     `json:"best_epoch"` // from 0, as their main.py counts
				Val           float64 `json:"best_val"`
				Test          float64 `json:"test_at_best_val"`
				SecondsEpoch  float64 `json:"seconds_per_epoch_median"`
				Torch         string  `json:"torch"`
				PyG           string  `json:"torch_geometric"`
				AuthorsCommit string  `json:"authors_commit"`
			}
			Ours struct {
				Val  float64 `json:"val"`
				Test float64 `json:"test"`
			}
		}
		data.Dir, data.Paper = dir, report.OGBTable.Cell(report.Molesol, report.SubgraphormerPE, 1).Value.String()
		for _, f := range []struct {
			name string
			v    any
		}{{"summary.json", &data.Theirs}, {"sgformer-eval.json", &data.Ours}} {
			raw, err := os.ReadFile(filepath.Join(root, dir, f.name))
			if err != nil {
				return "", err
			}
			if err := json.Unmarshal(raw, f.v); err != nil {
				return "", fmt.Errorf("%s: %w", filepath.Join(dir, f.name), err)
			}
		}
		if !data.Theirs.Complete {
			return "", fmt.Errorf("%s: their run is not complete (%d of %d epochs)", dir, data.Theirs.Done, data.Theirs.Epochs)
		}
		data.BestEpoch = data.Theirs.BestEpoch + 1
		return renderTemplate("authors-model", dir, nil, data)
	}
}
