package main

import (
	"strings"
	"testing"
)

// compare trains every model of --models: it offers no single --model flag beside it.
func TestCompareFlags(t *testing.T) {
	_, _, stderr := runCLI(t, "", "compare", "-h")
	if !strings.Contains(stderr, "\n  -models string") || strings.Contains(stderr, "\n  -model string") {
		t.Errorf("compare -h:\n%s", stderr)
	}
	if code, _, stderr := runCLI(t, "", "compare", "--model", "gin", "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, "flag provided but not defined: -model") {
		t.Errorf("compare --model: exit %d, %q", code, stderr)
	}
}
