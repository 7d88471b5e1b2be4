package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNotebooksSection(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "nb")
	os.MkdirAll(dir, 0o755)
	section := notebooksSection("nb")
	if _, err := section(root); err == nil {
		t.Error("no runs: no error")
	}
	os.WriteFile(filepath.Join(dir, "01-a.json"), []byte(`{"notebook": "01-a", "seconds": 56.2, "peak_rss_mib": 812, "commit": "abc1234", "date": "2026-11-28T01:00:00Z", "cores": 2, "load_before": "1.00 0.90 0.80"}`), 0o644)
	got, err := section(root)
	if err != nil || !strings.Contains(got, "| `01-a` | 56 | 812 | abc1234 | 2026-11-28T01:00:00Z | 2 | 1.00 0.90 0.80 |") {
		t.Errorf("section = %q, %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, "02-b.json"), []byte(`{"notebook": "02-b", "seconds": 3}`), 0o644)
	if _, err := section(root); err == nil || !strings.Contains(err.Error(), "02-b.json") {
		t.Errorf("a run without its memory: %v", err)
	}
}
