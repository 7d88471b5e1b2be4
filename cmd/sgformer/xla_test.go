package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/internal/xlatest"
)

// paperRun copies the committed ogbg-molesol run (the paper's recipe, trained on the pure-Go
// backend) into a temporary folder, pointing it at the shared copy of the dataset.
func paperRun(t *testing.T) string {
	t.Helper()
	data := shareddata.Dir(t, "ogbg_molesol")
	src := filepath.Join("..", "..", "results", "ogbg-molesol-paper", "seed-0")
	run := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(run, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(run, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rj map[string]any
	if err := json.Unmarshal(raw, &rj); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(data)
	rj["data_dir"] = abs
	raw, _ = json.Marshal(rj)
	if err := os.WriteFile(filepath.Join(run, "run.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return run
}

// eval and predict give on XLA's CPU plugin, on one device and with each batch split among 2
// (--devices 2), what they give on the pure-Go backend, for the same checkpoint: the validation
// and test RMSE of ogbg-molesol within 1e-6 relative, and predictions within 1e-5 relative.
// All are float32 models whose sums XLA orders its own way; a metric averages hundreds of
// predictions, so its rounding shrinks, while one prediction keeps a few ulps (1.2e-7) per
// layer. A wrong computation moves both by far more.
func TestXLAEvalPredict(t *testing.T) {
	if be := xlatest.CPU(t); be.NumDevices() < 2 {
		t.Skipf("XLA's CPU plugin has %d device(s) here, the test wants 2 (XLA_FLAGS=--xla_force_host_platform_device_count=2)", be.NumDevices())
	}
	run := paperRun(t)
	cache := t.TempDir()
	backends := map[string][]string{"go": {"--backend", "go"}, "xla:cpu": {"--backend", "xla:cpu"}, "xla:cpu on 2 devices": {"--backend", "xla:cpu", "--devices", "2"}}
	others := []string{"xla:cpu", "xla:cpu on 2 devices"}
	metrics := map[string]map[string]float64{}
	for b, flags := range backends {
		code, stdout, stderr := runCLI(t, "", append([]string{"eval", "--run", run, "--cache-dir", cache}, flags...)...)
		var ev map[string]any
		if code != 0 || json.Unmarshal([]byte(stdout), &ev) != nil {
			t.Fatalf("eval --backend %s: exit %d, %q, %s", b, code, stdout, stderr)
		}
		metrics[b] = map[string]float64{}
		for _, k := range []string{"val", "test"} {
			v, ok := ev[k].(float64)
			if !ok {
				t.Fatalf("eval --backend %s: no %q in %s", b, k, stdout)
			}
			metrics[b][k] = v
		}
	}
	for k, want := range metrics["go"] {
		for _, b := range others {
			if got := metrics[b][k]; math.Abs(got-want) > 1e-6*math.Abs(want) {
				t.Errorf("eval %s: %v on %s, %v on go", k, got, b, want)
			}
		}
	}
	t.Logf("eval: %v", metrics)

	input := filepath.Join(t.TempDir(), "in.csv")
	smiles := []string{"CCO", "c1ccccc1O", "CC(=O)Oc1ccccc1C(=O)O", "ClC(Cl)(Cl)Cl", "CCCCCCCCCC(=O)O", "Cn1cnc2c1c(=O)n(C)c(=O)n2C"}
	if err := os.WriteFile(input, []byte("smiles\n"+strings.Join(smiles, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	preds := map[string][]float64{}
	for b, flags := range backends {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		code, _, stderr := runCLI(t, "", append([]string{"predict", "--run", run, "--input", input, "--output", out, "--format", "jsonl"}, flags...)...)
		if code != 0 {
			t.Fatalf("predict --backend %s: exit %d: %s", b, code, stderr)
		}
		raw, _ := os.ReadFile(out)
		for line := range strings.Lines(string(raw)) {
			var row struct {
				Pred  *float64 `json:"pred_0"`
				Error *string  `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil || row.Pred == nil || row.Error != nil {
				t.Fatalf("predict --backend %s: line %q: %v", b, line, err)
			}
			preds[b] = append(preds[b], *row.Pred)
		}
	}
	for _, b := range others {
		if len(preds["go"]) != len(smiles) || len(preds[b]) != len(smiles) {
			t.Fatalf("predictions: %v", preds)
		}
		for i, want := range preds["go"] {
			if got := preds[b][i]; math.Abs(got-want) > 1e-5*max(1, math.Abs(want)) {
				t.Errorf("predict %s: %v on %s, %v on go", smiles[i], got, b, want)
			}
		}
	}
}
