package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// testRun is what `SGFORMER_TEST_TIMES=FILE scripts/test.sh [quick]` wrote: where and when it
// ran, then each stage's seconds in the order they ran (the last is the total).
type testRun struct {
	Mode, Commit, Date, Go string
	Cores                  int
	LoadBefore             string `json:"load_before"`
	stages                 []string
	seconds                []float64
}

// readTestRun reads a file of scripts/test.sh's times.
func readTestRun(path string) (testRun, error) {
	var r testRun
	f, err := os.Open(path)
	if err != nil {
		return r, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Mode == "" {
				return r, fmt.Errorf("%s:1: want the run's header (mode, commit, date, ...): %v", path, err)
			}
			continue
		}
		var s struct {
			Stage   string
			Seconds *float64
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil || s.Stage == "" || s.Seconds == nil {
			return r, fmt.Errorf("%s:%d: want {\"stage\": NAME, \"seconds\": N}: %v", path, line, err)
		}
		r.stages, r.seconds = append(r.stages, s.Stage), append(r.seconds, *s.Seconds)
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	if len(r.stages) == 0 || r.stages[len(r.stages)-1] != "total" {
		return r, fmt.Errorf("%s: no total: the run did not finish", path)
	}
	return r, nil
}

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

// testTimesSection renders the times of scripts/test.sh's runs, one file per mode under dir.
func testTimesSection(dir string, files ...string) func(root string) (string, error) {
	return func(root string) (string, error) {
		var b strings.Builder
		for _, file := range files {
			path := filepath.Join(dir, file)
			r, err := readTestRun(filepath.Join(root, path))
			if err != nil {
				return "", err
			}
			cmd := "scripts/test.sh"
			if r.Mode != "all" {
				cmd += " " + r.Mode
			}
			fmt.Fprintf(&b, "`%s`, from `%s` (commit %s, %s, %d cores, load before %s, %s):\n\n| stage | seconds |\n|---|---:|\n",
				cmd, path, r.Commit, r.Date, r.Cores, r.LoadBefore, r.Go)
			for i, s := range r.stages {
				name, ok := stageNames[s]
				if !ok {
					return "", fmt.Errorf("%s: unknown stage %q", path, s)
				}
				fmt.Fprintf(&b, "| %s | %.0f |\n", name, r.seconds[i])
			}
			b.WriteString("\n")
		}
		return strings.TrimSuffix(b.String(), "\n"), nil
	}
}
