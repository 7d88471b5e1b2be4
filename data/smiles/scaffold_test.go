package smiles_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/sgformer/sgformer/data/smiles"
)

// TestScaffoldKeyRDKit compares the grouping by ScaffoldKey with the grouping by RDKit's
// scaffold SMILES (testdata/scaffold_cases.json, written by testdata/make.py): molecules
// must share a key exactly when RDKit gives them the same scaffold, and a molecule without
// rings must have the empty key.
func TestScaffoldKeyRDKit(t *testing.T) {
	buf, err := os.ReadFile("testdata/scaffold_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		RDKit string      `json:"rdkit"`
		Cases [][2]string `json:"cases"`
	}
	if err := json.Unmarshal(buf, &file); err != nil {
		t.Fatal(err)
	}
	if file.RDKit != "2022.09.3" || len(file.Cases) < 1000 {
		t.Fatalf("fixture from RDKit %s with %d cases", file.RDKit, len(file.Cases))
	}
	keyOf := map[string]string{}      // RDKit scaffold -> key
	scaffoldOf := map[string]string{} // key -> RDKit scaffold
	shared := 0
	for _, c := range file.Cases {
		s, scaffold := c[0], c[1]
		mol, err := smiles.Parse(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		key, err := mol.ScaffoldKey()
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if (key == "") != (scaffold == "") {
			t.Errorf("%q: key %q, RDKit scaffold %q", s, key, scaffold)
		}
		if k, ok := keyOf[scaffold]; ok {
			shared++
			if k != key {
				t.Errorf("%q: RDKit scaffold %q, but key %q differs from %q of another molecule with it", s, scaffold, key, k)
			}
		}
		if sc, ok := scaffoldOf[key]; ok && sc != scaffold {
			t.Errorf("%q: key %q also belongs to RDKit scaffold %q, not %q", s, key, sc, scaffold)
		}
		keyOf[scaffold], scaffoldOf[key] = key, scaffold
	}
	t.Logf("%d molecules, %d scaffolds, %d keys, %d molecules sharing a scaffold with an earlier one", len(file.Cases), len(keyOf), len(scaffoldOf), shared)
	if shared < 300 {
		t.Errorf("only %d molecules share a scaffold: the fixture does not test grouping", shared)
	}
}

// TestScaffoldKeyCases checks the rules of RDKit's MurckoDecompose on small molecules.
func TestScaffoldKeyCases(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"CCO", "CCN", true},                                  // no rings: the empty scaffold
		{"Cc1ccccc1", "c1ccccc1O", true},                      // substituents go
		{"c1ccccc1CCc1ccccc1", "c1ccccc1CCCc1ccccc1", false},  // linkers stay
		{"c1ccccc1C(=O)c1ccccc1", "c1ccccc1Cc1ccccc1", false}, // ... with their double-bonded atoms
		{"CC1CCCCC1=O", "O=C1CCCCC1", true},                   // exocyclic C=O stays
		{"CC1CCCCC1=O", "C1CCCCC1", false},
		{"Cn1cccc1", "c1cc[nH]c1", true}, // the substituent's place becomes [nH]
		{"C[n+]1ccccc1", "c1cc[nH+]cc1", true},
		{"C[C@H]1CCCO1", "C1CCCO1", true},             // chirality goes
		{"CC[n+]1ccccc1.[Cl-]", "c1cc[nH+]cc1", true}, // counter-ions go
		{"c1ccccc1.C1CC1", "C1CC1.c1ccccc1", true},    // fragments, in any order
		{"c1ccccc1.C1CC1", "c1ccccc1C1CC1", false},
		{"C1CC2CCC1C2", "C1CC2CC1CC2", true},   // norbornane written twice
		{"C1CC2CCC1C2", "C1CC2CCC1CC2", false}, // bicyclo[2.2.2]octane
		{"[2H]c1ccccc1", "c1ccccc1", true},     // no isotopes
		{"c1ccc(cc1)-c1ccccc1", "c1ccccc1c1ccccc1", true},
	}
	for _, tc := range tests {
		ka := scaffoldKey(t, tc.a)
		kb := scaffoldKey(t, tc.b)
		if (ka == kb) != tc.same {
			t.Errorf("%q: %q\n%q: %q\nsame scaffold: %v, want %v", tc.a, ka, tc.b, kb, ka == kb, tc.same)
		}
	}
}

func scaffoldKey(t *testing.T, s string) string {
	t.Helper()
	mol, err := smiles.Parse(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	k, err := mol.ScaffoldKey()
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return k
}
