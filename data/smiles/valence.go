package smiles

// Valences, implicit hydrogens and radicals as RDKit 2022.09 computes them (Atom.cpp:
// calcExplicitValence, calcImplicitValence; MolOps.cpp: cleanUp, assignRadicals, adjustHs).
// Bond orders are counted in halves (aromatic bonds count 3) so that the arithmetic is exact.

// valenceCharge returns the formal charge as RDKit's valence rules use it: negated for elements
// left of carbon (H adds to them as hydride), and never positive for carbon (a carbocation
// has fewer hydrogens, like a carbanion: RDKit issue #539).
func (at *atom) valenceCharge() int {
	chr := at.charge
	if elements[at.num].early {
		chr = -chr
	}
	if at.num == 6 && chr > 0 {
		chr = -chr
	}
	return chr
}

// bondOrderSum2 returns twice the sum of the bond orders of atom a plus twice its explicit Hs.
func (m *mol) bondOrderSum2(a int) int {
	s := 2 * m.atoms[a].hs
	for _, b := range m.atoms[a].bonds {
		s += m.bonds[b].typ.twice()
	}
	return s
}

// calcExplicitValence is RDKit's Atom::calcExplicitValence. An aromatic atom whose bond orders
// add up to more than its default valence takes the closest allowed valence below, when
// within 1.5 of it (the N of c1cccn1C counts 3, not 4); half-integer sums round up. In strict
// mode a valence above the element's largest allowed one is an error.
func (m *mol) calcExplicitValence(a int, strict bool) (int, error) {
	at := &m.atoms[a]
	accum := m.bondOrderSum2(a)
	dv := defaultValence(at.num)
	chr := at.valenceCharge()
	// RDKit compares with dv+chr computed in unsigned arithmetic.
	limit := uint32(int32(dv)) + uint32(int32(chr))
	if int64(accum) > 2*int64(limit) && m.isAromaticAtom(a) {
		pval := int(int32(limit))
		for _, v := range elements[at.num].valences {
			if v == -1 {
				break
			}
			val := int(v) + chr
			if 2*val > accum {
				break
			}
			pval = val
		}
		if accum-2*pval <= 3 {
			accum = 2 * pval
		}
	}
	res := accum / 2
	if accum%2 != 0 {
		res = (accum + 1) / 2
	}
	if strict {
		eff := res + at.charge
		if elements[at.num].outer >= 4 {
			eff = res - at.charge
		}
		if maxV := lastValence(at.num); maxV > 0 && eff > maxV {
			return 0, m.atomErr(Chemistry, a, "explicit valence %d of %s is greater than permitted", eff, m.describe(a))
		}
	}
	at.explVal = res
	return res, nil
}

// calcImplicitValence is RDKit's Atom::calcImplicitValence: the number of implicit hydrogens
// that bring the atom to its smallest allowed valence at or above its explicit valence
// (radicals counted), or, for aromatic atoms, to the default valence only.
func (m *mol) calcImplicitValence(a int, strict bool) (int, error) {
	at := &m.atoms[a]
	if at.noImplicit {
		return 0, nil
	}
	if at.explVal == -1 {
		if _, err := m.calcExplicitValence(a, strict); err != nil {
			return 0, err
		}
	}
	if at.num == 0 {
		at.implVal = 0
		return 0, nil
	}
	if at.explVal == 0 && at.num == 1 && at.radicals == 0 {
		switch at.charge {
		case 1, -1:
			at.implVal = 0
		case 0:
			at.implVal = 1
		default:
			if strict {
				return 0, m.atomErr(Chemistry, a, "unreasonable formal charge %+d on hydrogen %s", at.charge, m.describe(a))
			}
			at.implVal = 0
		}
		return at.implVal, nil
	}
	dv := defaultValence(at.num)
	if dv == -1 {
		at.implVal = 0
		return 0, nil
	}
	ev := at.explVal + at.radicals
	chg := at.valenceCharge()
	res := -1
	if m.isAromaticAtom(a) {
		if ev <= dv+chg {
			res = dv + chg - ev
		} else {
			allowed := false
			for _, v := range elements[at.num].valences {
				if v <= 0 {
					break
				}
				if ev == int(v)+chg {
					allowed = true
					break
				}
			}
			if strict && !allowed {
				return 0, m.atomErr(Chemistry, a, "explicit valence %d of aromatic %s is not an allowed valence", ev, m.describe(a))
			}
			res = 0
		}
	} else {
		for _, v := range elements[at.num].valences {
			if v < 0 {
				break
			}
			if tot := int(v) + chg; ev <= tot {
				res = tot - ev
				break
			}
		}
		if res < 0 {
			if strict && lastValence(at.num) != -1 {
				return 0, m.atomErr(Chemistry, a, "explicit valence %d of %s is greater than permitted", ev, m.describe(a))
			}
			res = 0
		}
	}
	at.implVal = res
	return res, nil
}

// updatePropertyCache recomputes the explicit and implicit valence of atom a.
func (m *mol) updatePropertyCache(a int, strict bool) error {
	if _, err := m.calcExplicitValence(a, strict); err != nil {
		return err
	}
	_, err := m.calcImplicitValence(a, strict)
	return err
}

// explicitValenceNonStrict recomputes the explicit valence where no error can occur.
func (m *mol) explicitValenceNonStrict(a int) int {
	v, _ := m.calcExplicitValence(a, false)
	return v
}

