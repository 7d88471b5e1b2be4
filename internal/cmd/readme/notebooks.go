package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sgformer/sgformer/internal/record"
)

// notebooksSection renders the time and peak memory of each notebook's last saved run, from
// the records NAME.jsonl that scripts/notebooks.sh --save writes under dir.
func notebooksSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		paths, err := filepath.Glob(filepath.Join(root, dir, "*.jsonl"))
		if err != nil || len(paths) == 0 {
			return "", fmt.Errorf("no notebook runs in %s (scripts/notebooks.sh --save writes them): %v", dir, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "From `%s/` (`scripts/notebooks.sh --save`: each notebook executed top to bottom by nbconvert, its memory the peak of the resident sets of nbconvert, the GoNB kernel, `go build` and the cells' programs added up every 0.1 s):\n\n", dir)
		b.WriteString("| notebook | seconds | peak memory (MiB) | commit | date | machine | load before |\n|---|---:|---:|---|---|---|---|\n")
		for _, path := range paths {
			recs, err := record.Read(path)
			if err != nil {
				return "", err
			}
			name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
			seconds, ok1 := recs.Value(name, "seconds", "")
			rss, ok2 := recs.Value(name, "peak_rss_mib", "")
			if !ok1 || !ok2 || seconds <= 0 || rss <= 0 {
				return "", fmt.Errorf("%s: want the seconds and peak_rss_mib of part %q", path, name)
			}
			c := recs[0].Context
			fmt.Fprintf(&b, "| `%s` | %.0f | %.0f | %s | %s | %s | %s |\n", name, seconds, rss, c.Commit, c.Date, c.Machine, c.Load)
		}
		return b.String(), nil
	}
}
