package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sgformer brec on a pair file: the counts per category as JSON, the records in --out; a
// malformed file named with its line (exit 1), an unknown test a usage error (exit 2).
func TestBRECCommand(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.tsv")
	// The 6-cycle and two triangles; a triangle and itself relabelled.
	os.WriteFile(pairs, []byte("pair\tcategory\tgraph6_a\tgraph6_b\n0\tBasic\tEhEG\tEwCW\n1\tBasic\tBw\tBw\n"), 0o644)
	out := filepath.Join(dir, "out.jsonl")
	code, stdout, stderr := runCLI(t, "", "brec", "--pairs", pairs, "--test", "2-fwl", "--out", out)
	if code != 0 || !strings.Contains(stdout, `{"category":"Basic","pairs":2,"distinguished":1,`) || !strings.Contains(stderr, "brec 2-fwl: 2/2 pairs") {
		t.Fatalf("brec: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if raw, _ := os.ReadFile(out); strings.Count(string(raw), "\n") != 2 {
		t.Errorf("--out holds %q, want 2 records", raw)
	}
	os.WriteFile(pairs, []byte("pair\tcategory\tgraph6_a\tgraph6_b\n0\tBasic\tEhEG\tBw\n"), 0o644)
	if code, _, stderr := runCLI(t, "", "brec", "--pairs", pairs, "--out", out); code != 1 || !strings.Contains(stderr, pairs+":2: the graphs have 6 and 3 nodes") {
		t.Errorf("a pair of graphs of other sizes: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "brec", "--pairs", pairs, "--test", "3-wl", "--out", out); code != 2 || !strings.Contains(stderr, `--test "3-wl": want 1-wl or 2-fwl`) {
		t.Errorf("an unknown test: exit %d, %q", code, stderr)
	}
}
