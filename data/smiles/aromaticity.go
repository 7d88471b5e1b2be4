package smiles

// Aromaticity perception with RDKit's default model (Aromaticity.cpp, AROMATICITY_RDKIT), run
// on the Kekulé structure: each ring of the symmetrised SSSR whose atoms can all take part is
// a candidate; candidate rings sharing exactly one bond form fused systems (rings of more
// than 24 atoms stay alone); within a system every connected set of up to six rings is tested
// with Hückel's 4n+2 rule over the atoms in one or two of its rings, and the atoms of an
// aromatic set, and its bonds not shared between two of its rings, become aromatic. Electrons
// come from the atom's lone pairs and multiple bonds; an exocyclic double bond to a more
// electronegative atom (the C=O of a pyridone) takes the electron away.

// donorType is RDKit's ElectronDonorType: how many electrons an atom gives to a ring.
type donorType uint8

const (
	vacantDonor donorType = iota
	oneDonor
	twoDonor
	oneOrTwoDonor
	anyDonor
	noDonor
)

// electrons returns the least and most electrons a donor type contributes.
func (d donorType) electrons() (int, int) {
	switch d {
	case anyDonor, oneOrTwoDonor:
		return 1, 2
	case oneDonor:
		return 1, 1
	case twoDonor:
		return 2, 2
	}
	return 0, 0
}

const (
	// maxFusedAromaticRingSize: larger rings are never fused with others (a bit bigger than
	// the outer ring of a porphyrin).
	maxFusedAromaticRingSize = 24
	// maxFusedRings is the most rings tested together.
	maxFusedRings = 6
	// maxRingSubsets bounds the number of ring sets tested in one molecule.
	maxRingSubsets = 2000000
)

// setAromaticity is RDKit's MolOps::setAromaticity with the default model.
func (m *mol) setAromaticity() error {
	n := len(m.atoms)
	cand := make([]bool, n)
	seen := make([]bool, n)
	edon := make([]donorType, n)
	var crings [][]int
	for _, ring := range m.rings.atomRings {
		allArom, allDummy := true, true
		for _, a := range ring {
			if m.atoms[a].num != 0 {
				allDummy = false
			}
			if seen[a] {
				if !cand[a] {
					allArom = false
				}
				continue
			}
			seen[a] = true
			edon[a] = m.donorType(a)
			ok, err := m.aromaticCandidate(a, edon[a])
			if err != nil {
				return err
			}
			cand[a] = ok
			if !ok {
				allArom = false
			}
		}
		if allArom && !allDummy {
			crings = append(crings, ring)
		}
	}
	brings := make([][]int, len(crings))
	for i, r := range crings {
		brings[i] = m.ringBonds(r)
	}
	neigh := ringNeighbours(brings, maxFusedAromaticRingSize, 1)
	done := make([]bool, len(crings))
	budget := maxRingSubsets
	for curr := 0; curr < len(crings); {
		var fused []int
		pickFusedRings(curr, neigh, &fused, done)
		if err := m.huckelFused(crings, brings, fused, edon, neigh, &budget); err != nil {
			return err
		}
		next := -1
		for i, d := range done {
			if !d {
				next = i
				break
			}
		}
		if next < 0 {
			break
		}
		curr = next
	}
	return nil
}

// huckelFused is RDKit's applyHuckelToFused: sets of 1, 2, ... 6 connected rings of a fused
// system, until all its bonds are aromatic.
func (m *mol) huckelFused(crings, brings [][]int, fused []int, edon []donorType, neigh [][]int, budget *int) error {
	inFused := map[int]bool{}
	for _, r := range fused {
		inFused[r] = true
	}
	ringBonds := map[int]bool{}
	for _, r := range fused {
		for _, b := range brings[r] {
			ringBonds[b] = true
		}
	}
	doneBonds := map[int]bool{}
	counts := make([]int, len(m.atoms))
	var union, touched []int
	test := func(set []int) {
		// the atoms in one or two of the rings (not those buried in three, as in acepentalene)
		for _, r := range set {
			for _, a := range crings[r] {
				if counts[a] == 0 {
					touched = append(touched, a)
				}
				counts[a]++
			}
		}
		union = union[:0]
		for _, a := range touched {
			if c := counts[a]; c == 1 || c == 2 {
				union = append(union, a)
			}
			counts[a] = 0
		}
		touched = touched[:0]
		if huckel(union, edon) {
			m.markAromatic(crings, brings, set, doneBonds)
		}
	}
	nrings := len(fused)
	for size := 1; ; size++ {
		if size == 3 && nrings > 300 {
			break // RDKit gives up on systems of more than 300 rings
		}
		if size > min(nrings, maxFusedRings) || len(doneBonds) >= len(ringBonds) {
			break
		}
		if err := connectedSubsets(fused, neigh, inFused, size, budget, test); err != nil {
			return err
		}
	}
	return nil
}

