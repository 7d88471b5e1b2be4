package main

import (
	"fmt"
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

// testTimesSection renders the times of scripts/test.sh's runs (SGFORMER_TEST_TIMES=FILE), one
// file of records per mode under dir: each stage's seconds in the order they ran, the last the
// total.
func testTimesSection(dir string, files ...string) func(root string) (string, error) {
	return func(root string) (string, error) {
		var b strings.Builder
		for _, file := range files {
			path := filepath.Join(dir, file)
			recs, err := record.Read(filepath.Join(root, path))
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "From `%s` (%s):\n\n| stage | seconds |\n|---|---:|\n", path, provenance(recs))
			last := ""
			for _, r := range recs {
				last = r.Labels["stage"]
				name, ok := stageNames[last]
				if !ok || r.What != "seconds" {
					return "", fmt.Errorf("%s: record %q of stage %q: want the seconds of a known stage", path, r.What, last)
				}
				fmt.Fprintf(&b, "| %s | %.0f |\n", name, r.Value)
			}
			if last != "total" {
				return "", fmt.Errorf("%s: no total: the run did not finish", path)
			}
			b.WriteString("\n")
		}
		return strings.TrimSuffix(b.String(), "\n"), nil
	}
}
