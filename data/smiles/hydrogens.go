package smiles

// removeHydrogens removes the hydrogen atoms written as atoms ("[H]") that RDKit's
// MolOps::removeHs removes with the parameters of SmilesToMol (RemoveHsParameters defaults,
// updateExplicitCount = true), before sanitisation. Hydrogens are kept when they have no
// neighbour ("[H]", "[HH]"), bridge two atoms, are isotopes ("[2H]"), are bonded only to
// hydrogens ("[H][H]"), to a dummy atom or to an atom with square-planar, trigonal-bipyramidal
// or octahedral stereo, or define the geometry of a double bond ("[H]/N=C/C"). Each removed
// hydrogen becomes an explicit H count on its neighbour, which keeps its "@"/"@@" meaning.
func (m *mol) removeHydrogens() {
	remove := make([]bool, len(m.atoms))
	found := false
	for i := range m.atoms {
		remove[i] = m.shouldRemoveH(i)
		found = found || remove[i]
	}
	if !found {
		return
	}
	for i := len(m.atoms) - 1; i >= 0; i-- {
		if remove[i] {
			m.removeH(i)
		}
	}
}

// shouldRemoveH is RDKit's shouldRemoveH for the default parameters.
func (m *mol) shouldRemoveH(i int) bool {
	a := &m.atoms[i]
	if a.num != 1 || m.degree(i) != 1 || a.isotope != 0 {
		return false
	}
	onlyH := true
	for _, b := range a.bonds {
		n := m.bonds[b].other(i)
		nb := &m.atoms[n]
		if nb.num < 1 || nb.chiral.nonTetrahedral() {
			return false
		}
		if nb.num != 1 {
			onlyH = false
		}
		if m.degree(n) == 2 {
			for _, nbnd := range nb.bonds {
				if m.bonds[nbnd].typ == BondDouble && (m.bonds[nbnd].stereo > StereoAny || m.bonds[b].dir != dirNone) {
					return false
				}
			}
		}
	}
	return !onlyH
}

// removeH is RDKit's molRemoveH: hydrogen i becomes an explicit H count of its neighbour,
// whose chirality is re-expressed with the hydrogen last, and whose double-bond geometry
// moves to another single bond when the hydrogen's bond carried the only "/" or "\".
func (m *mol) removeH(i int) {
	b := m.atoms[i].bonds[0]
	hb := m.bonds[b]
	heavy := hb.other(i)
	h := &m.atoms[heavy]
	h.hs++
	if h.chiral != ChiralUnspecified {
		order := make([]int, 0, len(h.bonds))
		for _, nb := range h.bonds {
			if nb != b {
				order = append(order, nb)
			}
		}
		order = append(order, b)
		if m.perturbationOrder(heavy, order)%2 == 1 {
			h.invertChirality()
		}
	}
	if hb.dir == dirEndDownRight || hb.dir == dirEndUpRight {
		foundDir, other := false, -1
		for _, nb := range h.bonds {
			if nb != b && m.bonds[nb].typ == BondSingle {
				if m.bonds[nb].dir == dirNone {
					other = nb
				} else {
					foundDir = true
				}
			}
		}
		if !foundDir && other >= 0 {
			if m.bonds[other].begin == heavy && hb.begin == heavy {
				m.bonds[other].dir = hb.dir.flip()
			} else {
				m.bonds[other].dir = hb.dir
			}
		}
	}
	m.removeAtom(i)
}
