package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// authorsModelSection renders the model the authors' code trained (scripts/authors-train.py
// wrote dir) beside its evaluation by sgformer (scripts/pytorch-import.sh wrote
// dir/sgformer-eval.json).
func authorsModelSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		var theirs struct {
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
		var ours struct {
			Epoch int     `json:"epoch"`
			Val   float64 `json:"val"`
			Test  float64 `json:"test"`
		}
		for _, f := range []struct {
			name string
			v    any
		}{{"summary.json", &theirs}, {"sgformer-eval.json", &ours}} {
			raw, err := os.ReadFile(filepath.Join(root, dir, f.name))
			if err != nil {
				return "", err
			}
			if err := json.Unmarshal(raw, f.v); err != nil {
				return "", fmt.Errorf("%s: %w", filepath.Join(dir, f.name), err)
			}
		}
		if !theirs.Complete {
			return "", fmt.Errorf("%s: their run is not complete (%d of %d epochs)", dir, theirs.Done, theirs.Epochs)
		}
		commit := theirs.AuthorsCommit
		if len(commit) > 7 {
			commit = commit[:7]
		}
		return fmt.Sprintf(`| ogbg-molesol, Subgraphormer + PE, seed 0 | val RMSE | test RMSE |
|---|---:|---:|
| their code, their evaluation (best validation: epoch %d of %d) | %.4f | %.4f |
| the same weights imported, evaluated by sgformer | %.4f | %.4f |
| the paper (3 seeds) | | 0.826 ± 0.010 |

Their code at commit %s (torch %s, PyG %s, on the CPU, %.0f s per epoch on a shared
2-core machine): `+"`%s`"+`. Their evaluation flips the PE's signs at random at every forward
pass; sgformer's keeps package pe's convention: the two evaluations differ by that alone.
`, theirs.BestEpoch+1, theirs.Done, theirs.Val, theirs.Test, ours.Val, ours.Test, commit, theirs.Torch, theirs.PyG, theirs.SecondsEpoch, dir), nil
	}
}
