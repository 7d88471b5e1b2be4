package main

import (
	"strings"
	"testing"
)

// -set with a name that is no hyperparameter says so in the tool's terms.
func TestUnknownHyperparameter(t *testing.T) {
	for _, args := range [][]string{
		{"train", "--out", t.TempDir(), "-set", "foo=1"},
		{"train", "--out", t.TempDir(), "-set", "layers=2;foo=1"},
		{"compare", "--out", t.TempDir(), "-set", "/scope/foo=1"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, `unknown hyperparameter "foo"; sgformer train -h lists them`) || strings.Contains(stderr, "scope=") {
			t.Errorf("sgformer %v: exit %d, %q", args, code, stderr)
		}
	}
}
