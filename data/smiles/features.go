package smiles

// OGB's featurisation (ogb/utils/features.py, atom_to_feature_vector and
// bond_to_feature_vector): each feature is the index of the RDKit value in OGB's list of
// possible values, the last index ("misc") for any value not in the list.

// NumAtomFeatures and NumBondFeatures are the widths of OGB's atom and bond feature rows.
const (
	NumAtomFeatures = 9
	NumBondFeatures = 3
)

// AtomFeatureDims are the sizes of OGB's 9 atom vocabularies (get_atom_feature_dims):
// atomic number, chirality, total degree, formal charge, total H count, radical electrons,
// hybridisation, aromatic, in ring.
var AtomFeatureDims = [NumAtomFeatures]int{119, 5, 12, 12, 10, 6, 6, 2, 2}

// BondFeatureDims are the sizes of OGB's 3 bond vocabularies (get_bond_feature_dims): bond
// type, stereo, conjugated.
var BondFeatureDims = [NumBondFeatures]int{5, 6, 2}

// listIndex returns v-lo when lo <= v <= hi, else the "misc" index hi-lo+1.
func listIndex(v, lo, hi int) int32 {
	if v < lo || v > hi {
		return int32(hi - lo + 1)
	}
	return int32(v - lo)
}

func boolIndex(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// OGBFeatures returns OGB's feature vector of the atom (atom_to_feature_vector).
func (a Atom) OGBFeatures() [NumAtomFeatures]int32 {
	var chir int32
	switch a.Chirality {
	case ChiralUnspecified, ChiralCW, ChiralCCW, ChiralOther:
		chir = int32(a.Chirality)
	default:
		chir = 4
	}
	var hyb int32
	switch a.Hybridization {
	case HybridSP, HybridSP2, HybridSP3:
		hyb = int32(a.Hybridization - HybridSP)
	case HybridSP3D:
		hyb = 3
	case HybridSP3D2:
		hyb = 4
	default:
		hyb = 5
	}
	return [NumAtomFeatures]int32{
		listIndex(a.AtomicNum, 1, 118),
		chir,
		listIndex(a.Degree+a.NumHs, 0, 10),
		listIndex(a.FormalCharge, -5, 5),
		listIndex(a.NumHs, 0, 8),
		listIndex(a.RadicalElectrons, 0, 4),
		hyb,
		boolIndex(a.Aromatic),
		boolIndex(a.InRing),
	}
}

// OGBFeatures returns OGB's feature vector of the bond (bond_to_feature_vector).
func (b Bond) OGBFeatures() [NumBondFeatures]int32 {
	var typ int32
	switch b.Type {
	case BondSingle, BondDouble, BondTriple:
		typ = int32(b.Type - BondSingle)
	case BondAromatic:
		typ = 3
	default:
		typ = 4
	}
	return [NumBondFeatures]int32{typ, int32(b.Stereo), boolIndex(b.Conjugated)}
}

// Graph is a molecule as OGB's smiles2graph featurises it (ogb/utils/mol.py), each bond
// listed once where smiles2graph lists it in both directions: one row of NumAtomFeatures
// features per atom, in the molecule's atom order, and per bond its two atoms and its
// NumBondFeatures features, in RDKit's bond order. A molecule without bonds has no Bonds.
type Graph struct {
	AtomFeatures [][NumAtomFeatures]int32
	Bonds        [][2]int // the atoms of each bond: begin, end
	BondFeatures [][NumBondFeatures]int32
}

// OGBGraph returns the molecule as OGB's smiles2graph featurises it.
func (mol *Molecule) OGBGraph() *Graph {
	atoms, bonds := mol.Atoms(), mol.Bonds()
	g := &Graph{
		AtomFeatures: make([][NumAtomFeatures]int32, len(atoms)),
		Bonds:        make([][2]int, len(bonds)),
		BondFeatures: make([][NumBondFeatures]int32, len(bonds)),
	}
	for i, a := range atoms {
		g.AtomFeatures[i] = a.OGBFeatures()
	}
	for i, b := range bonds {
		g.Bonds[i] = [2]int{b.Begin, b.End}
		g.BondFeatures[i] = b.OGBFeatures()
	}
	return g
}

// OGBGraph reads a SMILES and returns OGB's featurised graph of it (see Parse and
// Molecule.OGBGraph).
func OGBGraph(s string) (*Graph, error) {
	mol, err := Parse(s)
	if err != nil {
		return nil, err
	}
	return mol.OGBGraph(), nil
}
