package data_test

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/csvfile"
	"github.com/sgformer/sgformer/internal/shareddata"
)

const smallCSV = "testdata/molecules/small.csv"

// The 20 molecules of testdata/molecules/small.csv, with both tasks and the scaffold split.
func TestMoleculeCSV(t *testing.T) {
	ds, err := data.MoleculeCSV(smallCSV, data.CSVOptions{SMILESColumn: "smiles", LabelColumns: []string{"logS", "active"}, Task: data.Regression, Split: data.SplitScaffold})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "csv:"+smallCSV || len(ds.Graphs) != 20 || ds.Tasks != 2 || !slices.Equal(ds.LabelNames, []string{"logS", "active"}) ||
		!slices.Equal(ds.NodeVocab, data.AtomFeatureDims) || !slices.Equal(ds.EdgeVocab, data.BondFeatureDims) {
		t.Fatalf("%s: %d graphs, %d tasks %v, vocabularies %v %v", ds.Name, len(ds.Graphs), ds.Tasks, ds.LabelNames, ds.NodeVocab, ds.EdgeVocab)
	}
	// Row 2 (toluene) and row 4 (ethylamine, logS missing), as the file has them.
	if ds.Labels[2] != -2.21 || ds.Labels[3] != 0 || !math.IsNaN(ds.Labels[8]) || ds.Labels[9] != 0 {
		t.Errorf("labels %v", ds.Labels[:10])
	}
	want, err := data.MoleculeGraph("Cc1ccccc1")
	if err != nil {
		t.Fatal(err)
	}
	if g := ds.Graphs[1]; g.N() != want.N() || !slices.Equal(g.Edges(), want.Edges()) || !slices.Equal(g.NodeFeatures.Ints, want.NodeFeatures.Ints) {
		t.Errorf("toluene: %v, want %v", g, want)
	}
	for i, atoms := range map[int]int{10: 2, 12: 1} { // the salt and the single ion: no bonds
		if g := ds.Graphs[i]; g.N() != atoms || g.NumEdges() != 0 {
			t.Errorf("row %d: %d atoms, %d bonds", i, g.N(), g.NumEdges())
		}
	}
	// By hand: the groups are acyclic {3,4,10,12,18}, benzene {0,1,2,11}, cyclohexane {5,6,17},
	// cyclopropane {15,16}, biphenyl {13,14}, pyridine {7,8}, furan {19}, naphthalene {9};
	// ordered by size, ties by the larger first index; train while ≤ 16 graphs, validation
	// while ≤ 18.
	wantSplit := data.Split{Train: []int{3, 4, 10, 12, 18, 0, 1, 2, 11, 5, 6, 17, 15, 16, 13, 14}, Valid: []int{7, 8}, Test: []int{19, 9}}
	if !slices.Equal(ds.Split.Train, wantSplit.Train) || !slices.Equal(ds.Split.Valid, wantSplit.Valid) || !slices.Equal(ds.Split.Test, wantSplit.Test) {
		t.Errorf("scaffold split %v, want %v", ds.Split, wantSplit)
	}

	cls, err := data.MoleculeCSV(smallCSV, data.CSVOptions{SMILESColumn: "smiles", LabelColumns: []string{"active"}, Task: data.Classification, Split: data.SplitRandom, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if cls.Tasks != 1 || cls.Labels[0] != 1 || !math.IsNaN(cls.Labels[3]) {
		t.Errorf("classification labels %v", cls.Labels)
	}
}

// The random split: 80/10/10 of a permutation drawn from the seed, the same for the same seed.
func TestRandomSplit(t *testing.T) {
	for _, n := range []int{1, 10, 20, 1128} {
		a, b, c := data.RandomSplit(n, 7), data.RandomSplit(n, 7), data.RandomSplit(n, 8)
		if len(a.Train) != int(0.8*float64(n)) || len(a.Valid) != int(0.1*float64(n)) || len(a.Train)+len(a.Valid)+len(a.Test) != n {
			t.Errorf("n = %d: %d/%d/%d", n, len(a.Train), len(a.Valid), len(a.Test))
		}
		all := slices.Concat(a.Train, a.Valid, a.Test)
		slices.Sort(all)
		for i, x := range all {
			if x != i {
				t.Fatalf("n = %d: not a partition of 0..n-1: %v", n, all)
			}
		}
		if !slices.Equal(a.Train, b.Train) || !slices.Equal(a.Test, b.Test) {
			t.Errorf("n = %d: the same seed gave two splits", n)
		}
		if n >= 20 && slices.Equal(a.Train, c.Train) {
			t.Errorf("n = %d: seeds 7 and 8 gave the same split", n)
		}
	}
	// Pinned, so that a run's split never changes under it.
	if s := data.RandomSplit(10, 0); !slices.Equal(s.Valid, []int{5}) || !slices.Equal(s.Test, []int{7}) {
		t.Errorf("RandomSplit(10, 0) = %v", s)
	}
}

// The scaffold split reproduces OGB's published ogbg-molesol split exactly, from the SMILES of
// mapping/mol.csv.gz (OGB's files list each part in increasing order).
func TestScaffoldSplitOGB(t *testing.T) {
	dir := shareddata.Dir(t, "ogbg_molesol")
	r, err := csvfile.Open(filepath.Join(dir, "mapping", "mol.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	col, err := r.Column("smiles")
	if err != nil {
		t.Fatal(err)
	}
	var ss []string
	for {
		rec, _, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, rec[col])
	}
	keys, errs := data.ScaffoldKeys(ss)
	if errs != nil {
		t.Fatal(errs)
	}
	got := data.ScaffoldSplit(keys)
	ds, err := data.OGB("ogbg-molesol", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []struct {
		name      string
		got, want []int
	}{{"train", got.Train, ds.Split.Train}, {"valid", got.Valid, ds.Split.Valid}, {"test", got.Test, ds.Split.Test}} {
		if !slices.Equal(slices.Sorted(slices.Values(part.got)), part.want) {
			t.Errorf("%s: %d graphs, OGB's %d; first %v, OGB's %v", part.name, len(part.got), len(part.want), part.got[:min(8, len(part.got))], part.want[:min(8, len(part.want))])
		}
	}
}

// Every mistake in a table or in the options names the file, the line and the column.
func TestMoleculeCSVErrors(t *testing.T) {
	dir := t.TempDir()
	opt := data.CSVOptions{SMILESColumn: "smiles", LabelColumns: []string{"y"}, Task: data.Regression, Split: data.SplitRandom}
	for _, tc := range []struct {
		name, content string
		opt           func(o *data.CSVOptions)
		want          string
	}{
		{name: "bad SMILES", content: "smiles,y\nCCO,1\nC1CC,2\nCC(,3\n",
			want: `bad SMILES.csv:3: column "smiles": smiles: syntax error at byte 1: unclosed ring 1` + "\n" + `bad SMILES.csv:4: column "smiles": smiles: syntax error at byte 3`},
		{name: "empty SMILES", content: "smiles,y\n,1\n", want: `empty SMILES.csv:2: column "smiles": an empty SMILES (no atoms)`},
		{name: "bad number", content: "smiles,y\nCCO,abc\n", want: `bad number.csv:2: column "y": "abc" is neither a finite number nor empty (missing)`},
		{name: "infinite", content: "smiles,y\nCCO,inf\n", want: `infinite.csv:2: column "y": "inf" is neither`},
		{name: "not a class", content: "smiles,y\nCCO,2\n", opt: func(o *data.CSVOptions) { o.Task = data.Classification },
			want: `not a class.csv:2: column "y": "2" is not a class label (0 or 1 for classification; empty when missing)`},
		{name: "no column", content: "smiles,z\nCCO,1\n", want: `no column.csv:1: no column "y" (the header has: smiles, z)`},
		{name: "no SMILES column", content: "SMILES,y\nCCO,1\n", want: `no SMILES column.csv:1: no column "smiles" (the header has: SMILES, y)`},
		{name: "ragged", content: "smiles,y\nCCO,1,2\n", want: "ragged.csv:2: 3 fields, the header has 2"},
		{name: "no rows", content: "smiles,y\n", want: "no rows.csv: no rows after the header"},
		{name: "label is SMILES", content: "smiles,y\nC,1\n", opt: func(o *data.CSVOptions) { o.LabelColumns = []string{"smiles"} },
			want: `label is SMILES.csv: label column "smiles" is the SMILES column`},
		{name: "twice", content: "smiles,y\nC,1\n", opt: func(o *data.CSVOptions) { o.LabelColumns = []string{"y", "y"} }, want: `label column "y" given twice`},
		{name: "task", content: "smiles,y\nC,1\n", opt: func(o *data.CSVOptions) { o.Task = "ranking" }, want: `task "ranking": want regression or classification`},
		{name: "split file", content: "smiles,y\nC,1\nCC,2\n", opt: func(o *data.CSVOptions) { o.Split = filepath.Join(dir, "missing.json") }, want: "missing.json: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".csv")
			os.WriteFile(path, []byte(tc.content), 0o644)
			o := opt
			if tc.opt != nil {
				tc.opt(&o)
			}
			_, err := data.MoleculeCSV(path, o)
			for _, want := range strings.Split(tc.want, "\n") { // one line per refused row
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want it to contain %q", err, want)
				}
			}
		})
	}
	// More than ten refused rows: the first ten, and a count of the rest.
	var b strings.Builder
	b.WriteString("smiles,y\n")
	for i := range 25 {
		b.WriteString("C1CC," + strconv.Itoa(i) + "\n")
	}
	path := filepath.Join(dir, "many.csv")
	os.WriteFile(path, []byte(b.String()), 0o644)
	_, err := data.MoleculeCSV(path, opt)
	if err == nil || strings.Count(err.Error(), "unclosed ring 1") != 10 || !strings.Contains(err.Error(), path+": 15 more rows refused (25 in all)") {
		t.Errorf("25 bad rows: %v", err)
	}
}

// A split file gives the parts as they are.
func TestMoleculeCSVSplitFile(t *testing.T) {
	split := filepath.Join(t.TempDir(), "split.json")
	os.WriteFile(split, []byte(`{"train": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], "valid": [16, 17], "test": [18, 19]}`), 0o644)
	ds, err := data.MoleculeCSV(smallCSV, data.CSVOptions{SMILESColumn: "smiles", LabelColumns: []string{"logS"}, Task: data.Regression, Split: split})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Split.Train) != 16 || !slices.Equal(ds.Split.Valid, []int{16, 17}) || !slices.Equal(ds.Split.Test, []int{18, 19}) {
		t.Errorf("split %v", ds.Split)
	}
}
