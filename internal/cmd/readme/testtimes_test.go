package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTestRun(t *testing.T) {
	header := `{"mode":"all","commit":"abc1234","date":"2026-11-26T17:00:00Z","cores":2,"load_before":"1.0 1.0 1.0","go":"go1.26.8"}` + "\n"
	for _, c := range []struct{ name, text, err string }{
		{"complete", header + `{"stage":"vet","seconds":37}` + "\n" + `{"stage":"total","seconds":40}` + "\n", ""},
		{"no total: the run died", header + `{"stage":"vet","seconds":37}` + "\n", "no total"},
		{"no header", `{"stage":"vet","seconds":37}` + "\n", ":1: want the run's header"},
		{"a stage without seconds", header + `{"stage":"vet"}` + "\n", ":2: want"},
		{"empty", "", "no total"},
	} {
		path := filepath.Join(t.TempDir(), "times.jsonl")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := readTestRun(path)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && (len(r.stages) != 2 || r.seconds[0] != 37 || r.Commit != "abc1234" || r.Cores != 2):
			t.Errorf("%s: read %+v", c.name, r)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.err)
		}
	}
}
