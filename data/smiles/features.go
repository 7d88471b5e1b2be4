package smiles

import (
	"fmt"

	"github.com/sgformer/sgformer/sgformer/graph"
)

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

// OGBGraph returns the molecule as OGB's smiles2graph featurises it: one node per atom with
// the 9 atom features, and each bond once as the edge [begin, end] with the 3 bond features,
// in RDKit's bond order. A molecule without bonds is a graph without edges.
func (mol *Molecule) OGBGraph() (*graph.Graph, error) {
	atoms, bonds := mol.Atoms(), mol.Bonds()
	nodes := make([]int32, 0, len(atoms)*NumAtomFeatures)
	for _, a := range atoms {
		f := a.OGBFeatures()
		nodes = append(nodes, f[:]...)
	}
	edges := make([]graph.Edge, len(bonds))
	feats := make([]int32, 0, len(bonds)*NumBondFeatures)
	for i, b := range bonds {
		edges[i] = graph.Edge{b.Begin, b.End}
		f := b.OGBFeatures()
		feats = append(feats, f[:]...)
	}
	g, err := graph.New(len(atoms), edges,
		graph.Features{Width: NumAtomFeatures, Ints: nodes},
		graph.Features{Width: NumBondFeatures, Ints: feats})
	if err != nil {
		return nil, fmt.Errorf("smiles: building the graph: %w", err)
	}
	return g, nil
}

// OGBGraph reads a SMILES and returns OGB's featurised graph of it (see Parse and
// Molecule.OGBGraph).
func OGBGraph(s string) (*graph.Graph, error) {
	mol, err := Parse(s)
	if err != nil {
		return nil, err
	}
	return mol.OGBGraph()
}
