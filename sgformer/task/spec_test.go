package task

import (
	"reflect"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/model"
)

// SpecOf's dimensions are those the loaders read, for every dataset of ../shared/data that has
// them (zinc-full and peptides-struct are not there) and the synthetic tasks.
func TestSpecOf(t *testing.T) {
	for name := range specs {
		t.Run(name, func(t *testing.T) {
			src := Source{Dataset: name}
			switch name {
			case "zinc-full", "peptides-struct":
				t.Skip("not in ../shared/data")
			case Synthetic, SyntheticFourCycles:
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
