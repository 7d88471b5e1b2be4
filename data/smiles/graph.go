package smiles

// The molecule graph as RDKit holds it while it parses and sanitises a SMILES. Atoms and
// bonds keep RDKit's indices and, crucially, RDKit's order of the bonds around each atom:
// chain and branch bonds in the order they are read, ring-closure bonds after all of them (in
// increasing ring number), since chirality tags, ring perception, Kekulé structures and
// stereo ranks all depend on that order.

// BondType is RDKit's Bond::BondType, restricted to the types a SMILES can produce.
type BondType uint8

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

// bondDir is RDKit's Bond::BondDir for the directions a SMILES can write: "/" sets
// endUpRight and "\" endDownRight on a bond read from its begin atom to its end atom.
type bondDir uint8

const (
	dirNone bondDir = iota
	dirEndDownRight
	dirEndUpRight
)

// flip returns the opposite direction.
func (d bondDir) flip() bondDir {
	switch d {
	case dirEndDownRight:
		return dirEndUpRight
	case dirEndUpRight:
		return dirEndDownRight
	}
	return d
}

// BondStereo is RDKit's Bond::BondStereo, in OGB's order of possible_bond_stereo_list.
type BondStereo uint8

const (
	StereoNone BondStereo = iota
	StereoZ
	StereoE
	StereoCis
	StereoTrans
	StereoAny
)

// Chirality is RDKit's Atom::ChiralType, in RDKit's numbering ("@" is counter-clockwise).
type Chirality uint8

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

// Hybridization is RDKit's Atom::HybridizationType.
type Hybridization uint8

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

// atom is an RDKit atom with the properties the pipeline reads and writes.
type atom struct {
	num     int // atomic number, 0 for "*"
	isotope int
	charge  int
	// hs is RDKit's numExplicitHs: hydrogens written in brackets or left by removed [H] atoms.
	hs         int
	noImplicit bool
	aromatic   bool
	chiral     Chirality
	chiralPerm int // the n of @TH n, @SP n, ...; -1 when none was written
	radicals   int
	mapNum     int
	hyb        Hybridization
	// explVal and implVal are RDKit's cached explicit and implicit valences (-1: not yet
	// computed). They are recomputed only where RDKit recomputes them.
	explVal, implVal int
	bonds            []int // incident bonds in RDKit's order

	index       int  // position in SMILES order, before hydrogens were removed
	pos         int  // byte offset of the atom in the SMILES
	smilesStart bool // first atom of the SMILES or of a dot-separated part
	closures    []int
	cip         byte // legacy CIP code, 'R' or 'S', 0 when none
}

// bond is an RDKit bond between atoms begin and end.
type bond struct {
	begin, end  int
	typ         BondType
	aromatic    bool
	conjugated  bool
	unspecified bool // RDKit's _unspecifiedOrder: no bond symbol, or only "/" or "\"
	dir         bondDir
	stereo      BondStereo
}

// other returns the atom of b that is not a.
func (b *bond) other(a int) int {
	if b.begin == a {
		return b.end
	}
	return b.begin
}

// mol is a molecule under construction or sanitised.
type mol struct {
	atoms []atom
	bonds []bond
	rings ringInfo
}

// addBond appends a bond and registers it with both atoms.
func (m *mol) addBond(b bond) int {
	i := len(m.bonds)
	m.bonds = append(m.bonds, b)
	m.atoms[b.begin].bonds = append(m.atoms[b.begin].bonds, i)
	m.atoms[b.end].bonds = append(m.atoms[b.end].bonds, i)
	return i
}

// bondBetween returns the bond joining atoms a and c, or -1.
func (m *mol) bondBetween(a, c int) int {
	for _, b := range m.atoms[a].bonds {
		if m.bonds[b].other(a) == c {
			return b
		}
	}
	return -1
}

// degree returns the number of explicit neighbours of atom a.
func (m *mol) degree(a int) int { return len(m.atoms[a].bonds) }

// totalHs returns RDKit's getTotalNumHs(): explicit plus implicit hydrogens (hydrogen atoms
// still in the graph are not counted).
func (m *mol) totalHs(a int) int {
	at := &m.atoms[a]
	if at.noImplicit || at.implVal < 0 {
		return at.hs
	}
	return at.hs + at.implVal
}

// implicitValence returns RDKit's getImplicitValence(): 0 for atoms without implicit Hs.
func (m *mol) implicitValence(a int) int {
	if m.atoms[a].noImplicit {
		return 0
	}
	return m.atoms[a].implVal
}

// totalDegree returns RDKit's getTotalDegree(): neighbours plus hydrogens.
func (m *mol) totalDegree(a int) int { return m.degree(a) + m.totalHs(a) }

// isAromaticAtom reproduces RDKit's isAromaticAtom: the atom's flag, or any aromatic bond.
func (m *mol) isAromaticAtom(a int) bool {
	if m.atoms[a].aromatic {
		return true
	}
	for _, b := range m.atoms[a].bonds {
		if m.bonds[b].aromatic || m.bonds[b].typ == BondAromatic {
			return true
		}
	}
	return false
}

// removeAtom deletes atom a and its bonds, renumbering later atoms and bonds down as RDKit's
// RWMol::removeAtom does (the order of everything else is kept).
func (m *mol) removeAtom(a int) {
	dead := make(map[int]bool, len(m.atoms[a].bonds))
	for _, b := range m.atoms[a].bonds {
		dead[b] = true
	}
	newIndex := make([]int, len(m.bonds))
	kept := m.bonds[:0]
	for i, b := range m.bonds {
		if dead[i] {
			newIndex[i] = -1
			continue
		}
		newIndex[i] = len(kept)
		if b.begin > a {
			b.begin--
		}
		if b.end > a {
			b.end--
		}
		kept = append(kept, b)
	}
	m.bonds = kept
	m.atoms = append(m.atoms[:a], m.atoms[a+1:]...)
	for i := range m.atoms {
		bs := m.atoms[i].bonds[:0]
		for _, b := range m.atoms[i].bonds {
			if newIndex[b] >= 0 {
				bs = append(bs, newIndex[b])
			}
		}
		m.atoms[i].bonds = bs
	}
}

// countSwaps returns the number of transpositions RDKit's countSwapsToInterconvert makes to
// turn probe into ref (both permutations of the same values); only its parity matters.
func countSwaps(ref, probe []int) int {
	p := append([]int(nil), probe...)
	n := 0
	for i := range ref {
		if i >= len(p) || p[i] == ref[i] {
			continue
		}
		for j := i + 1; j < len(p); j++ {
			if p[j] == ref[i] {
				p[i], p[j] = p[j], p[i]
				n++
				break
			}
		}
	}
	return n
}

// perturbationOrder is RDKit's Atom::getPerturbationOrder: the swaps needed to turn the
// bond list probe into atom a's own bond order.
func (m *mol) perturbationOrder(a int, probe []int) int {
	return countSwaps(m.atoms[a].bonds, probe)
}

// invertChirality swaps "@" and "@@" (other tags are left alone, as their permutation
// numbers do not reach the features).
func (at *atom) invertChirality() {
	switch at.chiral {
	case ChiralCW:
		at.chiral = ChiralCCW
	case ChiralCCW:
		at.chiral = ChiralCW
	}
}

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