// cleanUp is RDKit's MolOps::cleanUp: neutral five-valent nitrogen becomes charge-separated
// (CN(=O)=O -> C[N+](=O)[O-], N=N#N -> N=[N+]=[N-]), as does five-valent phosphorus with
// double bonds to O and to C or N, and halogens bonded only to oxygens lose their double bonds
// (perchlorate: [Cl+3]([O-])([O-])([O-])O).
func (m *mol) cleanUp() {
	for a := range m.atoms {
		switch m.atoms[a].num {
		case 7:
			m.nitrogenCleanup(a)
		case 15:
			m.phosphorusCleanup(a)
		case 17, 35, 53:
			m.halogenCleanup(a)
		}
	}
}

// nitrogenCleanup makes a neutral five-valent N charge-separated (RDKit's nitrogenCleanup).
func (m *mol) nitrogenCleanup(a int) {
	at := &m.atoms[a]
	if at.charge != 0 {
		return
	}
	arom := at.aromatic
	at.aromatic = false
	if m.explicitValenceNonStrict(a) == 5 {
		for _, b := range at.bonds {
			nb := m.bonds[b].other(a)
			n := &m.atoms[nb]
			if n.num == 8 && n.charge == 0 && m.bonds[b].typ == BondDouble {
				m.bonds[b].typ = BondSingle
				at.charge, n.charge = 1, -1
				break
			}
			if n.num == 7 && n.charge == 0 && m.bonds[b].typ == BondTriple {
				m.bonds[b].typ = BondDouble
				at.charge, n.charge = 1, -1
				break
			}
		}
	}
	at.aromatic = arom
	m.explicitValenceNonStrict(a)
}

// phosphorusCleanup makes C=P(=O) and N=P(=O) charge-separated (RDKit's phosphorusCleanup).
func (m *mol) phosphorusCleanup(a int) {
	at := &m.atoms[a]
	if at.charge != 0 {
		return
	}
	if m.explicitValenceNonStrict(a) == 5 && m.degree(a) == 3 {
		dblToO, oAtom := -1, -1
		doubleToCN := false
		for _, b := range at.bonds {
			nb := m.bonds[b].other(a)
			n := &m.atoms[nb]
			if n.num == 8 && n.charge == 0 && m.bonds[b].typ == BondDouble {
				dblToO, oAtom = b, nb
			} else if (n.num == 6 || n.num == 7) && m.degree(nb) >= 2 && m.bonds[b].typ == BondDouble {
				doubleToCN = true
			}
		}
		if doubleToCN && dblToO >= 0 {
			m.atoms[oAtom].charge = -1
			m.bonds[dblToO].typ = BondSingle
			at.charge = 1
		}
	}
	m.explicitValenceNonStrict(a)
}

// halogenCleanup makes a halogen bonded only to oxygens charge-separated (RDKit's
// halogenCleanup).
func (m *mol) halogenCleanup(a int) {
	at := &m.atoms[a]
	ev := m.explicitValenceNonStrict(a)
	if at.charge != 0 || (ev != 7 && ev != 5 && ev != 3) {
		return
	}
	for _, b := range at.bonds {
		if m.atoms[m.bonds[b].other(a)].num != 8 {
			return
		}
	}
	charge := 0
	for _, b := range at.bonds {
		if m.bonds[b].typ == BondDouble {
			m.bonds[b].typ = BondSingle
			o := m.bonds[b].other(a)
			charge++
			m.atoms[o].charge = -1
			m.explicitValenceNonStrict(o)
		}
	}
	at.charge = charge
	m.explicitValenceNonStrict(a)
}

// assignRadicals is RDKit's MolOps::assignRadicals: bracket atoms ("no implicit Hs") get the
// radical electrons their valence leaves unpaired ([CH2] is a carbene, [O] has two), elements
// without preferred valences (metals) one when their electron count is odd.
func (m *mol) assignRadicals() {
	for a := range m.atoms {
		at := &m.atoms[a]
		if !at.noImplicit || at.radicals != 0 || at.num == 0 {
			continue
		}
		valens := elements[at.num].valences
		chg := at.charge
		nOuter := elements[at.num].outer
		if len(valens) == 1 && valens[0] == -1 {
			n := nOuter - chg
			if n < 0 {
				n = 0
			}
			at.radicals = n % 2
			continue
		}
		total := m.bondOrderSum2(a) / 2
		base := 8
		if at.num == 1 || at.num == 2 {
			base = 2
		}
		rad := base - nOuter - total + chg
		if rad < 0 {
			rad = 0
			if len(valens) > 1 {
				for _, v := range valens {
					if int(v)-total+chg >= 0 {
						rad = int(v) - total + chg
						break
					}
				}
			}
		}
		if rad2 := nOuter - total - chg; rad2 >= 0 && rad2 < rad {
			rad = rad2
		}
		at.radicals = rad
	}
}

// adjustHs is RDKit's MolOps::adjustHs, run last in sanitisation: an atom that lost implicit
// hydrogens to aromaticity perception (the N of an aromatic pyridone) keeps them as
// explicit ones.
func (m *mol) adjustHs() {
	for a := range m.atoms {
		at := &m.atoms[a]
		orig := m.implicitValence(a)
		m.explicitValenceNonStrict(a)
		explHs := at.hs
		newImpl, _ := m.calcImplicitValence(a, false)
		if newImpl < orig {
			at.hs = explHs + orig - newImpl
			m.explicitValenceNonStrict(a)
		}
	}
}
