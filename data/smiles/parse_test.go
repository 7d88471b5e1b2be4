package smiles_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/data/smiles"
)

// TestParseErrors checks the kind, byte position and reason of the errors for invalid input.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		kind   smiles.ErrorKind
		pos    int
		atom   int
		reason string
	}{
		{"C1CC", smiles.Syntax, 1, -1, "unclosed ring 1"},
		{"C1CC1C2CC", smiles.Syntax, 6, -1, "unclosed ring 2"},
		{"CC(C", smiles.Syntax, 2, -1, "unmatched '('"},
		{"CC)C", smiles.Syntax, 2, -1, "unmatched ')'"},
		{"C=", smiles.Syntax, 2, -1, "bond with no atom after it"},
		{"CC(=)C", smiles.Syntax, 4, -1, "a branch must start with an atom"},
		{"C(1)C", smiles.Syntax, 2, -1, "a branch must start with an atom"},
		{"[Xx]", smiles.Syntax, 1, -1, "unknown element"},
		{"[#200]", smiles.Syntax, 0, -1, "unknown element #200"},
		{"[C", smiles.Syntax, 0, -1, "unclosed '['"},
		{"[CH-+]", smiles.Syntax, 4, -1, "unexpected '+'"},
		{"C..C", smiles.Syntax, 2, -1, "'.' must be followed by an atom"},
		{"=C", smiles.Syntax, 0, -1, "SMILES must start with an atom"},
		{"C%1C", smiles.Syntax, 1, -1, "two-digit ring-closure number"},
		{"C%(123456)C", smiles.Syntax, 1, -1, "1 to 5 digits"},
		{"C11", smiles.Syntax, 2, -1, "bonds atom 0 to itself"},
		{"C12CC12", smiles.Syntax, 6, -1, "duplicates the bond"},
		{"C=1CC-1", smiles.Syntax, 5, -1, "conflicting bond orders"},
		{"[C@TH3](F)(Cl)(Br)I", smiles.Syntax, 0, 0, "invalid chiral specification"},
		{"[C+99999999999]", smiles.Syntax, 3, -1, "number too large"},
		{"   ", smiles.Syntax, 3, -1, "no atoms"},
		{"C!", smiles.Syntax, 1, -1, "unexpected character"},
		{"CCé", smiles.Syntax, 2, -1, "unexpected character, found 'é'"},
		{"[Cé]", smiles.Syntax, 2, -1, "unexpected 'é' in bracket atom"},
		{"CC\xff", smiles.Syntax, 2, -1, "found byte 0xff (not UTF-8)"},
		{"N(C)(C)(C)(C)C", smiles.Chemistry, 0, 0, "explicit valence 5 of atom 0 (N) is greater than permitted"},
		{"CC[C](C)(C)(C)C", smiles.Chemistry, 2, 2, "atom 2 (C)"},
		{"c1cccc1", smiles.Chemistry, 0, 0, "can't kekulize"},
		{"Cc", smiles.Chemistry, 1, 1, "non-ring atom 1 (C) marked aromatic"},
		{"[H]1CC1", smiles.Chemistry, 0, 0, "explicit valence 2 of atom 0 (H)"},
		{"C->[Fe]", smiles.Unsupported, 1, -1, "dative bonds"},
		{"C~C", smiles.Unsupported, 1, -1, "query bonds"},
		{"CCO |$;;$|", smiles.Unsupported, 3, -1, "CXSMILES"},
		{strings.Repeat("C", smiles.MaxLength+1), smiles.Limit, -1, -1, "a SMILES of 32769 bytes, longer than the 32768 accepted (MaxLength)"},
		{strings.Repeat("C", smiles.MaxAtoms+1), smiles.Limit, smiles.MaxAtoms, smiles.MaxAtoms, "atoms (MaxAtoms)"},
	}
	for _, tc := range tests {
		_, err := smiles.Parse(tc.in)
		var e *smiles.Error
		if !errors.As(err, &e) {
			t.Errorf("%.20q: error %v, want a *smiles.Error", tc.in, err)
			continue
		}
		if e.Kind != tc.kind || e.Pos != tc.pos || e.Atom != tc.atom || !strings.Contains(e.Reason, tc.reason) {
			t.Errorf("%.20q: %v (kind %d, pos %d, atom %d); want %s at byte %d, atom %d, reason containing %q",
				tc.in, err, e.Kind, e.Pos, e.Atom, tc.kind, tc.pos, tc.atom, tc.reason)
		}
	}
}

// TestParseAccepts checks inputs that are valid though unusual, and where the atoms come from.
func TestParseAccepts(t *testing.T) {
	tests := []struct {
		in           string
		atoms, bonds int
	}{
		{"", 0, 0},                             // the empty molecule
		{"  CCO  ", 3, 2},                      // surrounding blanks
		{"CCO ethanol", 3, 2},                  // a name after a space
		{"CCO\tethanol", 3, 2},                 // ... or a tab
		{"C\nO", 1, 0},                         // RDKit stops at a newline
		{"C(C)1CC1", 4, 4},                     // a ring closure after a branch
		{"C%(123)CC%(123)", 3, 3},              // long ring-closure numbers
		{"C1CC11CC1", 5, 6},                    // a ring-closure number reused
		{"c1ccccc1-c1ccccc1", 12, 13},          // an explicit single bond between aromatic atoms
		{"[2H]C([2H])([2H])[2H]", 5, 4},        // isotopic hydrogens stay atoms
		{"[H]C([H])([H])[H]", 1, 0},            // plain ones become hydrogen counts
		{"[H][H]", 2, 1},                       // hydrogens bonded only to hydrogens stay
		{"[Na+].[Cl-]", 2, 0},                  // a salt: atoms without bonds
		{"C\\\\C=C/F", 4, 3},                   // RDKit reads "\\" as "\"
		{"[C@TH1](F)(Cl)(Br)I", 5, 4},          // chirality classes
		{"F[Pt@SP1](Cl)(Br)I", 5, 4},           // ... square planar
		{"[Uuo]", 1, 0},                        // old names of heavy elements
		{"*C", 2, 1},                           // dummy atoms
		{"[CH3:1][CH2:2]O", 3, 2},              // atom classes
		{"c1cc2ccc3cccc4ccc(c1)c2c34", 16, 19}, // pyrene
	}
	for _, tc := range tests {
		mol, err := smiles.Parse(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if mol.NumAtoms() != tc.atoms || mol.NumBonds() != tc.bonds {
			t.Errorf("%q: %d atoms, %d bonds; want %d, %d", tc.in, mol.NumAtoms(), mol.NumBonds(), tc.atoms, tc.bonds)
		}
	}
	mol, err := smiles.Parse("[H]OC[13CH2:7]C")
	if err != nil {
		t.Fatal(err)
	}
	a := mol.Atoms()[2]
	if a.SMILESIndex != 3 || a.Pos != 5 || a.Isotope != 13 || a.AtomClass != 7 || a.NumHs != 2 {
		t.Errorf("atom 2 of [H]OC[13CH2:7]C: %+v", a)
	}
}
