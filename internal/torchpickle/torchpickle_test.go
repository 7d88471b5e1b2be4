package torchpickle

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/nlpodyssey/gopickle/types"
)

// The fixtures hold the tensors of testdata/make.py, written by PyTorch 1.13.
// want is a tensor's expected type, shape and values (ints for integer tensors, else floats).
type want struct {
	DType  string
	Shape  []int
	Ints   []int64
	Floats []float64
}

// read returns t's type, shape and values, for comparison with a want.
func read(t *Tensor) want {
	w := want{DType: t.DType(), Shape: t.Shape}
	for i := range t.Len() {
		if t.Integer() {
			w.Ints = append(w.Ints, t.Int(i))
		} else {
			w.Floats = append(w.Floats, t.Float(i))
		}
	}
	return w
}

func wantTensors() map[string]want {
	seq := func(from, to int) []int64 {
		var s []int64
		for i := from; i < to; i++ {
			s = append(s, int64(i))
		}
		return s
	}
	var transposed []int64 // base.view(4, 6).t(): element (i, j) = 6j + i
	for i := range 6 {
		for j := range 4 {
			transposed = append(transposed, int64(6*j+i))
		}
	}
	return map[string]want{
		"int64":      {DType: "int64", Shape: []int{4}, Ints: []int64{-3, 0, 7, 1 << 40}},
		"int32":      {DType: "int32", Shape: []int{2}, Ints: []int64{-5, 6}},
		"int16":      {DType: "int16", Shape: []int{2}, Ints: []int64{-7, 8}},
		"int8":       {DType: "int8", Shape: []int{2}, Ints: []int64{-9, 10}},
		"uint8":      {DType: "uint8", Shape: []int{2}, Ints: []int64{0, 255}},
		"bool":       {DType: "bool", Shape: []int{3}, Ints: []int64{1, 0, 1}},
		"float64":    {DType: "float64", Shape: []int{3}, Floats: []float64{1.5, -2.25, 1e-300}},
		"float32":    {DType: "float32", Shape: []int{2}, Floats: []float64{0.8350355625152588, -1}},
		"float16":    {DType: "float16", Shape: []int{3}, Floats: []float64{0.5, -65504, math.Ldexp(1, -24)}},
		"scalar":     {DType: "float32", Shape: []int{}, Floats: []float64{3}},
		"empty":      {DType: "float32", Shape: []int{0, 3}},
		"offset":     {DType: "int64", Shape: []int{4}, Ints: seq(5, 9)},
		"transposed": {DType: "int64", Shape: []int{6, 4}, Ints: transposed},
		"matrix":     {DType: "int64", Shape: []int{2, 3, 4}, Ints: seq(0, 24)},
	}
}

func checkTensors(t *testing.T, v any) {
	t.Helper()
	d, ok := v.(*types.Dict)
	if !ok {
		t.Fatalf("got %T, want a dict", v)
	}
	want := wantTensors()
	if d.Len() != len(want) {
		t.Errorf("%d entries, want %d", d.Len(), len(want))
	}
	for name, w := range want {
		got, ok := d.Get(name)
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		tensor, ok := got.(*Tensor)
		if !ok {
			t.Errorf("%s: a %T", name, got)
			continue
		}
		if r := read(tensor); !reflect.DeepEqual(r, w) {
			t.Errorf("%s = %+v, want %+v", name, r, w)
		}
	}
}

func TestUnpickle(t *testing.T) {
	for _, proto := range []int{2, 3, 4, 5} {
		t.Run(fmt.Sprint("protocol ", proto), func(t *testing.T) {
			f, err := os.Open(fmt.Sprintf("testdata/tensors-p%d.pickle", proto))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			v, err := Unpickle(f)
			if err != nil {
				t.Fatal(err)
			}
			checkTensors(t, v)
		})
	}
}

