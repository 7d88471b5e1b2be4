package preprocess

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/product"
)

// FormatVersion is the version of the cache file format; files of another version are stale.
// Version 2 added tuple orders and the concatenation PE's constant basis vector.
const FormatVersion = 2

const magic = "SGFORMER-PREPROCESS\n"

// ErrStale reports a cache file computed with another format version, other options or from
// other graphs. It is not an error for Cached, which recomputes.
var ErrStale = errors.New("preprocess: cache is stale")

// ErrCorrupt reports a cache file that cannot be what Save wrote (damaged, truncated).
var ErrCorrupt = errors.New("preprocess: corrupt cache")

// header identifies a cache file's content: the format, the options that determine it (the
// connectivities do not) and the graphs.
type header struct {
	Version     int     `json:"version"`
	Options     Options `json:"options"`
	Graphs      int     `json:"graphs"`
	Fingerprint string  `json:"fingerprint"`
}

func newHeader(graphs []*graph.Graph, opt Options) header {
	opt.PEMode, opt.TupleK, opt.Connectivities = opt.mode(), opt.K(), nil
	fp := Fingerprint(graphs)
	return header{Version: FormatVersion, Options: opt, Graphs: len(graphs), Fingerprint: hex.EncodeToString(fp[:])}
}

// same reports whether two headers identify the same content.
func (h header) same(o header) bool {
	return h.Version == o.Version && h.Options.PEK == o.Options.PEK && h.Options.PEMode == o.Options.PEMode &&
		h.Options.TupleK == o.Options.TupleK && h.Graphs == o.Graphs && h.Fingerprint == o.Fingerprint
}

// CacheName is the file name of the cache of dataset preprocessed with opt:
// DATASET-peK-MODE.cache, with -kK before the extension for tuples of order K ≥ 3.
func CacheName(dataset string, opt Options) string {
	name := fmt.Sprintf("%s-pe%d-%s", dataset, opt.PEK, opt.mode())
	if opt.K() != 2 {
		name += fmt.Sprintf("-k%d", opt.K())
	}
	return name + ".cache"
}

// Cached returns the preprocessed graphs, read from the cache file at path when it holds
// exactly these graphs and options, and otherwise computed with Dataset and written to path
// atomically. fresh reports whether they were computed.
func Cached(path string, graphs []*graph.Graph, opt Options, workers int, progress func(done int)) (items []Item, fresh bool, err error) {
	items, err = Load(path, graphs, opt)
	switch {
	case err == nil:
		return items, false, nil
	case !errors.Is(err, ErrStale) && !errors.Is(err, os.ErrNotExist):
		return nil, false, err
	}
	if items, err = Dataset(graphs, opt, workers, progress); err != nil {
		return nil, false, err
	}
	if err := Save(path, graphs, opt, items); err != nil {
		return nil, false, err
	}
	return items, true, nil
}

// Save writes items, preprocessed from graphs with opt, to the cache file at path: atomically
// (a temporary file renamed into place), so that an interrupted write leaves no partial file.
func Save(path string, graphs []*graph.Graph, opt Options, items []Item) error {
	if len(items) != len(graphs) {
		return fmt.Errorf("preprocess: %d items for %d graphs", len(items), len(graphs))
	}
	hd, err := json.Marshal(newHeader(graphs, opt))
	if err != nil {
		return err
	}
	w := &writer{b: []byte(magic)}
	w.uvarint(uint64(len(hd)))
	w.b = append(w.b, hd...)
	for _, it := range items {
		w.item(it)
	}
	sum := sha256.Sum256(w.b)
	return atomicfile.Write(path, append(w.b, sum[:]...))
}

// item appends the encoding of one item: its node marks and factored PE.
func (w *writer) item(it Item) {
	w.uvarint(uint64(len(it.Marks)))
	for _, m := range it.Marks {
		w.varint(int64(m))
	}
	e := it.PE
	w.uvarint(uint64(e.N))
	w.uvarint(uint64(e.Order))
	w.uvarint(uint64(len(e.Values)))
	w.floats(e.Values)
	for _, f := range e.Factors {
		w.uvarint(uint64(f))
	}
	w.uvarint(uint64(len(e.Basis)))
	for i, b := range e.Basis {
		w.uvarint(uint64(e.BasisIndex[i] + 1)) // −1 (the constant vector) is 0
		w.floats(b)
	}
}

