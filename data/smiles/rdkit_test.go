package smiles_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/sgformer/sgformer/data/smiles"
)

// rdkitCase is one molecule of testdata/rdkit_cases.json (written by testdata/make.py with
// RDKit 2022.09.3): whether Chem.MolFromSmiles accepts the SMILES, and then its atoms and
// bonds as RDKit reports them.
type rdkitCase struct {
	SMILES string   `json:"smiles"`
	OK     bool     `json:"ok"`
	Atoms  [][9]any `json:"atoms"`
	Bonds  [][5]any `json:"bonds"`
}

func loadRDKitCases(t testing.TB) []rdkitCase {
	t.Helper()
	buf, err := os.ReadFile("testdata/rdkit_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		RDKit string      `json:"rdkit"`
		Cases []rdkitCase `json:"cases"`
	}
	if err := json.Unmarshal(buf, &file); err != nil {
		t.Fatal(err)
	}
	if file.RDKit != "2022.09.3" || len(file.Cases) < 400 {
		t.Fatalf("fixture from RDKit %s with %d cases", file.RDKit, len(file.Cases))
	}
	return file.Cases
}

// atomRow formats an atom as make.py writes it (JSON numbers decode as float64).
func atomRow(a smiles.Atom) string {
	return fmt.Sprint([9]any{float64(a.AtomicNum), a.Chirality.String(), float64(a.Degree + a.NumHs),
		float64(a.FormalCharge), float64(a.NumHs), float64(a.RadicalElectrons), a.Hybridization.String(),
		boolNum(a.Aromatic), boolNum(a.InRing)})
}

func bondRow(b smiles.Bond) string {
	return fmt.Sprint([5]any{float64(b.Begin), float64(b.End), b.Type.String(), b.Stereo.String(), boolNum(b.Conjugated)})
}

func boolNum(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestRDKitCases compares every atom and bond property with RDKit's on hand-picked SMILES:
// hetero and charged aromatics, exocyclic double bonds, metals, radicals, hydrogens written as
// atoms, isotopes, chirality on C, N, P and S, ring and pseudo-asymmetric stereo, double-bond
// stereo in chains and rings, non-tetrahedral classes, odd syntax, and SMILES RDKit rejects.
func TestRDKitCases(t *testing.T) {
	for _, tc := range loadRDKitCases(t) {
		mol, err := smiles.Parse(tc.SMILES)
		if !tc.OK {
			if err == nil {
				t.Errorf("%q: RDKit rejects it, Parse accepts it", tc.SMILES)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.SMILES, err)
			continue
		}
		if mol.NumAtoms() != len(tc.Atoms) || mol.NumBonds() != len(tc.Bonds) {
			t.Errorf("%q: %d atoms, %d bonds; RDKit: %d, %d", tc.SMILES, mol.NumAtoms(), mol.NumBonds(), len(tc.Atoms), len(tc.Bonds))
			continue
		}
		atoms, bonds := mol.Atoms(), mol.Bonds()
		for i, want := range tc.Atoms {
			if got := atomRow(atoms[i]); got != fmt.Sprint(want) {
				t.Errorf("%q atom %d: %s, RDKit %v", tc.SMILES, i, got, want)
			}
		}
		for i, want := range tc.Bonds {
			if got := bondRow(bonds[i]); got != fmt.Sprint(want) {
				t.Errorf("%q bond %d: %s, RDKit %v", tc.SMILES, i, got, want)
			}
		}
	}
}