func TestLoad(t *testing.T) {
	raw, err := os.ReadFile("testdata/tensors.pt")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Load(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	checkTensors(t, v)
}

// Every truncation and a flipped byte give an error, never a panic or a silent success with
// the same content.
func TestCorrupt(t *testing.T) {
	raw, err := os.ReadFile("testdata/tensors-p4.pickle")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(raw); n += 7 {
		if _, err := Unpickle(bytes.NewReader(raw[:n])); err == nil {
			t.Errorf("truncated to %d of %d bytes: no error", n, len(raw))
		}
	}
	for i := 0; i < len(raw); i += 29 { // (a flipped length makes gopickle allocate up to 4 GB before failing: slow)
		bad := bytes.Clone(raw)
		bad[i] ^= 0x5a
		Unpickle(bytes.NewReader(bad)) // must not panic; the flip may hit a value it cannot know is wrong
	}
	zipped, err := os.ReadFile("testdata/tensors.pt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bytes.NewReader(zipped[:len(zipped)/2]), int64(len(zipped)/2)); err == nil {
		t.Error("half a zip archive: no error")
	}
	if _, err := Load(bytes.NewReader(raw), int64(len(raw))); err == nil || !strings.Contains(err.Error(), "zip") {
		t.Errorf("a pickle given to Load: %v, want an error saying it is no zip archive", err)
	}
}

func TestHalfToFloat(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float64
	}{{0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0001, math.Ldexp(1, -24)}, {0x0000, 0}, {0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)}} {
		if got := halfToFloat(c.h); got != c.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", c.h, got, c.want)
		}
	}
	if !math.IsNaN(halfToFloat(0x7e00)) {
		t.Error("halfToFloat(0x7e00) is not NaN")
	}
}

// The NumPy fixtures of testdata/make_numpy.py, written by numpy 1.24 under protocols 2 to 5:
// LRGB's split layout (a dict of int64 arrays) and the other dtypes and layouts.
func TestUnpickleNumPy(t *testing.T) {
	var fortran []int64 // element (i, j) = 6i + j, in row-major order whatever the layout
	for i := range 24 {
		fortran = append(fortran, int64(i))
	}
	want := map[string]want{
		"train":   {DType: "int64", Shape: []int{4}, Ints: []int64{1, 3, 4, 8}},
		"val":     {DType: "int64", Shape: []int{2}, Ints: []int64{0, 2}},
		"test":    {DType: "int64", Shape: []int{0}},
		"int32":   {DType: "int32", Shape: []int{2}, Ints: []int64{-5, 6}},
		"uint8":   {DType: "uint8", Shape: []int{2}, Ints: []int64{0, 255}},
		"bool":    {DType: "bool", Shape: []int{3}, Ints: []int64{1, 0, 1}},
		"float64": {DType: "float64", Shape: []int{3}, Floats: []float64{1.5, -2.25, 1e-300}},
		"float32": {DType: "float32", Shape: []int{2}, Floats: []float64{0.8350355625152588, -1}},
		"fortran": {DType: "int64", Shape: []int{4, 6}, Ints: fortran},
		"scalar":  {DType: "float64", Shape: []int{}, Floats: []float64{3}},
	}
	for _, proto := range []int{2, 3, 4, 5} {
		t.Run(fmt.Sprint("protocol ", proto), func(t *testing.T) {
			f, err := os.Open(fmt.Sprintf("testdata/arrays-p%d.pickle", proto))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			v, err := Unpickle(f)
			if err != nil {
				t.Fatal(err)
			}
			d, ok := v.(*types.Dict)
			if !ok || d.Len() != len(want) {
				t.Fatalf("got %v, want a dict of %d arrays", v, len(want))
			}
			for name, w := range want {
				got, _ := d.Get(name)
				a, ok := got.(*Tensor)
				if !ok {
					t.Errorf("%s: a %T", name, got)
					continue
				}
				if r := read(a); !reflect.DeepEqual(r, w) {
					t.Errorf("%s = %+v, want %+v", name, r, w)
				}
			}
		})
	}
}

// Arrays the reader cannot represent are errors, never panics: big-endian and object dtypes,
// data shorter than the shape.
func TestNumPyErrors(t *testing.T) {
	i8 := &dtype{name: "i8", class: numpyDTypes["i8"], order: "<"}
	for _, tc := range []struct {
		d     *dtype
		shape []int
		raw   []byte
		want  string
	}{
		{&dtype{name: "i8", class: numpyDTypes["i8"], order: ">"}, []int{1}, make([]byte, 8), "big-endian"},
		{&dtype{name: "O", order: "|"}, []int{1}, make([]byte, 8), `dtype "O"`},
		{i8, []int{2}, make([]byte, 8), "8 bytes for 2 int64 elements"},
		{i8, []int{1 << 40, 1 << 40}, make([]byte, 8), "shape [1099511627776 1099511627776] over 8 bytes"},
		{i8, []int{-1}, nil, "shape [-1]"},
	} {
		if _, err := tc.d.array(tc.shape, false, tc.raw); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v over %d bytes: %v, want %q", tc.d.name, tc.shape, len(tc.raw), err, tc.want)
		}
	}
	if err := (&Tensor{}).PySetState(types.NewTupleFromSlice(nil)); err == nil {
		t.Error("an empty state was accepted")
	}
}
