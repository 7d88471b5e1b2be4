package torchpickle

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strconv"
)

// An Entry is one tensor of a state dict to save: its name, shape, and row-major values, stored
// as DType ("float32", "float64" or "int64").
type Entry struct {
	Name   string
	Shape  []int
	DType  string
	Values []float64
}

// SaveStateDict writes entries as torch.save(OrderedDict(entries)) does: a zip archive whose
// folder is archive, holding data.pkl (a pickle of protocol 2 that rebuilds each tensor with
// torch._utils._rebuild_tensor_v2 from its storage), one record per storage under data/, and the
// byte order and format version records; records are stored uncompressed at 64-byte offsets, as
// PyTorch aligns them. torch.load reads it, and Load here.
func SaveStateDict(w io.Writer, archive string, entries []Entry) error {
	var p pickler
	p.op(0x80, 2) // PROTO 2
	p.global("collections", "OrderedDict")
	p.op(')', 'R', '(') // EMPTY_TUPLE, REDUCE, MARK
	storages := make([][]byte, len(entries))
	for i, e := range entries {
		n := 1
		for _, d := range e.Shape {
			if d < 0 {
				return fmt.Errorf("torchpickle: %s: shape %v", e.Name, e.Shape)
			}
			n *= d
		}
		if n != len(e.Values) {
			return fmt.Errorf("torchpickle: %s: %d values for shape %v", e.Name, len(e.Values), e.Shape)
		}
		var class string
		var raw []byte
		switch e.DType {
		case "float32":
			class, raw = "FloatStorage", make([]byte, 4*n)
			for j, v := range e.Values {
				binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(float32(v)))
			}
		case "float64":
			class, raw = "DoubleStorage", make([]byte, 8*n)
			for j, v := range e.Values {
				binary.LittleEndian.PutUint64(raw[8*j:], math.Float64bits(v))
			}
		case "int64":
			class, raw = "LongStorage", make([]byte, 8*n)
			for j, v := range e.Values {
				if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
					return fmt.Errorf("torchpickle: %s[%d] = %v is not an integer", e.Name, j, v)
				}
				binary.LittleEndian.PutUint64(raw[8*j:], uint64(int64(v)))
			}
		default:
			return fmt.Errorf("torchpickle: %s: dtype %q, want float32, float64 or int64", e.Name, e.DType)
		}
		storages[i] = raw
		p.str(e.Name)
		p.global("torch._utils", "_rebuild_tensor_v2")
		p.op('(')                              // MARK: the arguments
		p.op('(')                              // MARK: the persistent id
		p.str("storage")                       //
		p.global("torch", class)               //
		p.str(strconv.Itoa(i))                 // key
		p.str("cpu")                           // location
		p.int(n)                               // elements
		p.op('t', 'Q')                         // TUPLE, BINPERSID
		p.int(0)                               // storage offset
		p.tuple(e.Shape)                       // size
		p.tuple(strides(e.Shape))              // stride
		p.op(0x89)                             // NEWFALSE: requires_grad
		p.global("collections", "OrderedDict") // backward hooks
		p.op(')', 'R', 't', 'R')               // OrderedDict(), TUPLE, REDUCE
	}
	p.op('u', '.') // SETITEMS, STOP

	zw := zip.NewWriter(w)
	var offset int64
	record := func(name string, b []byte) error {
		// The local header is 30 bytes, the name, then an extra field padding the data to 64 bytes.
		header := int64(30 + len(name))
		pad := (64 - (offset+header+4)%64) % 64
		extra := make([]byte, 4+pad)
		binary.LittleEndian.PutUint16(extra, 0x4246) // "FB", PyTorch's padding field
		binary.LittleEndian.PutUint16(extra[2:], uint16(pad))
		fw, err := zw.CreateRaw(&zip.FileHeader{
			Name: name, Method: zip.Store, Extra: extra,
			CRC32: crc32.ChecksumIEEE(b), CompressedSize64: uint64(len(b)), UncompressedSize64: uint64(len(b)),
		})
		if err != nil {
			return err
		}
		if _, err := fw.Write(b); err != nil {
			return err
		}
		offset += header + int64(len(extra)) + int64(len(b))
		return nil
	}
	if err := record(archive+"/data.pkl", p.Bytes()); err != nil {
		return err
	}
	if err := record(archive+"/byteorder", []byte("little")); err != nil {
		return err
	}
	for i, raw := range storages {
		if err := record(archive+"/data/"+strconv.Itoa(i), raw); err != nil {
			return err
		}
	}
	if err := record(archive+"/version", []byte("3\n")); err != nil {
		return err
	}
	return zw.Close()
}

// strides are the row-major strides of shape.
func strides(shape []int) []int {
	s := make([]int, len(shape))
	step := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = step
		step *= shape[i]
	}
	return s
}

// pickler writes the few pickle opcodes a state dict needs.
type pickler struct{ bytes.Buffer }

func (p *pickler) op(codes ...byte) { p.Write(codes) }

// global is GLOBAL module.name.
func (p *pickler) global(module, name string) { fmt.Fprintf(p, "c%s\n%s\n", module, name) }

// str is BINUNICODE s.
func (p *pickler) str(s string) {
	p.op('X')
	binary.Write(p, binary.LittleEndian, uint32(len(s)))
	p.WriteString(s)
}

// int is BININT x, or LONG1 beyond 32 bits.
func (p *pickler) int(x int) {
	if x >= math.MinInt32 && x <= math.MaxInt32 {
		p.op('J')
		binary.Write(p, binary.LittleEndian, int32(x))
		return
	}
	p.op(0x8a, 8) // LONG1 of 8 bytes, little-endian two's complement
	binary.Write(p, binary.LittleEndian, int64(x))
}

// tuple is the tuple of xs.
func (p *pickler) tuple(xs []int) {
	p.op('(')
	for _, x := range xs {
		p.int(x)
	}
	p.op('t')
}
