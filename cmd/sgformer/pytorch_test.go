package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/pytorch"
)

// TestImportEvalExport runs the authors' model of a fixture (made with their code,
// sgformer/pytorch/testdata) through the command line on ogbg-molesol: import, eval (the test
// metric of the imported weights), predict from SMILES, export with its configuration, import
// the export, eval again: the same metrics; the exported tensors are the imported ones.
func TestImportEvalExport(t *testing.T) {
	dataDir := shareddata.Dir(t, "ogbg_molesol")
	fixtures := filepath.Join("..", "..", "sgformer", "pytorch", "testdata")
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	evalOf := func(run string) map[string]any {
		t.Helper()
		code, out, stderr := runCLI(t, "", "eval", "--run", run, "--backend", "go", "--cache-dir", cache)
		if code != 0 {
			t.Fatalf("eval: exit %d: %s", code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	run := filepath.Join(dir, "imported")
	code, out, stderr := runCLI(t, "", "import", "--from-pytorch", filepath.Join(fixtures, "molesol-pe.model.pt"),
		"--config", filepath.Join(fixtures, "molesol-pe.yaml"), "--data-dir", dataDir, "--out", run, "--backend", "go")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, `"unused":["EDGE_ENCODER.0.uL.embed.bond_embedding_list.1.weight"`) {
		t.Errorf("import printed %s: want the unused tensors listed", out)
	}
	first := evalOf(run)
	if first["epoch"] != 0.0 || first["model"] != "subgraphormer" {
		t.Errorf("eval of the imported run: %v", first)
	}
	if code, out, stderr := runCLI(t, "", "predict", "--run", run, "--smiles", "CCO", "--backend", "go"); code != 0 || !strings.Contains(out, `"prediction":[`) {
		t.Errorf("predict: exit %d: %s %s", code, out, stderr)
	}
	exported, config := filepath.Join(dir, "export.pt"), filepath.Join(dir, "export.yaml")
	if code, _, stderr := runCLI(t, "", "export", "--run", run, "--to-pytorch", exported, "--config-out", config); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	again := filepath.Join(dir, "again")
	if code, _, stderr := runCLI(t, "", "import", "--from-pytorch", exported, "--config", config, "--data-dir", dataDir, "--out", again, "--backend", "go"); code != 0 {
		t.Fatalf("import of the export: exit %d: %s", code, stderr)
	}
	second := evalOf(again)
	for _, split := range []string{"val", "test"} {
		if first[split] != second[split] {
			t.Errorf("%s: %v imported, %v after export and import", split, first[split], second[split])
		}
	}
	a, err := pytorch.ReadStateDict(filepath.Join(fixtures, "molesol-pe.pt"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := pytorch.ReadStateDict(exported)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range a.Names {
		if strings.Contains(name, "num_batches_tracked") || strings.Contains(name, "bond_embedding_list.1") || strings.Contains(name, "bond_embedding_list.2") {
			continue // not read by their model: exported as zeros
		}
		x, y := a.Tensors[name].Values, b.Tensors[name].Values
		for i := range x {
			if float32(x[i]) != float32(y[i]) {
				t.Fatalf("%s[%d]: %v in the authors' file, %v exported", name, i, x[i], y[i])
			}
		}
	}
	if code, _, stderr := runCLI(t, "", "import", "--from-pytorch", exported, "--config", config, "--data-dir", dataDir, "--out", again, "--backend", "go"); code != 1 || !strings.Contains(stderr, "already holds a run") {
		t.Errorf("import into a run: exit %d: %s", code, stderr)
	}
}
