// Package preprocess computes, for every graph of a dataset, everything Subgraphormer needs
// before a model runs — the product graph, the node marks and the product-graph PE — in
// parallel over graphs, and caches it on disk.
//
// # The cache
//
// A cache file holds the node marks and the PE of every graph in factored form (the
// eigenvalues, the index pairs (i, j) and the eigenvectors of G they use, Prop. 4.1), not
// the expanded n²×k tables: for ZINC-12k with k = 16 that is about 40 MB instead of 400 MB.
// The product graph is not stored either: it is a function of G that New rebuilds in
// microseconds, and storing its edge lists would take about 190 MB for ZINC-12k.
//
// The file starts with a header naming the format version, the options and a SHA-256
// fingerprint of the graphs; a file whose header differs (another version, other options or
// other graphs) is stale and is recomputed, never reused. It ends with a SHA-256 checksum of
// its content; a file that fails it is reported as corrupt. Files are written atomically.
package preprocess

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/internal/parallel"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/product"
)

// Mode selects how the product-graph PE is computed.
type Mode string

const (
	// Exact takes the k eigenpairs of L_{G^□K} with the smallest eigenvalues (pe.Tuple).
	Exact Mode = "exact"
	// AuthorsCode reproduces the authors' code (pe.Reference; K = 2 only).
	AuthorsCode Mode = "reference"
	// Concat concatenates the first k eigenvectors of L at each entry of the tuple
	// (pe.Concatenation): K·k columns.
	Concat Mode = "concat"
)

// Modes lists the PE modes.
var Modes = []Mode{Exact, AuthorsCode, Concat}

// Options are the settings of preprocessing.
type Options struct {
	// PEK is the number k of product-graph PE columns, or of eigenvectors per tuple entry for
	// Concat (0 for none).
	PEK int `json:"pe_k"`
	// PEMode selects the PE computation; empty means Exact.
	PEMode Mode `json:"pe_mode"`
	// TupleK is the order K of the tuples (Sec. 4.4, Appendix B); 0 means 2.
	TupleK int `json:"tuple_k"`
	// Connectivities names the connectivities of the product graphs (product.Names); none means
	// product.DefaultNames. They are not cached: product graphs are rebuilt from G on load.
	Connectivities []product.Name `json:"-"`
	// OnDemand leaves the product graphs out of the items (Item.Product is nil): whoever
	// batches them builds each when it is needed (Options.Product), trading time per batch for
	// memory. Items and caches are otherwise the same.
	OnDemand bool `json:"-"`
}

func (o Options) mode() Mode {
	if o.PEMode == "" {
		return Exact
	}
	return o.PEMode
}

// connectivities returns the connectivities of the product graphs.
func (o Options) connectivities() []product.Name {
	if len(o.Connectivities) == 0 {
		return product.DefaultNames(o.K())
	}
	return o.Connectivities
}

// Product returns the product graph of g with the options' tuple order and connectivities:
// Item.Product, or what stands for it when OnDemand left it out.
func (o Options) Product(g *graph.Graph) (*product.Graph, error) {
	return product.New(g, o.K(), o.Connectivities...)
}

// K returns the tuple order K.
func (o Options) K() int {
	if o.TupleK == 0 {
		return 2
	}
	return o.TupleK
}

// Columns returns the number of PE columns of the product nodes: k, or K·k for Concat.
func (o Options) Columns() int {
	if o.mode() == Concat {
		return o.K() * o.PEK
	}
	return o.PEK
}

// Validate reports an error for options that cannot be computed.
func (o Options) Validate() error {
	switch m := o.mode(); {
	case o.PEK < 0:
		return fmt.Errorf("preprocess: negative PE size k = %d", o.PEK)
	case !slices.Contains(Modes, m):
		return fmt.Errorf("preprocess: unknown PE mode %q (want %q, %q or %q)", m, Exact, AuthorsCode, Concat)
	case o.K() < 2:
		return fmt.Errorf("preprocess: tuple order %d; want at least 2", o.TupleK)
	case m == AuthorsCode && o.K() != 2:
		return fmt.Errorf("preprocess: the authors' PE procedure is defined for K = 2, not %d; use %q or %q", o.K(), Exact, Concat)
	}
	for _, name := range o.Connectivities {
		if _, err := name.Kind(o.K()); err != nil {
			return err
		}
	}
	return nil
}

// Item is the preprocessed form of one graph.
type Item struct {
	// Product is the product graph (Sec. 3); nil with Options.OnDemand.
	Product *product.Graph
	// Marks are the node marks d(s, v) (−1 when unreachable), one per product node; K − 1 per
	// node for K-tuples (product.TupleMarking).
	Marks []int32
	// PE is the product-graph PE (Sec. 4.2); Float32(k) expands it, zero-padded to k columns.
	PE *pe.Encoding
}

// Graph preprocesses one graph. With the Exact mode a graph of n nodes gets min(k, n^K) PE
// columns (Float32 pads the rest with zeros). A graph whose product graph, node marks or
// eigendecomposition do not fit in the available memory is an error (*memory.Error).
func Graph(g *graph.Graph, opt Options) (Item, error) {
	if err := opt.Validate(); err != nil {
		return Item{}, err
	}
	var p *product.Graph
	if !opt.OnDemand {
		var err error
		if p, err = opt.Product(g); err != nil {
			return Item{}, err
		}
	}
	marks, err := product.TupleMarking(g, opt.K())
	if err != nil {
		return Item{}, err
	}
	enc, err := encode(g, opt)
	if err != nil {
		return Item{}, err
	}
	return Item{Product: p, Marks: marks, PE: enc}, nil
}

