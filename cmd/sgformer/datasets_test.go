package main

import (
	"strings"
	"testing"
)

// An unknown dataset is a usage error that lists every dataset the command accepts, the
// built-in synthetic ones included, from one list.
func TestUnknownDataset(t *testing.T) {
	all := "(available: synthetic, synthetic-4cycles, zinc12k, zinc-full, ogbg-molesol, ogbg-molbace, ogbg-molhiv, peptides-func, peptides-struct, alchemy12k, or csv:FILE for a table of molecules)"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--dataset", "qm9", "--out", t.TempDir()}, all},
		{[]string{"compare", "--dataset", "qm9", "--out", t.TempDir()}, all},
		{[]string{"ablate", "--dataset", "qm9", "--out", t.TempDir()}, all},
		{[]string{"preprocess", "--dataset", "qm9", "--out", t.TempDir()}, all},
		{[]string{"download", "--dataset", "qm9"}, "(available: zinc12k, zinc-full, ogbg-molesol, ogbg-molbace, ogbg-molhiv, peptides-func, peptides-struct, alchemy12k; synthetic and synthetic-4cycles are built in)"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, `unknown dataset "qm9" `+tc.want) {
			t.Errorf("sgformer %v: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	for _, cmd := range []string{"train", "preprocess", "download"} {
		if _, help, _ := runCLI(t, "", cmd, "-h"); !strings.Contains(help, "peptides-struct") || (cmd != "download" && (!strings.Contains(help, "synthetic-4cycles") || !strings.Contains(help, "csv:FILE"))) {
			t.Errorf("sgformer %s -h does not list the datasets: %s", cmd, help)
		}
	}
	// The built-in datasets are accepted wherever datasets are loaded.
	if code, stdout, stderr := runCLI(t, "", "preprocess", "--dataset", "synthetic", "--pe-k", "2", "--out", t.TempDir()); code != 0 || !strings.Contains(stdout, `"graphs":300`) {
		t.Errorf("preprocess --dataset synthetic: exit %d, %s %s", code, stdout, stderr)
	}
}
