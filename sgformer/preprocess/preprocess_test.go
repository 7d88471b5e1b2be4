package preprocess_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
)

func graphs() []*graph.Graph {
	var gs []*graph.Graph
	for _, tg := range append(testgraphs.Classic(), testgraphs.Random(1, 40, 1, 14)...) {
		gs = append(gs, tg.G)
	}
	return gs
}

func sameItems(t *testing.T, a, b []preprocess.Item, k int) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d items, want %d", len(a), len(b))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i].Product, b[i].Product) || !slices.Equal(a[i].Marks, b[i].Marks) || !slices.Equal(a[i].PE.Float32(k), b[i].PE.Float32(k)) || !slices.Equal(a[i].PE.Values, b[i].PE.Values) {
			t.Fatalf("item %d differs", i)
		}
	}
}

func TestGraphAndDataset(t *testing.T) {
	gs := graphs()
	for _, opt := range []preprocess.Options{{PEK: 8}, {PEK: 16, PEMode: preprocess.AuthorsCode}, {PEK: 0}, {PEK: 3, PEMode: preprocess.Concat},
		{PEK: 5, TupleK: 3, Connectivities: []product.Name{"adjacency_2", "point_0"}}, {PEK: 2, TupleK: 3, PEMode: preprocess.Concat}} {
		seq, err := preprocess.Dataset(gs, opt, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		par, err := preprocess.Dataset(gs, opt, 4, func(done int) { calls++ })
		if err != nil {
			t.Fatal(err)
		}
		if calls != len(gs) {
			t.Errorf("progress called %d times for %d graphs", calls, len(gs))
		}
		sameItems(t, par, seq, opt.Columns())
		for i, g := range gs {
			p, _ := product.New(g, opt.K(), opt.Connectivities...)
			marks, _ := product.TupleMarking(g, opt.K())
			spec, _ := pe.NewSpectrum(g)
			var enc *pe.Encoding
			switch opt.PEMode {
			case preprocess.AuthorsCode:
				enc, _ = pe.Reference(spec, opt.PEK)
			case preprocess.Concat:
				enc, _ = pe.Concatenation(spec, opt.K(), opt.PEK)
			default:
				size, _ := product.NumNodes(g.N(), opt.K())
				enc, _ = pe.Tuple(spec, opt.K(), min(opt.PEK, size))
			}
			if !reflect.DeepEqual(seq[i].Product, p) || !slices.Equal(seq[i].Marks, marks) || !slices.Equal(seq[i].PE.Float32(opt.Columns()), enc.Float32(opt.Columns())) {
				t.Fatalf("graph %d: item differs from the direct computation", i)
			}
			lazy := opt
			lazy.OnDemand = true
			if it, err := preprocess.Graph(g, lazy); err != nil || it.Product != nil || !slices.Equal(it.Marks, marks) || !reflect.DeepEqual(it.PE, seq[i].PE) {
				t.Fatalf("graph %d on demand: product graph kept or item differs (%v)", i, err)
			}
		}
	}
	for _, bad := range []struct {
		opt  preprocess.Options
		want string
	}{{preprocess.Options{PEK: -1}, "negative PE size"}, {preprocess.Options{PEK: 4, PEMode: "fast"}, `unknown PE mode "fast"`},
		{preprocess.Options{PEK: 4, PEMode: preprocess.AuthorsCode, TupleK: 3}, "defined for K = 2, not 3"},
		{preprocess.Options{TupleK: 1}, "tuple order 1"},
		{preprocess.Options{Connectivities: []product.Name{"point_2"}}, `no connectivity "point_2" on 2-tuples`}} {
		if _, err := preprocess.Dataset(gs, bad.opt, 2, nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("options %+v: error %v", bad.opt, err)
		}
	}
}

// Several processes preparing the same cache at once (two trainings started together) each get
// the items, and leave one valid cache and no temporary file: each writes a file of its own
// and renames it into place.
func TestCacheConcurrentWriters(t *testing.T) {
	gs := graphs()
	opt := preprocess.Options{PEK: 8}
	path := filepath.Join(t.TempDir(), "cache.bin")
	want, err := preprocess.Dataset(gs, opt, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() {
			items, _, err := preprocess.Cached(path, gs, opt, 1, nil)
			if err == nil && len(items) != len(want) {
				err = fmt.Errorf("%d items, want %d", len(items), len(want))
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	items, err := preprocess.Load(path, gs, opt)
	if err != nil {
		t.Fatalf("the cache left: %v", err)
	}
	sameItems(t, items, want, 8)
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("cache directory holds %d entries, want only the cache (no temporary files)", len(entries))
	}
}

func TestCache(t *testing.T) {
	gs := graphs()
	opt := preprocess.Options{PEK: 8}
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "cache.bin")

	first, fresh, err := preprocess.Cached(path, gs, opt, 2, nil)
	if err != nil || !fresh {
		t.Fatalf("first Cached: fresh=%v err=%v", fresh, err)
	}
	second, fresh, err := preprocess.Cached(path, gs, opt, 2, nil)
	if err != nil || fresh {
		t.Fatalf("second Cached: fresh=%v err=%v", fresh, err)
	}
	sameItems(t, second, first, 8)
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("cache directory holds %d entries, want only the cache (no temporary files)", len(entries))
	}

	// Other options or other graphs: stale, recomputed, never reused.
	if _, err := preprocess.Load(path, gs, preprocess.Options{PEK: 4}); !errors.Is(err, preprocess.ErrStale) {
		t.Fatalf("other k: %v", err)
	}
	if _, err := preprocess.Load(path, gs, preprocess.Options{PEK: 8, PEMode: preprocess.AuthorsCode}); !errors.Is(err, preprocess.ErrStale) {
		t.Fatalf("other mode: %v", err)
	}
	if _, err := preprocess.Load(path, gs, preprocess.Options{PEK: 8, TupleK: 3}); !errors.Is(err, preprocess.ErrStale) {
		t.Fatalf("other tuple order: %v", err)
	}
	// The connectivities are not part of the cache: they are rebuilt.
	if items, err := preprocess.Load(path, gs, preprocess.Options{PEK: 8, Connectivities: []product.Name{product.External}}); err != nil || len(items[3].Product.Connectivities) != 1 {
		t.Fatalf("other connectivities: %v", err)
	}
	// OnDemand: the same items without their product graphs, which the options rebuild.
	if items, err := preprocess.Load(path, gs, preprocess.Options{PEK: 8, OnDemand: true}); err != nil || items[3].Product != nil || !slices.Equal(items[3].Marks, first[3].Marks) {
		t.Fatalf("on demand: %v", err)
	} else if p, _ := opt.Product(gs[3]); !reflect.DeepEqual(p, first[3].Product) {
		t.Fatal("Options.Product differs from the item's product graph")
	}
	// Every PE mode and tuple order round-trips through the cache.
	for i, o := range []preprocess.Options{{PEK: 3, PEMode: preprocess.Concat}, {PEK: 5, TupleK: 3}, {PEK: 2, TupleK: 3, PEMode: preprocess.Concat}} {
		p := filepath.Join(dir, fmt.Sprintf("mode-%d.bin", i))
		computed, _, err := preprocess.Cached(p, gs, o, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := preprocess.Load(p, gs, o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		sameItems(t, loaded, computed, o.Columns())
	}
	if _, err := preprocess.Load(path, gs[1:], opt); !errors.Is(err, preprocess.ErrStale) {
		t.Fatalf("other graphs: %v", err)
	}
	perm, _ := gs[20].Permute([]int{1, 0, 2, 3, 4, 5, 6, 7, 8, 9}[:gs[20].N()])
	changed := slices.Clone(gs)
	changed[20] = perm
	if _, err := preprocess.Load(path, changed, opt); !errors.Is(err, preprocess.ErrStale) {
		t.Fatalf("one graph relabelled: %v", err)
	}
	items, fresh, err := preprocess.Cached(path, gs, preprocess.Options{PEK: 4}, 2, nil)
	if err != nil || !fresh || items[5].PE.Columns() != min(4, gs[5].N()*gs[5].N()) {
		t.Fatalf("Cached with other options: fresh=%v err=%v", fresh, err)
	}

	// Another format version is stale too.
	raw, _ := os.ReadFile(path)
	old := strings.Replace(string(raw), `"version":2`, `"version":0`, 1)
	os.WriteFile(path, []byte(old), 0o644)
	if _, err := preprocess.Load(path, gs, preprocess.Options{PEK: 4}); !errors.Is(err, preprocess.ErrStale) || !strings.Contains(err.Error(), "format version 0") {
		t.Fatalf("old version: %v", err)
	}

	// Corruption is reported, naming the file.
	preprocess.Save(path, gs, opt, first)
	raw, _ = os.ReadFile(path)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"flipped byte", flip(raw, len(raw)/2), "checksum mismatch"},
		{"truncated", raw[:len(raw)-100], "checksum mismatch"},
		{"not a cache", []byte("hello"), "not a preprocessing cache"},
		{"empty", nil, "not a preprocessing cache"},
	} {
		os.WriteFile(path, tc.data, 0o644)
		_, _, err := preprocess.Cached(path, gs, opt, 2, nil)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v", tc.name, err)
		}
	}
}

func flip(b []byte, i int) []byte {
	c := slices.Clone(b)
	c[i] ^= 0x40
	return c
}

// BenchmarkZINC preprocesses all 12,000 ZINC-12k graphs: product graph, node marks and the
// product-graph PE with k = 16, on GOMAXPROCS goroutines.
func BenchmarkZINC(b *testing.B) {
	ds, err := data.ZINC(shareddata.Dir(b, "zinc12k"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		items, err := preprocess.Dataset(ds.Graphs, preprocess.Options{PEK: 16}, 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, it := range items { // expand the PE as a model would
			_ = it.PE.Float32(16)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/12000, "µs/graph")
}

// BenchmarkZINCCacheLoad reads the preprocessed ZINC-12k back from a cache file.
func BenchmarkZINCCacheLoad(b *testing.B) {
	ds, err := data.ZINC(shareddata.Dir(b, "zinc12k"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "zinc.bin")
	opt := preprocess.Options{PEK: 16}
	if _, _, err := preprocess.Cached(path, ds.Graphs, opt, 0, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := preprocess.Load(path, ds.Graphs, opt); err != nil {
			b.Fatal(err)
		}
	}
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "MB")
	}
}
