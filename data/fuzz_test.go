package data

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
)

// The fuzz targets write their input as the files of a dataset: the input is split at
// fileSeparator lines, one part per file, in the order of the target's file list.
const fileSeparator = "\n=====\n"

// writeParts writes the parts of data into dir under names (missing parts are empty files).
func writeParts(t *testing.T, dir string, data []byte, names []string) {
	parts := bytes.SplitN(data, []byte(fileSeparator), len(names))
	for i, name := range names {
		var part []byte
		if i < len(parts) {
			part = parts[i]
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, part, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// joinParts is the fuzz input of the given file contents.
func joinParts(files ...string) []byte { return []byte(strings.Join(files, fileSeparator)) }

// checkAllocated fails when reading an input of n bytes allocated more than the memory limit
// (16 MiB in the fuzz targets) and perByte bytes per input byte.
func checkAllocated(t *testing.T, before uint64, n, perByte int) {
	if used, budget := memory.Allocated()-before, uint64(16<<20+perByte*n); used > budget {
		t.Fatalf("%d bytes of input allocated %d bytes (budget %d)", n, used, budget)
	}
}

var zincTextFiles = []string{zincNodes, zincEdges, zincLabels, zincSplits}

// FuzzZINCText: the text export's reader neither panics, hangs nor allocates more than its
// input justifies, and errors name a file.
func FuzzZINCText(f *testing.F) {
	f.Add(joinParts("0 0 6\n0 1 6\n0 2 7\n1 0 6\n1 1 8\n", "0 0 1 1\n0 1 2 2\n1 0 1 1\n", "0 1.5\n1 -0.25\n",
		`[{"test": [1], "model_selection": [{"train": [0], "validation": []}]}]`))
	f.Add(joinParts("0 0 6\n", "", "0 2\n", `[{"test": [], "model_selection": [{"train": [0], "validation": []}]}]`))
	f.Add(joinParts("16000000 0 6\n", "", "", ""))
	f.Add(joinParts("0 60000 6\n", "0 0 1 1\n", "0 1\n", "[]"))
	defer memory.SetLimit(16 << 20)()
	dir := f.TempDir() // one per worker process, which runs inputs one at a time
	f.Fuzz(func(t *testing.T, data []byte) {
		writeParts(t, dir, data, zincTextFiles)
		before := memory.Allocated()
		_, err := zincText(dir)
		checkAllocated(t, before, len(data), 2000)
		if err != nil && !strings.Contains(err.Error(), dir) {
			t.Fatalf("error %q names no file", err)
		}
	})
}

// FuzzZINCPyG: PyG's files — benchmarking-gnns' pickles with their index files, or a processed
// torch.save archive (seeds written by processedFile) — chosen by the input's first byte (even:
// pickles, odd: processed); the same file stands for the three splits.
func FuzzZINCPyG(f *testing.F) {
	for _, split := range pygSplits {
		raw, err := os.ReadFile("testdata/zinc-pyg/raw/" + split + ".pickle")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{0}, joinParts("0,1", string(raw))...))
	}
	// Processed files written from the miniature's molecules, one split at a time.
	mini, err := zincPickles("testdata/zinc-pyg/raw")
	if err != nil {
		f.Fatal(err)
	}
	for _, idx := range [][]int{mini.Split.Train, mini.Split.Valid, mini.Split.Test} {
		f.Add(append([]byte{1}, processedFile(molecules(mini, idx))...))
	}
	for _, name := range []string{"tensors.pt", "tensors-p2.pickle"} {
		raw, err := os.ReadFile("../internal/torchpickle/testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{1}, raw...))
		f.Add(append([]byte{0}, joinParts("0", string(raw))...))
	}
	defer memory.SetLimit(16 << 20)()
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		before := memory.Allocated()
		var err error
		if data[0]%2 == 0 {
			for _, split := range pygSplits {
				writeParts(t, dir, data[1:], []string{split + ".index", split + ".pickle"})
			}
			_, err = zincPickles(dir)
		} else {
			for _, split := range pygSplits {
				os.WriteFile(filepath.Join(dir, split+".pt"), data[1:], 0o644)
			}
			_, err = zincProcessed(dir)
		}
		checkAllocated(t, before, len(data), 3000)
		if err != nil && !strings.Contains(err.Error(), dir) {
			t.Fatalf("error %q names no file", err)
		}
	})
}

var ogbFiles = []string{ogbNumNodes, ogbNumEdges, ogbNodeFeat, ogbEdges, ogbEdgeFeat, ogbLabels,
	ogbSplitDir + "/train.csv", ogbSplitDir + "/valid.csv", ogbSplitDir + "/test.csv"}

