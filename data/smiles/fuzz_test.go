package smiles_test

import (
	"errors"
	"testing"

	"github.com/sgformer/sgformer/data/smiles"
)

// addSeeds seeds a fuzz target with the hand-picked RDKit cases; testdata/fuzz holds more,
// taken from the datasets and found by fuzzing.
func addSeeds(f *testing.F) {
	for _, tc := range loadRDKitCases(f) {
		f.Add(tc.SMILES)
	}
}

// checkError fails unless err is an *Error with a kind, a reason and a position inside s.
func checkError(t *testing.T, s string, err error) {
	var e *smiles.Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %v is a %T, not *smiles.Error", s, err, err)
	}
	if e.Kind == 0 || e.Reason == "" || e.Pos < -1 || e.Pos > len(s) || e.Atom < -1 {
		t.Fatalf("%q: malformed error %+v", s, e)
	}
}

// FuzzParse reads arbitrary text: it must return a molecule or an *Error, never panic or hang,
// and a molecule must be consistent (bonds between existing atoms, properties in range).
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		mol, err := smiles.Parse(s)
		if err != nil {
			checkError(t, s, err)
			return
		}
		n := mol.NumAtoms()
		if n > smiles.MaxAtoms {
			t.Fatalf("%q: %d atoms", s, n)
		}
		for i, a := range mol.Atoms() {
			if a.AtomicNum < 0 || a.AtomicNum > 118 || a.NumHs < 0 || a.RadicalElectrons < 0 || a.Degree < 0 {
				t.Fatalf("%q atom %d: %+v", s, i, a)
			}
		}
		for i, b := range mol.Bonds() {
			if b.Begin < 0 || b.Begin >= n || b.End < 0 || b.End >= n || b.Begin == b.End {
				t.Fatalf("%q bond %d: %+v", s, i, b)
			}
		}
	})
}

// FuzzOGBGraph featurises arbitrary text: an error must be an *Error, and a graph must have
// every feature inside OGB's vocabularies, one node per atom and one edge per bond, each
// between two atoms of the molecule and no two between the same atoms; the
// scaffold key must not fail on a molecule that parses.
func FuzzOGBGraph(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		g, err := smiles.OGBGraph(s)
		if err != nil {
			checkError(t, s, err)
			return
		}
		mol, err := smiles.Parse(s)
		if err != nil {
			t.Fatalf("%q: OGBGraph succeeds, Parse fails: %v", s, err)
		}
		n := mol.NumAtoms()
		if len(g.AtomFeatures) != n || len(g.Bonds) != mol.NumBonds() || len(g.BondFeatures) != len(g.Bonds) {
			t.Fatalf("%q: graph %d atoms %d bonds %d bond rows, molecule %d atoms %d bonds", s, len(g.AtomFeatures), len(g.Bonds), len(g.BondFeatures), n, mol.NumBonds())
		}
		for i, row := range g.AtomFeatures {
			for j, v := range row {
				if v < 0 || int(v) >= smiles.AtomFeatureDims[j] {
					t.Fatalf("%q: atom %d feature %d = %d outside [0,%d)", s, i, j, v, smiles.AtomFeatureDims[j])
				}
			}
		}
		pairs := map[[2]int]bool{}
		for i, b := range g.Bonds {
			if b[0] < 0 || b[0] >= n || b[1] < 0 || b[1] >= n || b[0] == b[1] || pairs[b] || pairs[[2]int{b[1], b[0]}] {
				t.Fatalf("%q: bond %d %v: outside the molecule, a loop or a repeat", s, i, b)
			}
			pairs[b] = true
			for j, v := range g.BondFeatures[i] {
				if v < 0 || int(v) >= smiles.BondFeatureDims[j] {
					t.Fatalf("%q: bond %d feature %d = %d outside [0,%d)", s, i, j, v, smiles.BondFeatureDims[j])
				}
			}
		}
		if _, err := mol.ScaffoldKey(); err != nil {
			checkError(t, s, err)
		}
	})
}
