package preprocess_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/preprocess"
)

// A dataset whose preprocessed form does not fit in memory is refused before any graph is
// computed, naming the sizes that cause it.
func TestDatasetTooLarge(t *testing.T) {
	defer memory.SetLimit(64 << 20)()
	graphs := []*graph.Graph{testgraphs.Path(10), testgraphs.Path(2000), testgraphs.Cycle(12)}
	opt := preprocess.Options{PEK: 8}
	_, err := preprocess.Dataset(graphs, opt, 1, func(int) { t.Error("a graph was computed") })
	var me *memory.Error
	if !errors.As(err, &me) {
		t.Fatalf("Dataset: %v", err)
	}
	for _, want := range []string{"3 graphs", "4000244 product nodes", "largest graph 1 (2000 nodes)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, _, err := preprocess.Cached(filepath.Join(t.TempDir(), "c.cache"), graphs, opt, 1, nil); !errors.As(err, &me) {
		t.Errorf("Cached: %v", err)
	}
	if _, err := preprocess.Graph(graphs[1], opt); !errors.As(err, &me) {
		t.Errorf("Graph: %v", err)
	}
}

// Without their product graphs (OnDemand) the items of a dataset need less memory: what
// LoadTask falls back to.
func TestCheckMemoryOnDemand(t *testing.T) {
	graphs := []*graph.Graph{testgraphs.Path(300), testgraphs.Cycle(300)}
	opt := preprocess.Options{PEK: 8}
	need := func(opt preprocess.Options) int64 {
		defer memory.SetLimit(1)()
		var me *memory.Error
		if !errors.As(preprocess.CheckMemory(graphs, opt), &me) {
			t.Fatal("no memory.Error under a 1-byte limit")
		}
		return me.Need
	}
	full := need(opt)
	opt.OnDemand = true
	if lazy := need(opt); lazy*3 > full {
		t.Errorf("on demand %d bytes, with product graphs %d", lazy, full)
	}
}
