package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A run's stages are rendered in order with what each runs; a run without its total (it died)
// or with a stage the table does not know is an error.
func TestTestTimesSection(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"complete", "== all\n" + `{"stage":"vet","seconds":37}` + "\n" + `{"stage":"total","seconds":40}` + "\n", "| `go vet ./...` | 37 |\n| **total** | 40 |"},
		{"no total: the run died", "== all\n" + `{"stage":"vet","seconds":37}` + "\n", "no total"},
		{"an unknown stage", "== all\n" + `{"stage":"lint","seconds":3}` + "\n", `stage "lint"`},
	} {
		root := t.TempDir()
		writeRecords(t, filepath.Join(root, "times.jsonl"), c.body)
		got, err := testTimesSection(".", "times.jsonl")(root)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q in it", c.name, got, c.want)
		}
	}
}
