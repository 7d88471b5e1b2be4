package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/internal/report"
)

// gpuSection renders docs/gpu.md's results of the device calls: the records that
// `scripts/gpu-run.sh collect` wrote into dir (templates/gpu.md.tmpl) beside the paper's A100
// timings, and the ZINC-12k seeds the calls trained (dir/runs).
func gpuSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		file := filepath.Join(dir, gpuresult.RecordsFile)
		if _, err := os.Stat(filepath.Join(root, file)); errors.Is(err, fs.ErrNotExist) {
			return "Status: prepared and dry-run on the CPU, **not yet run on a GPU**: no device has been lent to a\n" +
				"session so far (`" + dir + "/` holds nothing). Nothing below is a GPU measurement.\n", nil
		}
		recs, err := record.Read(filepath.Join(root, file))
		if err != nil {
			return "", err
		}
		// the paper's A100 seconds of a training epoch and a test pass (Table "run-time zinc")
		paper := report.RunTimeZINCTable.Row(report.SubgraphormerPE).Cells
		text, err := renderTemplate("gpu", file, recs, map[string]string{"Dir": dir, "PaperEpoch": paper[0].Value.Mean, "PaperTest": paper[1].Value.Mean})
		if err != nil {
			return "", err
		}
		if runs, _ := filepath.Glob(filepath.Join(root, dir, "runs", "seed-*")); len(runs) > 0 {
			seeds, err := seedsSection(dir+"/runs", report.ZINCTable.Cell("zinc12k", report.SubgraphormerPE, 1))(root)
			if err != nil {
				return "", err
			}
			text += "\nZINC-12k, the paper's recipe for 400 epochs, the seeds trained at the same time on the one GPU (`" + dir + "/runs/`):\n\n" + seeds
		}
		return text, nil
	}
}
