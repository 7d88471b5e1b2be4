package smiles

// The molecule graph as RDKit holds it while it parses and sanitises a SMILES. Atoms and
// bonds keep RDKit's indices and, crucially, RDKit's order of the bonds around each atom:
// chain and branch bonds in the order they are read, ring-closure bonds after all of them (in
// increasing ring number), since chirality tags, ring perception, Kekulé structures and
// stereo ranks all depend on that order.

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
	pool  []int // unused space for atoms' bond lists
}

// bondList returns an empty bond list for a new atom, carved from a shared block (a list
// that outgrows its room is moved by append).
func (m *mol) bondList() []int {
	if len(m.pool) < 4 {
		m.pool = make([]int, 4*64)
	}
	l := m.pool[:0:4]
	m.pool = m.pool[4:]
	return l
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
