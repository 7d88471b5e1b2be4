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
	section := templateSection("notebook-times", "nb")
	if _, err := section(root); err == nil {
		t.Error("no runs: no error")
	}
	writeRecords(t, filepath.Join(dir, "01-a.jsonl"), "== 01-a\n"+`{"seconds": 56.2, "peak_rss_mib": 812}`+"\n")
	got, err := section(root)
	if err != nil || !strings.Contains(got, "| `01-a` | 56 | 812 | abc1234 | 2026-11-28T16:00Z | 2 cores | 0.1 0.2 0.3 |") {
		t.Errorf("section = %q, %v", got, err)
	}
	writeRecords(t, filepath.Join(dir, "02-b.jsonl"), "== 02-b\n"+`{"seconds": 3}`+"\n")
	if _, err := section(root); err == nil || !strings.Contains(err.Error(), `part "02-b" has no "peak_rss_mib"`) {
		t.Errorf("a run without its memory: %v", err)
	}
}
