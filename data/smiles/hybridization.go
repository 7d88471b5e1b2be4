package smiles

// Conjugation and hybridisation as RDKit 2022.09 sets them in sanitisation (ConjugHybrid.cpp).

// conjugationCandidate is RDKit's isAtomConjugCand: an atom with electrons to share, from the
// first two rows or not in groups 15 and 16 (a terminal group-16 atom such as the O of C=O or
// the S of C=S qualifies).
func (m *mol) conjugationCandidate(a int) bool {
	at := &m.atoms[a]
	outer := elements[at.num].outer
	return (at.num <= 10 || (outer != 5 && outer != 6) || (outer == 6 && m.totalDegree(a) < 2)) && m.countAtomElec(a) > 0
}

// setConjugation is RDKit's MolOps::setConjugation: aromatic bonds are conjugated, and at a
// candidate atom with two or three substituents, a double (or aromatic) bond and any other
// bond to a candidate atom with at most three substituents are conjugated.
func (m *mol) setConjugation() {
	for i := range m.bonds {
		m.bonds[i].conjugated = m.bonds[i].aromatic
	}
	for a := range m.atoms {
		if !m.conjugationCandidate(a) {
			continue
		}
		if sbo := m.degree(a) + m.totalHs(a); sbo < 2 || sbo > 3 {
			continue
		}
		for _, b1 := range m.atoms[a].bonds {
			if m.bonds[b1].typ.twice() < 3 {
				continue
			}
			for _, b2 := range m.atoms[a].bonds {
				if b1 == b2 {
					continue
				}
				o := m.bonds[b2].other(a)
				if m.degree(o)+m.totalHs(o) > 3 {
					continue
				}
				if m.conjugationCandidate(o) {
					m.bonds[b1].conjugated = true
					m.bonds[b2].conjugated = true
				}
			}
		}
	}
}

// bondsPlusLonePairs is RDKit's numBondsPlusLonePairs: neighbours, hydrogens, lone pairs and,
// below an octet, radicals.
func (m *mol) bondsPlusLonePairs(a int) int {
	at := &m.atoms[a]
	deg := m.totalDegree(a)
	if at.num <= 1 {
		return deg
	}
	outer := elements[at.num].outer
	total := at.explVal + m.implicitValence(a)
	free := outer - (total + at.charge)
	if total+outer-at.charge < 8 {
		return deg + (free-at.radicals)/2 + at.radicals
	}
	return deg + free/2
}

// setHybridization is RDKit's MolOps::setHybridization: from the stereo class when it fits the
// coordination (tetrahedral: SP3, square planar: SP2D, trigonal bipyramidal: SP3D,
// octahedral: SP3D2), else from the number of bonds and lone pairs, an atom with four being
// SP2 rather than SP3 when it has at most three substituents and a conjugated bond (the O
// of an ester, the N of an amide).
func (m *mol) setHybridization() {
	for a := range m.atoms {
		at := &m.atoms[a]
		if at.num == 0 {
			at.hyb = HybridUnspecified
			continue
		}
		td := m.totalDegree(a)
		switch at.chiral {
		case ChiralTetrahedral, ChiralCW, ChiralCCW:
			if td == 4 {
				at.hyb = HybridSP3
				continue
			}
		case ChiralSquarePlanar:
			if td >= 2 && td <= 4 {
				at.hyb = HybridSP2D
				continue
			}
		case ChiralTrigonalBipyramidal:
			if td >= 2 && td <= 5 {
				at.hyb = HybridSP3D
				continue
			}
		case ChiralOctahedral:
			if td >= 2 && td <= 6 {
				at.hyb = HybridSP3D2
				continue
			}
		}
		norbs := td
		if at.num < 89 {
			norbs = m.bondsPlusLonePairs(a)
		}
		switch norbs {
		case 0, 1:
			at.hyb = HybridS
		case 2:
			at.hyb = HybridSP
		case 3:
			at.hyb = HybridSP2
		case 4:
			at.hyb = HybridSP3
			if td <= 3 && m.hasConjugatedBond(a) {
				at.hyb = HybridSP2
			}
		case 5:
			at.hyb = HybridSP3D
		case 6:
			at.hyb = HybridSP3D2
		default:
			at.hyb = HybridUnspecified
		}
	}
}

// hasConjugatedBond reports whether atom a has a conjugated bond.
func (m *mol) hasConjugatedBond(a int) bool {
	for _, b := range m.atoms[a].bonds {
		if m.bonds[b].conjugated {
			return true
		}
	}
	return false
}

// cleanupChirality is RDKit's MolOps::cleanupChirality: "@"/"@@" on an atom that is not SP3
// is dropped; other classes are dropped when the coordination does not fit.
func (m *mol) cleanupChirality() {
	for a := range m.atoms {
		at := &m.atoms[a]
		td := m.totalDegree(a)
		switch at.chiral {
		case ChiralCW, ChiralCCW, ChiralTetrahedral:
			if at.hyb != HybridSP3 {
				at.chiral = ChiralUnspecified
			}
		case ChiralSquarePlanar:
			if td < 2 || td > 4 {
				at.chiral = ChiralUnspecified
			}
		case ChiralTrigonalBipyramidal:
			if td < 2 || td > 5 {
				at.chiral = ChiralUnspecified
			}
		case ChiralOctahedral:
			if td < 2 || td > 6 {
				at.chiral = ChiralUnspecified
			}
		}
	}
}
