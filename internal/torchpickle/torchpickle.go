// Package torchpickle reads and writes PyTorch's serialisations: plain Python pickles whose
// tensors PyTorch reduced to legacy torch.save blobs (benchmarking-gnns' molecules/*.pickle, the
// canonical ZINC download), torch.save zip archives (PyG's processed/*.pt files, models' state
// dicts and whole-module pickles), and the NumPy arrays of LRGB's split pickles (numpy.go); it
// writes state dicts as torch.save does (save.go).
//
// The pickle machine is github.com/nlpodyssey/gopickle's; this package rebuilds tensors from
// their storages and Python objects from their __dict__, and turns every panic of a corrupt
// file into an error.
package torchpickle

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"path"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// Tensor is a view of a storage, as PyTorch's: elements are decoded when read, so that a pickle
// of many tensors costs little more memory than its bytes.
type Tensor struct {
	Shape  []int
	s      *storage
	offset int
	stride []int
}

// DType is PyTorch's name of the element type: "int64", "float32", "bool", ...
func (t *Tensor) DType() string { return t.s.class.dtype }

// Integer reports whether the elements are integers (or bools), read with Int.
func (t *Tensor) Integer() bool { return !t.s.class.floating() }

// Len is the number of elements.
func (t *Tensor) Len() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// at is the storage index of element i in row-major order.
func (t *Tensor) at(i int) int {
	at := t.offset
	for d := len(t.Shape) - 1; d >= 0; d-- {
		at += i % t.Shape[d] * t.stride[d]
		i /= t.Shape[d]
	}
	return at
}

// Int returns element i (row-major) of an integer tensor, or the truncated value of a floating one.
func (t *Tensor) Int(i int) int64 {
	if t.s.class.floating() {
		return int64(t.s.float(t.at(i)))
	}
	return t.s.int(t.at(i))
}

// Float returns element i (row-major) as a float64.
func (t *Tensor) Float(i int) float64 {
	if t.s.class.floating() {
		return t.s.float(t.at(i))
	}
	return float64(t.s.int(t.at(i)))
}

// Object is a Python object rebuilt from its class and __dict__ (as pickle's BUILD sets it).
type Object struct {
	Class  string // module.name
	Fields map[string]any
}

// Unpickle reads a Python pickle, such as one written by pickle.dump, whose tensors were
// pickled by PyTorch (each storage a legacy torch.save blob). Dicts, lists and tuples come back
// as gopickle's *types.Dict, *types.List and *types.Tuple; tensors as *Tensor.
//
// The pickle is first read through once to check its length prefixes against its size (see
// checkLengths), then unpickled from where r stood.
func Unpickle(r io.ReadSeeker) (v any, err error) {
	defer recoverCorrupt(&err)
	start, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	end, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	if _, err := r.Seek(start, io.SeekStart); err != nil {
		return nil, err
	}
	if err := checkLengths(r, end-start, 1); err != nil {
		return nil, err
	}
	if _, err := r.Seek(start, io.SeekStart); err != nil {
		return nil, err
	}
	u := pickle.NewUnpickler(bufio.NewReaderSize(r, 1<<20))
	u.FindClass = findClass
	v, err = u.Load()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("truncated pickle: %w", err)
	}
	return v, err
}

// Load reads a torch.save zip archive (the format of torch.save since PyTorch 1.6).
func Load(r io.ReaderAt, size int64) (v any, err error) {
	defer recoverCorrupt(&err)
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a torch.save zip archive: %w", err)
	}
	records := map[string]*zip.File{}
	prefix := ""
	for _, f := range zr.File {
		records[f.Name] = f
		if dir, file := path.Split(f.Name); file == "data.pkl" {
			prefix = dir
		}
	}
	pkl, ok := records[prefix+"data.pkl"]
	if !ok {
		return nil, errors.New("no data.pkl in the archive")
	}
	if order, ok := records[prefix+"byteorder"]; ok {
		if b, err := readRecord(order, size); err != nil || strings.TrimSpace(string(b)) != "little" {
			return nil, fmt.Errorf("byte order %q: only little-endian archives are read", b)
		}
	}
	b, err := readRecord(pkl, size)
	if err != nil {
		return nil, fmt.Errorf("data.pkl: %w", err)
	}
	if err := checkLengths(bytes.NewReader(b), int64(len(b)), 1); err != nil {
		return nil, err
	}
	u := pickle.NewUnpickler(bytes.NewReader(b))
	u.FindClass = findClass
	loaded := map[string]*storage{}
	u.PersistentLoad = func(id any) (any, error) {
		class, key, numel, err := storageID(id)
		if err != nil {
			return nil, err
		}
		if s, ok := loaded[key]; ok {
			return s, nil
		}
		rec, ok := records[prefix+"data/"+key]
		if !ok {
			return nil, fmt.Errorf("storage %s: no record data/%s in the archive", key, key)
		}
		raw, err := readRecord(rec, size)
		if err != nil {
			return nil, fmt.Errorf("storage %s: %w", key, err)
		}
		s, err := class.newStorage(raw, numel)
		if err != nil {
			return nil, fmt.Errorf("storage %s: %w", key, err)
		}
		loaded[key] = s
		return s, nil
	}
	return u.Load()
}

