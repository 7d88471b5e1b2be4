package main

import (
	"strings"
	"testing"
)

// compare trains every model of --models: it offers no single --model flag beside it.
func TestCompareFlags(t *testing.T) {
	_, help, _ := runCLI(t, "", "compare", "-h")
	if !strings.Contains(help, "\n  -models string") || strings.Contains(help, "\n  -model string") {
		t.Errorf("compare -h:\n%s", help)
	}
	if code, _, stderr := runCLI(t, "", "compare", "--model", "gin", "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, "flag provided but not defined: -model") {
		t.Errorf("compare --model: exit %d, %q", code, stderr)
	}
}
