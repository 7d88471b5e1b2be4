package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// notebookRun is what scripts/notebooks.sh --save wrote for a notebook it ran headless.
type notebookRun struct {
	Notebook   string  `json:"notebook"`
	Seconds    float64 `json:"seconds"`
	PeakRSSMiB float64 `json:"peak_rss_mib"`
	Commit     string  `json:"commit"`
	Date       string  `json:"date"`
	Cores      int     `json:"cores"`
	LoadBefore string  `json:"load_before"`
}

// notebooksSection renders the time and peak memory of each notebook's last saved run, from
// the files NAME.json under dir.
func notebooksSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		paths, err := filepath.Glob(filepath.Join(root, dir, "*.json"))
		if err != nil || len(paths) == 0 {
			return "", fmt.Errorf("no notebook runs in %s (scripts/notebooks.sh --save writes them): %v", dir, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "From `%s/` (`scripts/notebooks.sh --save`: each notebook executed top to bottom by nbconvert, its memory the peak of the resident sets of nbconvert, the GoNB kernel, `go build` and the cells' programs added up every 0.1 s):\n\n", dir)
		b.WriteString("| notebook | seconds | peak memory (MiB) | commit | date | cores | load before |\n|---|---:|---:|---|---|---:|---|\n")
		for _, path := range paths {
			raw, err := os.ReadFile(path)
			if err != nil {
				return "", err
			}
			var r notebookRun
			if err := json.Unmarshal(raw, &r); err != nil || r.Notebook == "" || r.Seconds <= 0 || r.PeakRSSMiB <= 0 {
				return "", fmt.Errorf("%s: want {\"notebook\", \"seconds\", \"peak_rss_mib\", ...}: %v", path, err)
			}
			fmt.Fprintf(&b, "| `%s` | %.0f | %.0f | %s | %s | %d | %s |\n", r.Notebook, r.Seconds, r.PeakRSSMiB, r.Commit, r.Date, r.Cores, r.LoadBefore)
		}
		return b.String(), nil
	}
}