// readRecord reads a record of an archive of size bytes. torch.save stores records
// uncompressed, so one that unpacks to more than the archive's size is corrupt (or a zip bomb),
// and is refused before it is read whole.
func readRecord(f *zip.File, size int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(size) {
		return nil, fmt.Errorf("record %s of %d bytes in an archive of %d", f.Name, f.UncompressedSize64, size)
	}
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, size+1))
	if err == nil && int64(len(b)) > size {
		err = fmt.Errorf("record %s unpacks to more than the archive's %d bytes", f.Name, size)
	}
	return b, err
}

// recoverCorrupt turns a panic of the pickle machine (which trusts its input) into an error.
func recoverCorrupt(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("corrupt pickle: %v", r)
	}
}

// storageClass is one of torch's typed storage classes (torch.LongStorage, ...).
type storageClass struct {
	dtype string
	size  int // bytes per element
}

var storageClasses = map[string]storageClass{
	"LongStorage": {"int64", 8}, "IntStorage": {"int32", 4}, "ShortStorage": {"int16", 2},
	"CharStorage": {"int8", 1}, "ByteStorage": {"uint8", 1}, "BoolStorage": {"bool", 1},
	"DoubleStorage": {"float64", 8}, "FloatStorage": {"float32", 4}, "HalfStorage": {"float16", 2},
}

// storage holds the little-endian bytes of a storage's elements.
type storage struct {
	class storageClass
	raw   []byte
}

func (s *storage) len() int { return len(s.raw) / s.class.size }

func (c storageClass) floating() bool { return strings.HasPrefix(c.dtype, "float") }

func (s *storage) int(i int) int64 {
	le := binary.LittleEndian
	switch s.class.dtype {
	case "int64":
		return int64(le.Uint64(s.raw[8*i:]))
	case "int32":
		return int64(int32(le.Uint32(s.raw[4*i:])))
	case "int16":
		return int64(int16(le.Uint16(s.raw[2*i:])))
	case "int8":
		return int64(int8(s.raw[i]))
	}
	return int64(s.raw[i]) // uint8, bool
}

func (s *storage) float(i int) float64 {
	le := binary.LittleEndian
	switch s.class.size {
	case 8:
		return math.Float64frombits(le.Uint64(s.raw[8*i:]))
	case 4:
		return float64(math.Float32frombits(le.Uint32(s.raw[4*i:])))
	}
	return halfToFloat(le.Uint16(s.raw[2*i:]))
}

// newStorage checks that raw holds numel elements of the class.
func (c storageClass) newStorage(raw []byte, numel int) (*storage, error) {
	if numel < 0 || len(raw) != numel*c.size {
		return nil, fmt.Errorf("%d bytes for %d %s elements", len(raw), numel, c.dtype)
	}
	return &storage{class: c, raw: raw}, nil
}

// halfToFloat converts an IEEE 754 binary16 value.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// storageID reads a persistent id ("storage", class, key, location, numel, ...).
func storageID(id any) (class storageClass, key string, numel int, err error) {
	t, ok := id.(*types.Tuple)
	if !ok || t.Len() < 5 || t.Get(0) != "storage" {
		return class, "", 0, fmt.Errorf("unknown persistent id %v", id)
	}
	c, okC := t.Get(1).(storageClass)
	key, okK := t.Get(2).(string)
	numel, okN := t.Get(4).(int)
	if !okC || !okK || !okN {
		return class, "", 0, fmt.Errorf("persistent id %v: want (\"storage\", a torch storage class, key, location, size)", id)
	}
	return c, key, numel, nil
}