// itemBytes is the memory an Item of a graph of n nodes and m edges holds: its product graph
// (unless OnDemand), node marks (K − 1 per tuple) and factored PE (at most min(K·k, n)
// eigenvectors of n entries and the constant vector, and per column an eigenvalue and K
// factors).
func itemBytes(n, m int, opt Options) int64 {
	k := opt.K()
	size, err := product.NumNodes(n, k)
	if err != nil {
		size = math.MaxInt32
	}
	cols := min(opt.Columns(), size)
	need := memory.Sum(memory.Bytes(4*(k-1), size), memory.Bytes(8, min(k*opt.PEK, n)+1, n), memory.Bytes(8*(k+1), cols))
	if opt.OnDemand {
		return need
	}
	return memory.Sum(need, product.GraphBytes(n, m, k, opt.connectivities()))
}

// CheckMemory reports a *memory.Error when the items of graphs preprocessed with opt do not
// fit in the available memory, as Dataset, Cached and Load would; with OnDemand set they may.
func CheckMemory(graphs []*graph.Graph, opt Options) error {
	return checkMemory(graphs, opt, 0)
}

// checkMemory checks that the items of graphs, and the eigendecompositions of workers graphs
// at a time (none when workers is 0), fit in the available memory.
func checkMemory(graphs []*graph.Graph, opt Options, workers int) error {
	need, nodes, largest := int64(0), int64(0), -1
	for i, g := range graphs {
		need = memory.Sum(need, itemBytes(g.N(), g.NumEdges(), opt))
		nodes = memory.Sum(nodes, memory.Bytes(g.N(), g.N()))
		if largest < 0 || g.N() > graphs[largest].N() {
			largest = i
		}
	}
	if largest < 0 {
		return nil
	}
	need = memory.Sum(need, memory.Bytes(workers, int(pe.SpectrumBytes(graphs[largest].N()))))
	return memory.Check(need, "preprocess: %d graphs (%d product nodes; largest graph %d (%d nodes)) with PE k = %d",
		len(graphs), nodes, largest, graphs[largest].N(), opt.PEK)
}

func encode(g *graph.Graph, opt Options) (*pe.Encoding, error) {
	spec, err := pe.NewSpectrum(g)
	if err != nil {
		return nil, err
	}
	switch opt.mode() {
	case AuthorsCode:
		return pe.Reference(spec, opt.PEK)
	case Concat:
		return pe.Concatenation(spec, opt.K(), opt.PEK)
	}
	size, err := product.NumNodes(g.N(), opt.K())
	if err != nil {
		return nil, err
	}
	return pe.Tuple(spec, opt.K(), min(opt.PEK, size))
}

// Dataset preprocesses graphs in parallel on workers goroutines (GOMAXPROCS when workers ≤ 0).
// It first estimates the memory the items and the eigendecompositions in flight need, and
// refuses a dataset that does not fit (*memory.Error, naming the number of graphs and the
// largest) before computing anything.
// progress, if not nil, is called after each graph with the number done so far; it may be
// called from several goroutines, never concurrently.
func Dataset(graphs []*graph.Graph, opt Options, workers int, progress func(done int)) ([]Item, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := checkMemory(graphs, opt, min(workers, len(graphs))); err != nil {
		return nil, err
	}
	items := make([]Item, len(graphs))
	errs := make([]error, len(graphs))
	var done atomic.Int64
	var mu sync.Mutex
	parallel.For(len(graphs), workers, func(i int) {
		items[i], errs[i] = Graph(graphs[i], opt)
		d := done.Add(1)
		if progress != nil {
			mu.Lock()
			progress(int(d))
			mu.Unlock()
		}
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("preprocess: graph %d: %w", i, err)
		}
	}
	return items, nil
}

// Fingerprint returns a SHA-256 digest of the graphs' structure and features, identifying the
// data a cache was computed from.
func Fingerprint(graphs []*graph.Graph) [32]byte {
	h := sha256.New()
	w := func(x int64) { binary.Write(h, binary.LittleEndian, x) }
	w(int64(len(graphs)))
	for _, g := range graphs {
		w(int64(g.N()))
		w(int64(g.NumEdges()))
		for _, e := range g.Edges() {
			w(int64(e[0]))
			w(int64(e[1]))
		}
		features(h, g.NodeFeatures)
		features(h, g.EdgeFeatures)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

func features(h hash.Hash, f graph.Features) {
	binary.Write(h, binary.LittleEndian, int64(f.Width))
	binary.Write(h, binary.LittleEndian, int64(len(f.Ints)))
	binary.Write(h, binary.LittleEndian, f.Ints)
	binary.Write(h, binary.LittleEndian, int64(len(f.Floats)))
	for _, x := range f.Floats {
		binary.Write(h, binary.LittleEndian, math.Float32bits(x))
	}
}