// FuzzOGB: OGB's CSV layout (uncompressed), nine files.
func FuzzOGB(f *testing.F) {
	f.Add(joinParts("3\n2\n", "2\n1\n", "5,0,1,5,0,0,1,0,0\n7,0,2,5,1,0,2,1,1\n5,0,1,5,3,0,3,0,0\n8,0,1,5,0,0,3,0,0\n5,0,1,5,3,0,3,0,0\n",
		"0,1\n1,2\n0,1\n", "0,0,0\n1,0,1\n0,0,0\n", "1,,0\nnan,0.5,1\n", "0\n", "", "1\n"))
	f.Add(joinParts("1\n", "0\n", "6,0,0,5,0,0,1,0,0\n", "", "", "-1.2\n", "0\n", "", ""))
	f.Add(joinParts("", "", "", "", "", "", "", "", ""))
	f.Add(joinParts("9223372036854775807\n", "0\n", "", "", "", "1\n", "", "", ""))
	defer memory.SetLimit(16 << 20)()
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		writeParts(t, dir, data, ogbFiles)
		before := memory.Allocated()
		_, err := OGB("fuzz", dir)
		checkAllocated(t, before, len(data), 2000)
		if err != nil && !strings.Contains(err.Error(), dir) {
			t.Fatalf("error %q names no file", err)
		}
	})
}

// FuzzMoleculeCSV: a table of molecules and a split file, the split chosen by the input's first
// byte (random, scaffold or the file): MoleculeCSV neither panics nor hangs, errors name a
// file, and a table it reads has a graph and a row of labels per molecule, each label a 0/1
// class label or missing.
func FuzzMoleculeCSV(f *testing.F) {
	table, err := os.ReadFile("testdata/molecules/small.csv")
	if err != nil {
		f.Fatal(err)
	}
	for mode := range byte(3) {
		f.Add(append([]byte{mode}, joinParts(string(table), `{"train": [0, 1], "val": [2], "test": [3]}`)...))
	}
	f.Add(append([]byte{2}, joinParts("smiles,y\nCCO,1\n[Na+].[Cl-],\nC1CC,0\n\"c1ccccc1\nO\",1\n", `{"train": [0], "valid": [1], "test": [1]}`)...))
	f.Add(append([]byte{1}, joinParts("\ufeffsmiles,y\r\nC(C)(C)(C)(C)C,0\r\n,1\r\n", "")...))
	defer memory.SetLimit(16 << 20)()
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		writeParts(t, dir, data[1:], []string{"table.csv", "split.json"})
		split := []string{SplitRandom, SplitScaffold, filepath.Join(dir, "split.json")}[int(data[0])%3]
		ds, err := MoleculeCSV(filepath.Join(dir, "table.csv"), CSVOptions{SMILESColumn: "smiles", LabelColumns: []string{"y"}, Task: Classification, Split: split})
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %q names no file", err)
			}
			return
		}
		if len(ds.Labels) != len(ds.Graphs) {
			t.Fatalf("%d labels for %d graphs", len(ds.Labels), len(ds.Graphs))
		}
		for i, y := range ds.Labels {
			if y != 0 && y != 1 && !math.IsNaN(y) {
				t.Fatalf("label %d is %v", i, y)
			}
		}
	})
}

var alchemyFuzzFiles = []string{alchemyIndicator, alchemyNodeLabels, alchemyA, alchemyEdgeLabels, alchemyTargets,
	alchemySplit[0], alchemySplit[1], alchemySplit[2]}

// FuzzAlchemy: alchemy_full's TU files and the three index files. Alchemy neither panics, hangs
// nor allocates more than its input justifies, errors name a file, and what it reads has 12
// finite targets per entry and every entry in the split.
func FuzzAlchemy(f *testing.F) {
	var fixture []string
	for _, name := range alchemyFuzzFiles {
		b, err := os.ReadFile(filepath.Join(alchemyFixture, name))
		if err != nil {
			f.Fatal(err)
		}
		fixture = append(fixture, string(b))
	}
	f.Add(joinParts(fixture...))
	twelve := strings.Repeat("1, ", 11) + "1\n"
	f.Add(joinParts("1\n1\n2\n", "3\n1\n1\n", "1, 2\n2, 1\n3, 3\n", "1\n1\n2\n", twelve+strings.Replace(twelve, "1", "2", 1), "0,0,1", "1", "0"))
	f.Add(joinParts("1\n", "1\n", "", "", twelve+twelve, "0", "0", "0"))
	f.Add(joinParts("1\n2\n", "1\n1\n", "1, 2\n", "1\n", twelve+twelve, "0", "1", "2147483648"))
	defer memory.SetLimit(16 << 20)()
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		writeParts(t, dir, data, alchemyFuzzFiles)
		before := memory.Allocated()
		ds, err := Alchemy(dir)
		checkAllocated(t, before, len(data), 2000)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %q names no file", err)
			}
			return
		}
		if len(ds.Labels) != AlchemyTasks*len(ds.Graphs) || len(ds.Split.Train)+len(ds.Split.Valid)+len(ds.Split.Test) != len(ds.Graphs) {
			t.Fatalf("%d labels, split %v for %d graphs", len(ds.Labels), ds.Split, len(ds.Graphs))
		}
		for i, y := range ds.Labels {
			if math.IsNaN(y) || math.IsInf(y, 0) {
				t.Fatalf("label %d is %v", i, y)
			}
		}
	})
}
