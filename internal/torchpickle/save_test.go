package torchpickle

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nlpodyssey/gopickle/types"
)

// saved are the entries of the state dict the tests save: float32 and float64, a matrix, a
// vector, a scalar and an empty tensor.
var saved = []Entry{
	{Name: "layer.weight", Shape: []int{2, 3}, DType: "float32", Values: []float64{1, -2, 0.5, 3.25, 0, 1e-7}},
	{Name: "layer.bias", Shape: []int{2}, DType: "float64", Values: []float64{0.1, -1e300}},
	{Name: "eps", Shape: []int{}, DType: "float32", Values: []float64{0.25}},
	{Name: "empty", Shape: []int{0, 4}, DType: "float32", Values: nil},
	{Name: "bn.num_batches_tracked", Shape: []int{}, DType: "int64", Values: []float64{1 << 40}},
}

// TestSaveStateDict saves a state dict and reads it back: the same names in the same order,
// shapes, dtypes and values (float32 values rounded), every record stored at a 64-byte offset.
func TestSaveStateDict(t *testing.T) {
	var buf bytes.Buffer
	if err := SaveStateDict(&buf, "archive", saved); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		off, err := f.DataOffset()
		if err != nil || off%64 != 0 || f.Method != zip.Store {
			t.Errorf("record %s at offset %d (method %d, %v): want stored at a multiple of 64", f.Name, off, f.Method, err)
		}
	}
	v, err := Load(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	d, ok := v.(*types.OrderedDict)
	if !ok {
		t.Fatalf("loaded %T, want an OrderedDict", v)
	}
	var names []string
	for e := d.List.Front(); e != nil; e = e.Next() {
		names = append(names, e.Value.(*types.OrderedDictEntry).Key.(string))
	}
	if want := []string{"layer.weight", "layer.bias", "eps", "empty", "bn.num_batches_tracked"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	for _, e := range saved {
		x, _ := d.Get(e.Name)
		got := x.(*Tensor)
		if got.DType() != e.DType || !reflect.DeepEqual(got.Shape, e.Shape) {
			t.Errorf("%s: %s %v, want %s %v", e.Name, got.DType(), got.Shape, e.DType, e.Shape)
			continue
		}
		for i, want := range e.Values {
			if e.DType == "float32" {
				want = float64(float32(want))
			}
			if got.Float(i) != want {
				t.Errorf("%s[%d] = %v, want %v", e.Name, i, got.Float(i), want)
			}
		}
	}
}

// TestSaveStateDictTorch loads a saved state dict with PyTorch itself, where Python and torch
// are installed (Debian's python3-torch, or SGFORMER_TORCH_PYTHON naming an interpreter).
func TestSaveStateDictTorch(t *testing.T) {
	python := os.Getenv("SGFORMER_TORCH_PYTHON")
	if python == "" {
		python = "python3"
	}
	if exec.Command(python, "-c", "import torch").Run() != nil {
		t.Skipf("%s cannot import torch", python)
	}
	path := filepath.Join(t.TempDir(), "model.pt")
	var buf bytes.Buffer
	if err := SaveStateDict(&buf, "model", saved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "-c", `
import sys, torch
sd = torch.load(sys.argv[1], weights_only=True)
for k, v in sd.items():
    print(k, v.dtype, tuple(v.shape), v.flatten().tolist())
`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("torch.load: %v\n%s", err, out)
	}
	want := `layer.weight torch.float32 (2, 3) [1.0, -2.0, 0.5, 3.25, 0.0, 1.0000000116860974e-07]
layer.bias torch.float64 (2,) [0.1, -1e+300]
eps torch.float32 () [0.25]
empty torch.float32 (0, 4) []
bn.num_batches_tracked torch.int64 () [1099511627776]`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("torch.load read\n%s\nwant\n%s", got, want)
	}
}
