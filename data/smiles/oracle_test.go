package smiles_test

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sgformer/sgformer/data/smiles"
	"github.com/sgformer/sgformer/internal/shareddata"
)

// oracleGraph is one molecule of an OGB raw folder: atom feature rows, and bonds as
// unordered atom pairs with their feature rows.
type oracleGraph struct {
	atoms [][]int32
	bonds map[[2]int][]int32
	order [][2]int // bonds in file order, as written (begin, end)
}

// readIntRows reads a gzip-compressed CSV of integers, one row per line.
func readIntRows(t testing.TB, path string) [][]int32 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]int32
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fields := strings.Split(line, ",")
		row := make([]int32, len(fields))
		for i, s := range fields {
			v, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: %q: %v", path, line, err)
			}
			row[i] = int32(v)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// readOracle reads OGB's raw layout under dir.
func readOracle(t testing.TB, dir string) []oracleGraph {
	t.Helper()
	raw := filepath.Join(dir, "raw")
	nn := readIntRows(t, filepath.Join(raw, "num-node-list.csv.gz"))
	ne := readIntRows(t, filepath.Join(raw, "num-edge-list.csv.gz"))
	nf := readIntRows(t, filepath.Join(raw, "node-feat.csv.gz"))
	ed := readIntRows(t, filepath.Join(raw, "edge.csv.gz"))
	ef := readIntRows(t, filepath.Join(raw, "edge-feat.csv.gz"))
	if len(nn) != len(ne) || len(ed) != len(ef) {
		t.Fatalf("%s: inconsistent raw files", dir)
	}
	gs := make([]oracleGraph, len(nn))
	at, bt := 0, 0
	for i := range gs {
		n, m := int(nn[i][0]), int(ne[i][0])
		if at+n > len(nf) || bt+m > len(ed) {
			t.Fatalf("%s: graph %d runs past the feature files", dir, i)
		}
		g := oracleGraph{atoms: nf[at : at+n], bonds: make(map[[2]int][]int32, m)}
		for j := range m {
			e := ed[bt+j]
			u, v := int(e[0]), int(e[1])
			g.bonds[[2]int{min(u, v), max(u, v)}] = ef[bt+j]
			g.order = append(g.order, [2]int{u, v})
		}
		gs[i] = g
		at += n
		bt += m
	}
	return gs
}

// readSMILES reads the "smiles" column of a gzip-compressed CSV with a header.
func readSMILES(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(zr)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], "smiles")
	if col < 0 {
		t.Fatalf("%s: no smiles column in %v", path, recs[0])
	}
	out := make([]string, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		out = append(out, rec[col])
	}
	return out
}

// compareOracle describes the first difference between mol's features and g ("" when equal).
func compareOracle(mol *smiles.Molecule, g oracleGraph) string {
	if mol.NumAtoms() != len(g.atoms) || mol.NumBonds() != len(g.bonds) {
		return fmt.Sprintf("%d atoms, %d bonds; want %d, %d", mol.NumAtoms(), mol.NumBonds(), len(g.atoms), len(g.bonds))
	}
	for i, a := range mol.Atoms() {
		f := a.OGBFeatures()
		if !slices.Equal(f[:], g.atoms[i]) {
			return fmt.Sprintf("atom %d: %v, want %v", i, f, g.atoms[i])
		}
	}
	for _, b := range mol.Bonds() {
		want, ok := g.bonds[[2]int{min(b.Begin, b.End), max(b.Begin, b.End)}]
		if !ok {
			return fmt.Sprintf("bond %d-%d not in the oracle", b.Begin, b.End)
		}
		f := b.OGBFeatures()
		if !slices.Equal(f[:], want) {
			return fmt.Sprintf("bond %d-%d: %v, want %v", b.Begin, b.End, f, want)
		}
	}
	return ""
}

// oracleResult is what one molecule gives: the first difference from the oracle ("" when
// none), whether the bonds come in the oracle's order and orientation, and its scaffold key.
type oracleResult struct {
	diff, key string
	sameOrder bool
	keyErr    error
}

// sameBondOrder reports whether mol lists its bonds as g does, begin and end included.
func sameBondOrder(mol *smiles.Molecule, g oracleGraph) bool {
	if mol.NumBonds() != len(g.order) {
		return false
	}
	for i, b := range mol.Bonds() {
		if b.Begin != g.order[i][0] || b.End != g.order[i][1] {
			return false
		}
	}
	return true
}

