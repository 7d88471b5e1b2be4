package smiles_test

import (
	"errors"
	"fmt"

	"github.com/sgformer/sgformer/data/smiles"
)

// Reading a SMILES and featurising it as OGB's smiles2graph does: (S)-alanine has 6 atoms
// (hydrogens are implicit) and 5 bonds; its alpha carbon keeps its "@" (chirality index 2,
// counter-clockwise), and the carboxyl O-H oxygen is SP2 since it is conjugated with C=O.
func Example() {
	mol, err := smiles.Parse("C[C@H](N)C(=O)O")
	if err != nil {
		panic(err)
	}
	fmt.Println(mol.NumAtoms(), "atoms,", mol.NumBonds(), "bonds")
	atoms, bonds := mol.Atoms(), mol.Bonds()
	a := atoms[1]
	fmt.Println(a.Chirality, a.Hybridization, a.NumHs, "H")
	fmt.Println(a.OGBFeatures(), atoms[5].OGBFeatures())
	fmt.Println(bonds[3].Begin, bonds[3].End, bonds[3].OGBFeatures()) // C=O: double, no stereo, conjugated

	g := mol.OGBGraph()
	fmt.Println(len(g.AtomFeatures), "nodes,", len(g.Bonds), "edges,", g.Bonds[3], g.BondFeatures[3])

	key, _ := mol.ScaffoldKey()
	fmt.Printf("scaffold %q\n", key) // no ring: the empty scaffold

	_, err = smiles.Parse("C1CC(C")
	var e *smiles.Error
	fmt.Println(errors.As(err, &e), e.Kind, e.Pos, err)
	// Output:
	// 6 atoms, 5 bonds
	// CHI_TETRAHEDRAL_CCW SP3 1 H
	// [5 2 4 5 1 0 2 0 0] [7 0 2 5 1 0 1 0 0]
	// 3 4 [1 0 1]
	// 6 nodes, 5 edges, [3 4] [1 0 1]
	// scaffold ""
	// true syntax error 4 smiles: syntax error at byte 4: unmatched '('
}
