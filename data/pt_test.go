package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// ptWriter writes PyG's processed file format — a torch.save zip archive holding the pickle
// of (data, slices) and one record per tensor storage — for tests without PyTorch.
type ptWriter struct {
	pkl     bytes.Buffer
	records map[string][]byte
}

func (w *ptWriter) str(s string) {
	w.pkl.WriteByte('X')
	binary.Write(&w.pkl, binary.LittleEndian, uint32(len(s)))
	w.pkl.WriteString(s)
}

func (w *ptWriter) int(x int) {
	w.pkl.WriteByte('J')
	binary.Write(&w.pkl, binary.LittleEndian, int32(x))
}

// tensor writes a 1-D (or, with cols > 0, rows × cols) tensor over a new storage of raw
// little-endian elements of the torch storage class.
func (w *ptWriter) tensor(class string, raw []byte, numel, cols int) {
	key := fmt.Sprint(len(w.records))
	w.records[key] = raw
	w.pkl.WriteString("ctorch._utils\n_rebuild_tensor_v2\n(")
	w.pkl.WriteString("(")
	w.str("storage")
	w.pkl.WriteString("ctorch\n" + class + "\n")
	w.str(key)
	w.str("cpu")
	w.int(numel)
	w.pkl.WriteString("tQ")
	w.int(0)
	if cols > 0 {
		w.pkl.WriteString("(")
		w.int(numel / cols)
		w.int(cols)
		w.pkl.WriteString("t(")
		w.int(cols)
		w.int(1)
		w.pkl.WriteString("t")
	} else {
		w.pkl.WriteString("(")
		w.int(numel)
		w.pkl.WriteString("t(")
		w.int(1)
		w.pkl.WriteString("t")
	}
	w.pkl.WriteString("tR")
}

func int64s(xs []int64) []byte {
	b := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

// processedFile is PyG's processed file of molecules: x (atom types, n × 1), edge_index (each
// bond in both directions), edge_attr (bond types), y (float32 targets), and their slices.
func processedFile(mols []molecule) []byte {
	var x, src, dst, attr, xs, es []int64
	var y []byte
	xs, es = append(xs, 0), append(es, 0)
	for _, m := range mols {
		for _, a := range m.atoms {
			x = append(x, int64(a))
		}
		for i, b := range m.bonds {
			src, dst = append(src, int64(b[0]), int64(b[1])), append(dst, int64(b[1]), int64(b[0]))
			attr = append(attr, int64(m.bondTypes[i]), int64(m.bondTypes[i]))
		}
		y = binary.LittleEndian.AppendUint32(y, math.Float32bits(float32(m.y)))
		xs, es = append(xs, int64(len(x))), append(es, int64(len(attr)))
	}
	w := &ptWriter{records: map[string][]byte{}}
	w.pkl.WriteString("\x80\x02(")
	for _, slices := range []bool{false, true} {
		w.pkl.WriteString("}(")
		for _, key := range []string{"x", "edge_index", "edge_attr", "y"} {
			w.str(key)
			switch {
			case slices && key == "x":
				w.tensor("LongStorage", int64s(xs), len(xs), 0)
			case slices && key == "y":
				ys := make([]int64, len(mols)+1)
				for i := range ys {
					ys[i] = int64(i)
				}
				w.tensor("LongStorage", int64s(ys), len(ys), 0)
			case slices:
				w.tensor("LongStorage", int64s(es), len(es), 0)
			case key == "x":
				w.tensor("LongStorage", int64s(x), len(x), 1)
			case key == "edge_index":
				w.tensor("LongStorage", int64s(append(src, dst...)), 2*len(src), len(src))
			case key == "edge_attr":
				w.tensor("LongStorage", int64s(attr), len(attr), 0)
			default:
				w.tensor("FloatStorage", y, len(mols), 0)
			}
		}
		w.pkl.WriteString("u")
	}
	w.pkl.WriteString("t.")
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	add := func(name string, b []byte) {
		f, _ := zw.CreateHeader(&zip.FileHeader{Name: "archive/" + name, Method: zip.Store})
		f.Write(b)
	}
	add("data.pkl", w.pkl.Bytes())
	add("byteorder", []byte("little"))
	for key, raw := range w.records {
		add("data/"+key, raw)
	}
	zw.Close()
	return out.Bytes()
}

// molecules turns graphs idx of ds back into molecules.
func molecules(ds *Dataset, idx []int) []molecule {
	var mols []molecule
	for _, i := range idx {
		g := ds.Graphs[i]
		mols = append(mols, molecule{atoms: g.NodeFeatures.Ints, bonds: g.Edges(), bondTypes: g.EdgeFeatures.Ints, y: ds.Labels[i]})
	}
	return mols
}

// The processed format as processedFile writes it reads back as the molecules it was written
// from (the miniature of testdata/zinc-pyg, here without PyTorch or shared data).
func TestProcessedFile(t *testing.T) {
	want, err := zincPickles("testdata/zinc-pyg/raw")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, idx := range [][]int{want.Split.Train, want.Split.Valid, want.Split.Test} {
		if err := os.WriteFile(filepath.Join(dir, pygSplits[i]+".pt"), processedFile(molecules(want, idx)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := zincProcessed(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest() != want.Digest() {
		t.Errorf("the processed files read back differently from the pickles they were written from")
	}
}
