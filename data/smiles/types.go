package smiles

// The properties RDKit reports for atoms and bonds, with RDKit's names (String) and values.

// BondType is RDKit's bond type (Bond::BondType), for the types a SMILES can give.
type BondType uint8

// Bond types. BondUnspecified only exists while a SMILES is read.
const (
	BondUnspecified BondType = iota
	BondSingle
	BondDouble
	BondTriple
	BondQuadruple
	BondAromatic
)

// twice returns twice the bond order (RDKit's getTwiceBondType): aromatic bonds count 1.5.
func (t BondType) twice() int {
	switch t {
	case BondSingle:
		return 2
	case BondDouble:
		return 4
	case BondTriple:
		return 6
	case BondQuadruple:
		return 8
	case BondAromatic:
		return 3
	}
	return 0
}

// roundedOrder returns std::lround of the bond order (aromatic 1.5 rounds to 2).
func (t BondType) roundedOrder() int { return (t.twice() + 1) / 2 }

// BondStereo is RDKit's double-bond stereo (Bond::BondStereo), in the order of OGB's
// possible_bond_stereo_list. From a SMILES, RDKit's legacy perception only gives StereoNone,
// StereoZ and StereoE.
type BondStereo uint8

// Double-bond stereo values.
const (
	StereoNone BondStereo = iota
	StereoZ
	StereoE
	StereoCis
	StereoTrans
	StereoAny
)

// Chirality is RDKit's chiral tag (Atom::ChiralType), in RDKit's numbering: "@" is
// counter-clockwise, "@@" clockwise, looking from the first neighbour, relative to the order
// of the atom's bonds in RDKit (ChiralCW and ChiralCCW), or a class written with @TH, @AL,
// @SP, @TB or @OH.
type Chirality uint8

// Chiral tags.
const (
	ChiralUnspecified Chirality = iota
	ChiralCW
	ChiralCCW
	ChiralOther
	ChiralTetrahedral
	ChiralAllene
	ChiralSquarePlanar
	ChiralTrigonalBipyramidal
	ChiralOctahedral
)

// tetrahedral reports whether t is "@" or "@@".
func (t Chirality) tetrahedral() bool { return t == ChiralCW || t == ChiralCCW }

// nonTetrahedral reports whether t is one of the tags Chirality::hasNonTetrahedralStereo
// accepts (square planar, trigonal bipyramidal, octahedral).
func (t Chirality) nonTetrahedral() bool {
	return t == ChiralSquarePlanar || t == ChiralTrigonalBipyramidal || t == ChiralOctahedral
}

// Hybridization is RDKit's hybridisation (Atom::HybridizationType).
type Hybridization uint8

// Hybridisations.
const (
	HybridUnspecified Hybridization = iota
	HybridS
	HybridSP
	HybridSP2
	HybridSP3
	HybridSP2D
	HybridSP3D
	HybridSP3D2
	HybridOther
)

// String returns RDKit's name of the bond type.
func (t BondType) String() string {
	return [...]string{"UNSPECIFIED", "SINGLE", "DOUBLE", "TRIPLE", "QUADRUPLE", "AROMATIC"}[min(int(t), 5)]
}

// String returns RDKit's name of the bond stereo.
func (s BondStereo) String() string {
	return [...]string{"STEREONONE", "STEREOZ", "STEREOE", "STEREOCIS", "STEREOTRANS", "STEREOANY"}[min(int(s), 5)]
}

// String returns RDKit's name of the chiral tag.
func (t Chirality) String() string {
	return [...]string{"CHI_UNSPECIFIED", "CHI_TETRAHEDRAL_CW", "CHI_TETRAHEDRAL_CCW", "CHI_OTHER",
		"CHI_TETRAHEDRAL", "CHI_ALLENE", "CHI_SQUAREPLANAR", "CHI_TRIGONALBIPYRAMIDAL", "CHI_OCTAHEDRAL"}[min(int(t), 8)]
}

// String returns RDKit's name of the hybridisation.
func (h Hybridization) String() string {
	return [...]string{"UNSPECIFIED", "S", "SP", "SP2", "SP3", "SP2D", "SP3D", "SP3D2", "OTHER"}[min(int(h), 8)]
}
