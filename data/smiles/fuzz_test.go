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
// every feature inside OGB's vocabularies, one node per atom and one edge per bond; the
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
		if g.N() != mol.NumAtoms() || g.NumEdges() != mol.NumBonds() {
			t.Fatalf("%q: graph %d nodes %d edges, molecule %d atoms %d bonds", s, g.N(), g.NumEdges(), mol.NumAtoms(), mol.NumBonds())
		}
		for i, v := range g.NodeFeatures.Ints {
			if d := smiles.AtomFeatureDims[i%smiles.NumAtomFeatures]; v < 0 || int(v) >= d {
				t.Fatalf("%q: atom feature %d = %d outside [0,%d)", s, i%smiles.NumAtomFeatures, v, d)
			}
		}
		for i, v := range g.EdgeFeatures.Ints {
			if d := smiles.BondFeatureDims[i%smiles.NumBondFeatures]; v < 0 || int(v) >= d {
				t.Fatalf("%q: bond feature %d = %d outside [0,%d)", s, i%smiles.NumBondFeatures, v, d)
			}
		}
		if _, err := mol.ScaffoldKey(); err != nil {
			checkError(t, s, err)
		}
	})
}