// findClass resolves the globals a torch pickle refers to; other classes become Objects.
func findClass(module, name string) (any, error) {
	switch module + "." + name {
	case "torch._utils._rebuild_tensor", "torch._utils._rebuild_tensor_v2":
		return callable(rebuildTensor), nil
	case "torch.storage._load_from_bytes":
		return callable(loadFromBytes), nil
	case "_codecs.encode": // bytes under pickle protocol 2: encode(str, "latin1")
		return callable(encodeLatin1), nil
	case "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state": // nn.Parameter(data, ...)
		return callable(rebuildParameter), nil
	case "collections.OrderedDict": // a state_dict, a module's _parameters
		return callable(func(...any) (any, error) { return types.NewOrderedDict(), nil }), nil
	case "builtins.set", "__builtin__.set": // set(list) under pickle protocol 2
		return callable(func(args ...any) (any, error) {
			if len(args) == 1 {
				if l, ok := args[0].(*types.List); ok {
					return types.NewSetFromSlice(*l), nil
				}
			}
			return types.NewSet(), nil
		}), nil
	case "collections.defaultdict": // PyG's slices: defaultdict(dict)
		return callable(func(...any) (any, error) { return types.NewDict(), nil }), nil
	case "__builtin__.bytes", "builtins.bytes": // b"" under protocol 2
		return callable(func(...any) (any, error) { return []byte{}, nil }), nil
	case "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct":
		return callable(reconstructArray), nil
	case "numpy.core.numeric._frombuffer", "numpy._core.numeric._frombuffer":
		return callable(fromBuffer), nil
	case "numpy.dtype":
		return callable(newDType), nil
	}
	if module == "torch" {
		if c, ok := storageClasses[name]; ok {
			return c, nil
		}
	}
	return &class{module + "." + name}, nil
}

// encodeLatin1 is _codecs.encode(s, "latin1"): each code point below 256 one byte.
func encodeLatin1(args ...any) (any, error) {
	s, ok := args[0].(string)
	if len(args) != 2 || !ok || args[1] != "latin1" {
		return nil, fmt.Errorf("_codecs.encode%v: want (str, \"latin1\")", args)
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			return nil, fmt.Errorf("_codecs.encode: %U is not latin-1", r)
		}
		b = append(b, byte(r))
	}
	return b, nil
}

type callable func(args ...any) (any, error)

func (f callable) Call(args ...any) (any, error) { return f(args...) }

// class is a Python class unknown to this package; its instances are Objects.
type class struct{ name string }

func (c *class) PyNew(...any) (any, error) {
	return &Object{Class: c.name, Fields: map[string]any{}}, nil
}

func (c *class) Call(...any) (any, error) { return c.PyNew() }

// PyDictSet sets a field, as pickle's BUILD does with the object's state.
func (o *Object) PyDictSet(key, value any) error {
	k, ok := key.(string)
	if !ok {
		return fmt.Errorf("%s: field name %v is not a string", o.Class, key)
	}
	o.Fields[k] = value
	return nil
}

// rebuildTensor is torch._utils._rebuild_tensor(_v2)(storage, offset, size, stride, ...).
func rebuildTensor(args ...any) (any, error) {
	if len(args) < 4 {
		return nil, fmt.Errorf("_rebuild_tensor: %d arguments, want at least 4", len(args))
	}
	s, ok := args[0].(*storage)
	offset, okO := args[1].(int)
	shape, errS := ints(args[2])
	stride, errT := ints(args[3])
	if !ok || !okO || errS != nil || errT != nil || len(shape) != len(stride) {
		return nil, fmt.Errorf("_rebuild_tensor: want (storage, offset, size, stride), got %v", args[:4])
	}
	// The view's element count and the largest storage index it reads, computed without
	// overflow: a view of more elements than its storage holds (a stride-0, expanded view, or a
	// corrupt size) is refused, so that a tensor's Len is bounded by the file's size.
	n, last := 1, offset
	for i, d := range shape {
		if d < 0 || stride[i] < 0 {
			return nil, fmt.Errorf("_rebuild_tensor: size %v, stride %v", shape, stride)
		}
		if d == 0 {
			n = 0
			continue
		}
		if n > s.len()/d || stride[i] > 0 && d-1 > (math.MaxInt-last)/stride[i] {
			return nil, fmt.Errorf("_rebuild_tensor: a view of size %v, stride %v over a storage of %d elements (expanded views are not read)", shape, stride, s.len())
		}
		n *= d
		last += (d - 1) * stride[i]
	}
	if n > 0 && (offset < 0 || last >= s.len()) {
		return nil, fmt.Errorf("_rebuild_tensor: view (offset %d, size %v, stride %v) outside a storage of %d elements", offset, shape, stride, s.len())
	}
	return &Tensor{Shape: shape, s: s, offset: offset, stride: stride}, nil
}

// rebuildParameter is torch._utils._rebuild_parameter(data, requires_grad, hooks[, state]): the
// parameter is its tensor.
func rebuildParameter(args ...any) (any, error) {
	if len(args) < 1 {
		return nil, errors.New("_rebuild_parameter: no arguments")
	}
	t, ok := args[0].(*Tensor)
	if !ok {
		return nil, fmt.Errorf("_rebuild_parameter: %T, want a tensor", args[0])
	}
	return t, nil
}