// evaluate compares every molecule with the oracle, in parallel.
func evaluate(sms []string, gs []oracleGraph, scaffolds bool) []oracleResult {
	res := make([]oracleResult, len(sms))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(sms); i += workers {
				mol, err := smiles.Parse(sms[i])
				if err != nil {
					res[i].diff = fmt.Sprintf("error: %v", err)
					res[i].keyErr = err
					continue
				}
				res[i].diff = compareOracle(mol, gs[i])
				res[i].sameOrder = sameBondOrder(mol, gs[i])
				if scaffolds {
					res[i].key, res[i].keyErr = mol.ScaffoldKey()
				}
			}
		}()
	}
	wg.Wait()
	return res
}

// checkScaffoldSplit checks that OGB's scaffold split (split/scaffold/{train,valid,test})
// never puts two molecules with the same scaffold key in different parts, as it groups
// molecules by RDKit's scaffold SMILES. (ogbg-molbace is not checked: its split groups by
// scaffolds with chirality, MurckoScaffoldSmiles(includeChirality=True); RDKit itself finds
// 170 of its molecules in another part than their achiral-scaffold group.)
func checkScaffoldSplit(t *testing.T, dir string, res []oracleResult) {
	part := make([]int, len(res))
	for p, name := range []string{"train", "valid", "test"} {
		for _, row := range readIntRows(t, filepath.Join(dir, "split", "scaffold", name+".csv.gz")) {
			part[row[0]] = p
		}
	}
	partOf := map[string]int{}
	groups, bad := 0, 0
	for i, r := range res {
		if r.keyErr != nil {
			t.Errorf("molecule %d: scaffold: %v", i, r.keyErr)
			continue
		}
		p, ok := partOf[r.key]
		if !ok {
			partOf[r.key] = part[i]
			groups++
			continue
		}
		if p != part[i] {
			bad++
			if bad <= 5 {
				t.Errorf("molecule %d is in split part %d, another molecule with its scaffold in part %d", i, part[i], p)
			}
		}
	}
	t.Logf("%d scaffold groups, %d molecules in a different part from their group", groups, bad)
}

// TestOracle featurises every SMILES of the OGB molecule datasets and of Peptides-func and
// compares with the published features: every molecule of ogbg-molesol, ogbg-molbace and
// Peptides-func (RDKit 2022.09.3 itself) must match, and ogbg-molhiv, featurised by OGB with
// an older RDKit, at least as well as RDKit 2022.09 does (see ORACLE.md). Every molecule must
// list its bonds exactly as the files do (RDKit's order, begin atom first). For the OGB
// datasets, the scaffold keys must agree with OGB's scaffold split.
func TestOracle(t *testing.T) {
	tests := []struct {
		name, dir, smiles string
		graphs, minMatch  int
		scaffoldSplit     bool
	}{
		{"ogbg-molesol", "ogbg_molesol", "mapping/mol.csv.gz", 1128, 1128, true},
		{"ogbg-molbace", "ogbg_molbace", "mapping/mol.csv.gz", 1513, 1513, false},
		{"ogbg-molhiv", "ogbg_molhiv", "mapping/mol.csv.gz", 41127, 40840, true},
		{"peptides-func", "peptides_func", "peptide_multi_class_dataset.csv.gz", 15535, 15535, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := shareddata.Dir(t, tc.dir)
			oracleDir := dir
			if tc.dir == "peptides_func" {
				oracleDir = filepath.Join(dir, "ogb_features")
			}
			gs := readOracle(t, oracleDir)
			sms := readSMILES(t, filepath.Join(dir, tc.smiles))
			if len(gs) != tc.graphs || len(sms) != tc.graphs {
				t.Fatalf("%d graphs and %d SMILES, want %d", len(gs), len(sms), tc.graphs)
			}
			res := evaluate(sms, gs, tc.scaffoldSplit)
			match, shown, ordered := 0, 0, 0
			for i, r := range res {
				if r.sameOrder {
					ordered++
				}
				if r.diff == "" {
					match++
					continue
				}
				if shown < 10 {
					t.Logf("molecule %d %s: %s", i, sms[i], r.diff)
					shown++
				}
			}
			t.Logf("%s: %d of %d molecules match exactly (%d differ); %d list their bonds in the file's order",
				tc.name, match, len(sms), len(sms)-match, ordered)
			if match < tc.minMatch {
				t.Errorf("%d molecules match, want at least %d", match, tc.minMatch)
			}
			if ordered != len(sms) {
				t.Errorf("%d molecules list their bonds in the file's order, want all %d", ordered, len(sms))
			}
			if tc.scaffoldSplit {
				checkScaffoldSplit(t, dir, res)
			}
		})
	}
}
