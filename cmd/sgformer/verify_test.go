package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A modified copy of a known dataset is refused unless --no-verify says it is meant to be; the
// flag is offered wherever datasets are loaded.
func TestNoVerifyFlag(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"ZINC_Nodes.txt": "0 0 6\n0 1 6\n1 0 6\n1 1 8\n", "ZINC_Edges.txt": "0 0 1 1\n1 0 1 2\n", "ZINC_Labels.txt": "0 1\n1 2\n",
		"ZINC_splits.json": `[{"test": [1], "model_selection": [{"train": [0], "validation": []}]}]`,
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	out := t.TempDir()
	code, _, stderr := runCLI(t, "", "preprocess", "--dataset", "zinc12k", "--data-dir", dir, "--out", out)
	if code != 1 || !strings.Contains(stderr, "differs from the published dataset") || !strings.Contains(stderr, "--no-verify") {
		t.Errorf("modified copy: exit %d, %q", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "", "preprocess", "--dataset", "zinc12k", "--data-dir", dir, "--out", out, "--no-verify")
	if code != 0 || !strings.Contains(stdout, `"graphs":2`) {
		t.Errorf("with --no-verify: exit %d, %q %q", code, stdout, stderr)
	}
	for _, cmd := range []string{"train", "compare", "ablate", "preprocess"} {
		if _, help, _ := runCLI(t, "", cmd, "-h"); !strings.Contains(help, "-no-verify") {
			t.Errorf("sgformer %s -h does not offer --no-verify", cmd)
		}
	}
}