// Load reads the cache file at path, which must hold graphs preprocessed with opt. It returns
// an error wrapping os.ErrNotExist when there is no file, ErrStale when the file holds other
// graphs, options or format version, and a "corrupt" error naming the file otherwise.
func Load(path string, graphs []*graph.Graph, opt Options) ([]Item, error) {
	r, err := open(path, graphs, opt)
	if err != nil {
		return nil, err
	}
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w %s (%s)", ErrCorrupt, path, fmt.Sprintf(format, args...))
	}
	if err := checkMemory(graphs, opt, 0); err != nil {
		return nil, err
	}
	k := opt.K()
	items := make([]Item, len(graphs))
	for i, g := range graphs {
		n := g.N()
		size, err := product.NumNodes(n, k)
		if err != nil {
			return nil, err
		}
		marks := make([]int32, r.uvarint(uint64(size*(k-1)), 1)) // one varint each
		for j := range marks {
			marks[j] = int32(r.varint())
		}
		e := &pe.Encoding{N: int(r.uvarint(uint64(n), 0)), Order: int(r.uvarint(uint64(k), 0))}
		e.Values = r.floats(int(r.uvarint(uint64(max(opt.Columns(), 0)), 8)))
		e.Factors = make([]int, r.count(len(e.Values)*e.Order, 1)) // one uvarint each
		for j := range e.Factors {
			e.Factors[j] = int(r.uvarint(uint64(n), 0))
		}
		nb := int(r.uvarint(uint64(n+1), uint64(8*n+1)))
		for range nb {
			e.BasisIndex = append(e.BasisIndex, int(r.uvarint(uint64(n), 0))-1) // −1 (the constant vector) is stored as 0
			e.Basis = append(e.Basis, r.floats(n))
		}
		if r.err != nil {
			return nil, corrupt("graph %d: %v", i, r.err)
		}
		if len(marks) != size*(k-1) || e.N != n || e.Order != k {
			return nil, corrupt("graph %d: %d marks, PE of %d nodes and order %d, for a graph of %d nodes", i, len(marks), e.N, e.Order, n)
		}
		for j, m := range marks {
			if m < -1 || int(m) >= n {
				return nil, corrupt("graph %d: node mark %d of product node %d outside [-1, %d)", i, m, j, n)
			}
		}
		for _, f := range e.Factors {
			if f >= nb {
				return nil, corrupt("graph %d: PE factor %d of %d eigenvectors", i, f, nb)
			}
		}
		items[i] = Item{Marks: marks, PE: e}
		if !opt.OnDemand {
			if items[i].Product, err = opt.Product(g); err != nil {
				return nil, err
			}
		}
	}
	if rest := r.b.Len(); rest > 0 {
		return nil, corrupt("%d bytes after the last graph", rest)
	}
	return items, nil
}

// open reads the cache file at path and checks that it holds graphs preprocessed with opt
// (Load's errors), returning a reader of the items.
func open(path string, graphs []*graph.Graph, opt Options) (*reader, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w %s (%s)", ErrCorrupt, path, fmt.Sprintf(format, args...))
	}
	if !bytes.HasPrefix(raw, []byte(magic)) || len(raw) < len(magic)+sha256.Size {
		return nil, corrupt("not a preprocessing cache")
	}
	r := &reader{b: bytes.NewReader(raw[len(magic) : len(raw)-sha256.Size])}
	hd := r.bytes(r.uvarint(1<<20, 1))
	if r.err != nil {
		return nil, corrupt("truncated header")
	}
	var got header
	if err := json.Unmarshal(hd, &got); err != nil {
		return nil, corrupt("header: %v", err)
	}
	want := newHeader(graphs, opt)
	if got.Version != want.Version {
		return nil, fmt.Errorf("%w: %s has format version %d, want %d", ErrStale, path, got.Version, want.Version)
	}
	body, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil, corrupt("checksum mismatch")
	}
	if !got.same(want) {
		return nil, fmt.Errorf("%w: %s holds %+v, want %+v", ErrStale, path, got, want)
	}
	return r, nil
}

// writer appends the cache encoding: unsigned and signed varints, little-endian float64s.
type writer struct{ b []byte }

func (w *writer) uvarint(x uint64) { w.b = binary.AppendUvarint(w.b, x) }
func (w *writer) varint(x int64)   { w.b = binary.AppendVarint(w.b, x) }
func (w *writer) floats(xs []float64) {
	for _, x := range xs {
		w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(x))
	}
}

// reader decodes the cache body, remembering the first error. Every count is checked against
// a bound before anything is allocated for it: the largest value the format allows, and what
// the bytes left can hold at the count's smallest encoding per element, so that a corrupt file
// cannot ask for more memory than its size justifies.
type reader struct {
	b   *bytes.Reader
	err error
}

// uvarint reads an unsigned varint that must not exceed bound; as the count of elements of
// at least perElement bytes each (0: not a count), it must also fit in the bytes left.
func (r *reader) uvarint(bound, perElement uint64) uint64 {
	if r.err != nil {
		return 0
	}
	x, err := binary.ReadUvarint(r.b)
	if err == nil && x > bound {
		err = fmt.Errorf("value %d exceeds %d", x, bound)
	}
	if left := uint64(r.b.Len()); err == nil && perElement > 0 && x > left/perElement {
		err = fmt.Errorf("%d elements of %d bytes announced, %d bytes left", x, perElement, left)
	}
	if err != nil {
		r.err = err
		return 0
	}
	return x
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	x, err := binary.ReadVarint(r.b)
	if err != nil {
		r.err = err
	}
	return x
}

// count returns n, the number of elements of at least perElement bytes that follow, when the
// bytes left can hold them, else 0 and an error.
func (r *reader) count(n, perElement int) int {
	if r.err == nil && n > r.b.Len()/perElement {
		r.err = fmt.Errorf("%d elements of %d bytes expected, %d bytes left", n, perElement, r.b.Len())
	}
	if r.err != nil {
		return 0
	}
	return n
}

// bytes reads n bytes (n checked against the bytes left by the count that gave it).
func (r *reader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(r.b, out); err != nil {
		r.err = err
	}
	return out
}

// floats reads n little-endian float64s, after checking that the bytes left hold them.
func (r *reader) floats(n int) []float64 {
	if r.err == nil && n > r.b.Len()/8 {
		r.err = fmt.Errorf("%d float64s announced, %d bytes left", n, r.b.Len())
	}
	if r.err != nil {
		return nil
	}
	out := make([]float64, n)
	var b [8]byte
	for i := range out {
		if _, err := io.ReadFull(r.b, b[:]); err != nil {
			r.err = err
			return out
		}
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	return out
}
