package pytorch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/sgformer/pytorch"
	"github.com/sgformer/sgformer/sgformer/task"
)

// TestImportRefusesBadInput feeds ImportRun what users get wrong: every case is an error that
// names the problem, and no run directory is written.
func TestImportRefusesBadInput(t *testing.T) {
	be := goBackend(t)
	dir := t.TempDir()
	model := filepath.Join("testdata", "molesol-pe.pt")
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.pt")
	os.WriteFile(truncated, raw[:len(raw)/2], 0o644)
	notTorch := filepath.Join(dir, "model.json")
	os.WriteFile(notTorch, []byte(`{"weights": [1, 2, 3]}`), 0o644)
	sweep := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweep, []byte("parameters:\n  data__name: {value: ogbg-molesol}\n  model__num_layer: {values: [2, 3]}\n"), 0o644)
	conf := filepath.Join("testdata", "molesol-pe.yaml")
	for _, tc := range []struct {
		name, model, config string
		set                 []string
		want                []string // substrings of the error
	}{
		{"truncated file", truncated, conf, nil, []string{"truncated.pt", "torch.save"}},
		{"not a PyTorch file", notTorch, conf, nil, []string{"model.json", "zip"}},
		{"another architecture", filepath.Join("testdata", "zinc-mlp.pt"), conf, nil,
			[]string{"46 of the model's 60 tensors found with their shape among the checkpoint's 98", "POINT_ENCODERs.0.vv.input.weight: shape [24 24] in the checkpoint, but the model the configuration describes wants [8 24]", "and 26 more"}},
		{"more layers than the checkpoint", model, conf, []string{"model__num_layer=3"}, []string{"MPNNs.2.uL.attn_layer.lin.weight: missing from the checkpoint"}},
		{"another width", model, conf, []string{"model__dim_embed=36"}, []string{"MPNNs.0.uL.attn_layer.lin.weight: shape [8 24] in the checkpoint, but the model the configuration describes wants [12 36]"}},
		{"PE off", model, conf, []string{"model__model_name=Subgraphormer"}, []string{"atom_encoder.embed_d.weight: shape [7 22] in the checkpoint, but the model the configuration describes wants [7 24]"}},
		{"more targets", model, conf, []string{"model__final_dim=2"}, []string{"model__final_dim = 2, but ogbg-molesol has 1 targets"}},
		{"another attention", model, conf, []string{"model__attention_type=GatV2"}, []string{`model__attention_type = "GatV2": only "Gat"`}},
		{"unknown aggregation", model, conf, []string{"model__aggs=[uL, uu]"}, []string{"model__aggs: uu is not implemented"}},
		{"a sweep", model, sweep, nil, []string{"model__num_layer is swept over [2 3]: choose one"}},
		{"a bad override", model, conf, []string{"model__num_layer"}, []string{`override "model__num_layer": want key=value`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			cfg, err := pytorch.ReadConfig(tc.config, tc.set)
			if err == nil {
				src := task.Source{Dataset: "ogbg-molesol", Spec: ogbSpec}
				_, err = pytorch.ImportRun(tc.model, cfg, src, be, out)
			}
			if err == nil {
				t.Fatal("imported")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nwant it to contain %q", err, w)
				}
			}
			if _, e := os.Stat(out); !os.IsNotExist(e) {
				t.Errorf("%s written", out)
			}
		})
	}
}