func ints(v any) ([]int, error) {
	t, ok := v.(*types.Tuple)
	if !ok {
		return nil, fmt.Errorf("%v is not a tuple", v)
	}
	out := make([]int, t.Len())
	for i := range out {
		if out[i], ok = t.Get(i).(int); !ok {
			return nil, fmt.Errorf("%v is not a tuple of ints", v)
		}
	}
	return out, nil
}

// legacyMagic is the number every legacy torch.save stream starts with.
var legacyMagic, _ = new(big.Int).SetString("1950a86a20f9469cfc6c", 16)

// loadFromBytes is torch.storage._load_from_bytes(b): a storage saved by torch.save in the legacy
// (non-zip) format — magic number, protocol version, system info, the storage's pickle, its key
// list, then for each key the element count (int64) and the raw little-endian elements.
func loadFromBytes(args ...any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("_load_from_bytes: %d arguments, want 1", len(args))
	}
	b, ok := args[0].([]byte)
	if !ok {
		return nil, fmt.Errorf("_load_from_bytes: argument %T, want bytes", args[0])
	}
	// One unpickler reads the stream's five pickles (its memo outlives each, harmlessly: each
	// pickle stores before it fetches), since creating one costs more than reading a small blob.
	if err := checkLengths(bytes.NewReader(b), int64(len(b)), 5); err != nil {
		return nil, fmt.Errorf("_load_from_bytes: %w", err)
	}
	r := bytes.NewReader(b)
	u := pickle.NewUnpickler(r)
	u.FindClass = findClass
	magic, err := u.Load()
	if m, ok := magic.(*big.Int); err != nil || !ok || m.Cmp(legacyMagic) != 0 {
		return nil, fmt.Errorf("_load_from_bytes: not a legacy torch.save stream (magic %v)", magic)
	}
	if proto, err := u.Load(); err != nil || proto != 1001 {
		return nil, fmt.Errorf("_load_from_bytes: protocol %v, want 1001", proto)
	}
	info, err := u.Load()
	if err != nil {
		return nil, fmt.Errorf("_load_from_bytes: system info: %w", err)
	}
	if d, ok := info.(*types.Dict); ok {
		if le, ok := d.Get("little_endian"); ok && le != true {
			return nil, errors.New("_load_from_bytes: only little-endian data is read")
		}
	}
	pending := map[string]*pendingStorage{}
	u.PersistentLoad = func(id any) (any, error) {
		class, key, numel, err := storageID(id)
		if err != nil {
			return nil, err
		}
		if t := id.(*types.Tuple); t.Len() > 5 && t.Get(5) != nil {
			return nil, fmt.Errorf("storage %s: storage views are not supported", key)
		}
		if p, ok := pending[key]; ok {
			return p.s, nil
		}
		p := &pendingStorage{numel: numel, s: &storage{class: class}}
		pending[key] = p
		return p.s, nil
	}
	result, err := u.Load()
	if err != nil {
		return nil, fmt.Errorf("_load_from_bytes: %w", err)
	}
	keys, err := u.Load()
	if err != nil {
		return nil, fmt.Errorf("_load_from_bytes: storage keys: %w", err)
	}
	list, ok := keys.(*types.List)
	if !ok {
		return nil, fmt.Errorf("_load_from_bytes: storage keys %v, want a list", keys)
	}
	for _, k := range *list {
		key, _ := k.(string)
		p, ok := pending[key]
		if !ok {
			return nil, fmt.Errorf("_load_from_bytes: data for unknown storage %v", k)
		}
		var numel int64
		if err := binary.Read(r, binary.LittleEndian, &numel); err != nil || numel != int64(p.numel) {
			return nil, fmt.Errorf("_load_from_bytes: storage %s: element count %d, want %d (%v)", key, numel, p.numel, err)
		}
		size := p.s.class.size
		if int64(p.numel)*int64(size) > int64(r.Len()) {
			return nil, fmt.Errorf("_load_from_bytes: storage %s: %d elements, but %d bytes left", key, p.numel, r.Len())
		}
		at := len(b) - r.Len()
		p.s.raw = b[at : at+p.numel*size] // shares the blob, which the pickle's memo keeps anyway
		r.Seek(int64(len(p.s.raw)), io.SeekCurrent)
	}
	if _, ok := result.(*storage); !ok {
		return nil, fmt.Errorf("_load_from_bytes: %T, want a storage", result)
	}
	return result, nil
}

// pendingStorage is a storage whose data follows the pickle that refers to it.
type pendingStorage struct {
	numel int
	s     *storage
}