// connectedSubsets calls visit with every set of size rings of the system that is connected
// in the neighbour graph (Wernicke's ESU enumeration, each set once).
func connectedSubsets(rings []int, neigh [][]int, in map[int]bool, size int, budget *int, visit func([]int)) error {
	var sub []int
	var extend func(ext []int, root int) error
	extend = func(ext []int, root int) error {
		if len(sub) == size {
			*budget--
			if *budget < 0 {
				return &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: "fused ring system too large for aromaticity perception"}
			}
			visit(sub)
			return nil
		}
		for len(ext) > 0 {
			w := ext[len(ext)-1]
			ext = ext[:len(ext)-1]
			next := append([]int(nil), ext...)
			for _, u := range neigh[w] {
				if u <= root || !in[u] || contains(sub, u) || contains(next, u) || w == u {
					continue
				}
				adjacent := false
				for _, s := range sub {
					if contains(neigh[s], u) {
						adjacent = true
						break
					}
				}
				if !adjacent {
					next = append(next, u)
				}
			}
			sub = append(sub, w)
			err := extend(next, root)
			sub = sub[:len(sub)-1]
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, v := range rings {
		var ext []int
		for _, u := range neigh[v] {
			if u > v && in[u] {
				ext = append(ext, u)
			}
		}
		sub = append(sub[:0], v)
		if err := extend(ext, v); err != nil {
			return err
		}
	}
	return nil
}

func contains(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// huckel is RDKit's applyHuckel: aromatic when some electron count the atoms can give is
// 4n+2 (with at least 6 possible), or when they give at most 2 (cyclopropenyl cation); at
// most one atom may be of the "any" type (a dummy).
func huckel(atoms []int, edon []donorType) bool {
	lo, hi, nAny := 0, 0, 0
	for _, a := range atoms {
		if edon[a] == anyDonor {
			nAny++
			if nAny > 1 {
				return false
			}
		}
		l, h := edon[a].electrons()
		lo += l
		hi += h
	}
	if hi >= 6 {
		for e := lo; e <= hi; e++ {
			if (e-2)%4 == 0 {
				return true
			}
		}
		return false
	}
	return hi == 2
}

// markAromatic is RDKit's markAtomsBondsArom: the atoms of the rings, and the bonds in only
// one of them, become aromatic.
func (m *mol) markAromatic(crings, brings [][]int, set []int, doneBonds map[int]bool) {
	count := map[int]int{}
	for _, r := range set {
		for _, a := range crings[r] {
			m.atoms[a].aromatic = true
		}
		for _, b := range brings[r] {
			count[b]++
		}
	}
	for b, c := range count {
		if c != 1 {
			continue
		}
		bd := &m.bonds[b]
		bd.aromatic = true
		if bd.typ == BondSingle || bd.typ == BondDouble {
			bd.typ = BondAromatic
		}
		doneBonds[b] = true
	}
}

// moreElectronegative is RDKit's PeriodicTable::moreElectroNegative: more outer electrons, or
// as many and a lower atomic number.
func moreElectronegative(z1, z2 int) bool {
	e1, e2 := elements[z1].outer, elements[z2].outer
	return e1 > e2 || (e1 == e2 && z1 < z2)
}

// countAtomElec is RDKit's MolOps::countAtomElec: the electrons atom a can give to a pi
// system, -1 when it cannot take part (univalent, or more than three-coordinate).
func (m *mol) countAtomElec(a int) int {
	at := &m.atoms[a]
	dv := defaultValence(at.num)
	if dv <= 1 {
		return -1
	}
	degree := m.degree(a) + m.totalHs(a)
	for _, b := range at.bonds {
		if m.bonds[b].typ.roundedOrder() == 0 {
			degree--
		}
	}
	if degree > 3 {
		return -1
	}
	nlp := max(elements[at.num].outer-dv-at.charge, 0)
	res := dv - degree + nlp - at.radicals
	if res > 1 && at.explVal-m.degree(a) > 1 {
		res = 1
	}
	return res
}

// nonRingMultipleBond returns the neighbour across the first double or triple bond of atom a
// that is in no ring, or -1.
func (m *mol) nonRingMultipleBond(a int) int {
	for _, b := range m.atoms[a].bonds {
		if m.rings.numBondRings(b) == 0 && m.bonds[b].typ.twice() >= 4 {
			return m.bonds[b].other(a)
		}
	}
	return -1
}

// ringMultipleBond reports whether atom a has a double or triple bond in a ring.
func (m *mol) ringMultipleBond(a int) bool {
	for _, b := range m.atoms[a].bonds {
		if m.rings.numBondRings(b) > 0 && m.bonds[b].typ.twice() >= 4 {
			return true
		}
	}
	return false
}

// multipleBond is RDKit's incidentMultipleBond: the explicit valence exceeds the number of
// bonds and explicit hydrogens.
func (m *mol) multipleBond(a int) bool {
	at := &m.atoms[a]
	deg := m.degree(a) + at.hs
	for _, b := range at.bonds {
		if m.bonds[b].typ.roundedOrder() == 0 {
			deg--
		}
	}
	return at.explVal != deg
}

// donorType is RDKit's getAtomDonorTypeArom (exocyclic bonds steal electrons).
func (m *mol) donorType(a int) donorType {
	at := &m.atoms[a]
	if at.num == 0 {
		if m.ringMultipleBond(a) {
			return oneDonor
		}
		return anyDonor
	}
	nelec := m.countAtomElec(a)
	switch {
	case nelec < 0:
		return noDonor
	case nelec == 0:
		if m.nonRingMultipleBond(a) >= 0 {
			return vacantDonor
		}
		if m.ringMultipleBond(a) {
			return oneDonor
		}
		return noDonor
	case nelec == 1:
		if who := m.nonRingMultipleBond(a); who >= 0 {
			if moreElectronegative(m.atoms[who].num, at.num) {
				return vacantDonor
			}
			return oneDonor
		}
		if m.multipleBond(a) {
			return oneDonor
		}
		if at.charge == 1 {
			return vacantDonor
		}
		return noDonor
	}
	if who := m.nonRingMultipleBond(a); who >= 0 && moreElectronegative(m.atoms[who].num, at.num) {
		nelec--
	}
	if nelec%2 == 1 {
		return oneDonor
	}
	return twoDonor
}

// aromaticCandidate is RDKit's isAtomCandForArom with the default model's options: first two
// rows plus Se and Te, a donor, at most its default valence (as the isoelectronic neutral
// element), no radical unless an uncharged carbon, at most one double or triple bond.
func (m *mol) aromaticCandidate(a int, d donorType) (bool, error) {
	at := &m.atoms[a]
	if at.num > 18 && at.num != 34 && at.num != 52 {
		return false, nil
	}
	if d == noDonor {
		return false, nil
	}
	if dv := defaultValence(at.num); dv > 0 {
		iso := at.num - at.charge
		if iso < 0 || iso > maxAtomicNum {
			return false, m.atomErr(Chemistry, a, "formal charge %+d of %s is out of range", at.charge, m.describe(a))
		}
		if at.explVal+m.implicitValence(a) > defaultValence(iso) {
			return false, nil
		}
	}
	if at.radicals != 0 && (at.num != 6 || at.charge != 0) {
		return false, nil
	}
	if at.explVal-m.degree(a) > 1 {
		nMult := 0
		for _, b := range at.bonds {
			switch m.bonds[b].typ {
			case BondDouble, BondTriple:
				nMult++
			}
		}
		if nMult > 1 {
			return false, nil
		}
	}
	return true, nil
}
