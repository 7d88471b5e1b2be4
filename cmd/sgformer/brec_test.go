package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sgformer brec on a pair file: the counts per category as JSON, the records in --out; a
// malformed file named with its line (exit 1), an unknown test a usage error (exit 2); a model
// under BREC's protocol, configured by the hyperparameter flags, its records named --name.
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
	code, stdout, stderr = runCLI(t, "", "brec", "--pairs", pairs, "--test", "model", "--name", "tiny", "--layers", "1", "--hidden", "6",
		"--set", "heads=1", "--epochs", "2", "--lr", "0.001", "--backend", "go", "--out", out)
	if code != 0 || !strings.Contains(stdout, `"test":"tiny"`) || !strings.Contains(stderr, "brec tiny: 2/2 pairs") {
		t.Fatalf("brec --test model: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if raw, _ := os.ReadFile(out); strings.Count(string(raw), `"test":"tiny"`) != 2 || !strings.Contains(string(raw), `"t2_reliability":`) {
		t.Errorf("--out holds %q, want 2 records of the model with T2", raw)
	}
	if code, _, stderr := runCLI(t, "", "brec", "--pairs", pairs, "--categories", "CFI", "--out", out); code != 2 || !strings.Contains(stderr, "no pair of") {
		t.Errorf("--categories of none of the pairs: exit %d, %q", code, stderr)
	}
	rangeOut := filepath.Join(dir, "range.jsonl")
	if code, stdout, stderr := runCLI(t, "", "brec", "--pairs", pairs, "--test", "sswl", "--range", "1-1", "--out", rangeOut); code != 0 || !strings.Contains(stdout, `"pairs":1,"distinguished":0`) {
		t.Errorf("--range 1-1: exit %d, %q, %q", code, stdout, stderr)
	}
	for _, bad := range []string{"2-5", "1-0", "1", "a-b", "1-2x"} {
		if code, _, stderr := runCLI(t, "", "brec", "--pairs", pairs, "--range", bad, "--out", rangeOut); code != 2 || !strings.Contains(stderr, "--range") {
			t.Errorf("--range %s: exit %d, %q", bad, code, stderr)
		}
	}
	os.WriteFile(pairs, []byte("pair\tcategory\tgraph6_a\tgraph6_b\n0\tBasic\tEhEG\tBw\n"), 0o644)
	if code, _, stderr := runCLI(t, "", "brec", "--pairs", pairs, "--out", out); code != 1 || !strings.Contains(stderr, pairs+":2: the graphs have 6 and 3 nodes") {
		t.Errorf("a pair of graphs of other sizes: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "brec", "--pairs", pairs, "--test", "3-wl", "--out", out); code != 2 || !strings.Contains(stderr, `--test "3-wl": want 1-wl, 2-fwl, sswl or model`) {
		t.Errorf("an unknown test: exit %d, %q", code, stderr)
	}
}
