package task

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/model"
)

const smallCSV = "../../data/testdata/molecules/small.csv"

// peContext is the model's defaults with k PE columns.
func peContext(k int) *context.Context {
	ctx := context.New()
	model.Defaults(ctx)
	ctx.SetParam(model.ParamPEK, k)
	return ctx
}

// A table of molecules through Load: its options and task names recorded in the Source,
// the OGB vocabularies (so SMILES can be predicted), a cache named after the file; an older
// run.json, without them, still reads.
func TestLoadCSV(t *testing.T) {
	opt := &data.CSVOptions{SMILESColumn: "smiles", LabelColumns: []string{"logS", "active"}, Task: data.Regression, Split: data.SplitScaffold}
	src := Source{Dataset: CSVPrefix + smallCSV, CSV: opt}
	cache := t.TempDir()
	var log strings.Builder
	cfg, err := model.ReadConfig(peContext(2))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := Load(src, cfg, cache, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(tk.Examples) != 20 || len(tk.Train) != 16 || tk.Spec.Tasks != 2 || !slices.Equal(tk.Source.LabelNames, []string{"logS", "active"}) || !tk.Source.Molecules() {
		t.Fatalf("%d examples, %d train, spec %+v, names %v", len(tk.Examples), len(tk.Train), tk.Spec, tk.Source.LabelNames)
	}
	if !strings.Contains(log.String(), filepath.Join(cache, "csv-small-pe2-exact.cache")) {
		t.Errorf("log %q, want the cache csv-small-pe2-exact.cache", log.String())
	}
	raw, _ := json.Marshal(tk.Source)
	var back Source
	if err := json.Unmarshal(raw, &back); err != nil || !reflect.DeepEqual(back.CSV, opt) || back.Dataset != src.Dataset {
		t.Errorf("run.json round trip: %s → %+v, %v", raw, back, err)
	}
	if _, err := Dataset(Source{Dataset: CSVPrefix + smallCSV}); err == nil || !strings.Contains(err.Error(), "needs its columns") {
		t.Errorf("a table without options: %v", err)
	}
	if _, err := Dataset(Source{Dataset: "qm9"}); err == nil || !strings.Contains(err.Error(), "or csv:FILE for a table of molecules") {
		t.Errorf("unknown dataset: %v", err)
	}
	if (Source{Spec: model.Spec{NodeVocab: []int{28}, EdgeVocab: []int{4}}}).Molecules() {
		t.Error("ZINC's encoding taken for OGB's")
	}
}
