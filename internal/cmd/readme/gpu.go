package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// gpuSection renders docs/gpu.md's results of the device calls: the records that
// `scripts/gpu-run.sh collect` wrote into dir (templates/gpu.md.tmpl), and the ZINC-12k seeds
// the calls trained (dir/runs).
func gpuSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		file := filepath.Join(dir, gpuresult.RecordsFile)
		if _, err := os.Stat(filepath.Join(root, file)); errors.Is(err, fs.ErrNotExist) {
			return "Status: prepared and dry-run on the CPU, **not yet run on a GPU**: no device has been lent to a\n" +
				"session so far (`" + dir + "/` holds nothing). Nothing below is a GPU measurement.\n", nil
		}
		text, err := templateSection("gpu", file)(root)
		if err != nil {
			return "", err
		}
		if runs, _ := filepath.Glob(filepath.Join(root, dir, "runs", "seed-*")); len(runs) > 0 {
			seeds, err := seedsSection(dir+"/runs", "0.063 ± 0.001")(root)
			if err != nil {
				return "", err
			}
			text += "\nZINC-12k, the paper's recipe for 400 epochs, the seeds trained at the same time on the one GPU (`" + dir + "/runs/`):\n\n" + seeds
		}
		return text, nil
	}
}
