package task

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/model"
)

// SpecOf's dimensions are those the loaders read, for every dataset of ../shared/data and the
// synthetic tasks, and for zinc-full and peptides-struct (not in ../shared/data) from the
// loaders' small copies in data/testdata.
func TestSpecOf(t *testing.T) {
	for name := range specs {
		t.Run(name, func(t *testing.T) {
			src := Source{Dataset: name}
			switch name {
			case "zinc-full":
				src.DataDir, src.NoVerify = "../../data/testdata/zinc-pyg", true
			case "peptides-struct":
				src.DataDir, src.NoVerify = "../../data/testdata/peptides", true
			case Synthetic, "synthetic-triangles", SyntheticFourCycles:
			default:
				s, err := data.SourceOf(name)
				if err != nil {
					t.Fatal(err)
				}
				src.DataDir = shareddata.Dir(t, s.Folder)
			}
			ds, err := Dataset(src)
			if err != nil {
				t.Fatal(err)
			}
			got := model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, EdgeMin: ds.EdgeMin, Tasks: ds.Tasks}
			if want, _ := SpecOf(name); !reflect.DeepEqual(got, want) {
				t.Errorf("read %+v, SpecOf %+v", got, want)
			}
		})
	}
}

// Load refuses a dataset read with other dimensions than SpecOf's, naming both.
func TestLoadChecksSpec(t *testing.T) {
	want := specs[Synthetic]
	specs[Synthetic] = model.Spec{NodeVocab: []int{1}, EdgeVocab: []int{2}, Tasks: 2}
	defer func() { specs[Synthetic] = want }()
	cfg, err := model.ReadConfig(peContext(0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(Source{Dataset: Synthetic, SyntheticGraphs: 20}, cfg, "", nil)
	if err == nil || !strings.Contains(err.Error(), "synthetic read with dimensions") || !strings.Contains(err.Error(), "Tasks:2") {
		t.Errorf("Load with other dimensions: %v", err)
	}
}
