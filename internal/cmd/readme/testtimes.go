package main

import (
	"path/filepath"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// stageNames says what each stage of scripts/test.sh runs.
var stageNames = map[string]string{
	"gofmt":         "gofmt",
	"vet":           "`go vet ./...`",
	"go-test-short": "`go test -short ./...`",
	"install-xla":   "`sgformer install-xla` (63 MB from PyPI, kept in the user cache)",
	"go-test":       "`go test ./...`",
	"main-job":      "the main job (`scripts/main-job.sh`)",
	"notebooks":     "the notebooks (`scripts/notebooks.sh`)",
	"browser":       "the browser test (`scripts/browser-test.sh`)",
	"slurm":         "the Slurm templates on a one-node Slurm (`scripts/slurm-test.sh`)",
	"binder":        "the Binder image, built and its notebooks run (`scripts/binder-test.sh`)",
	"total":         "**total**",
}

// testTimesSection renders the times of scripts/test.sh's runs, one file of records per mode
// under dir, each by templates/test-times.md.tmpl.
func testTimesSection(dir string, files ...string) func(root string) (string, error) {
	return func(root string) (string, error) {
		var runs []string
		for _, file := range files {
			path := filepath.Join(dir, file)
			recs, err := record.Read(filepath.Join(root, path))
			if err != nil {
				return "", err
			}
			run, err := renderTemplate("test-times", path, recs, stageNames)
			if err != nil {
				return "", err
			}
			runs = append(runs, run)
		}
		return strings.Join(runs, "\n"), nil
	}
}
