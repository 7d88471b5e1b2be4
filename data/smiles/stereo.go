package smiles

import (
	"cmp"
	"slices"
)

// Stereo perception as MolFromSmiles runs it in RDKit 2022.09: MolOps::assignStereochemistry
// with cleanIt, force and flagPossibleStereoCenters, through the legacy code path
// (Chirality.cpp: legacyStereoPerception), which is the default. Atoms are ranked by RDKit's
// legacy CIP-like ranks (iterated neighbour ranks, bond orders counted twice); a tetrahedral
// tag survives only on an atom that can be a stereocentre and whose neighbours all rank
// differently (or that pairs with another such atom of its ring system, as in
// C[C@H]1CC[C@@H](C)CC1); double bonds with "/" or "\" on both sides get E or Z from the
// highest-ranked neighbour on each side, unless in a ring of fewer than 8 atoms. Found
// centres feed back into the ranks until nothing changes.

// assignStereochemistry is the legacy stereo perception with cleanIt.
func (m *mol) assignStereochemistry() {
	hasAtoms := false
	for i := range m.atoms {
		if m.atoms[i].chiral != ChiralUnspecified {
			hasAtoms = true
		}
		m.atoms[i].cip = 0
	}
	hasBonds, anyDir := false, false
	for i := range m.bonds {
		b := &m.bonds[i]
		if b.dir != dirNone {
			anyDir = true
		}
		if (b.typ == BondDouble || b.typ == BondAromatic) && !m.detectDoubleBondStereo(i) {
			b.stereo = StereoNone
			continue
		}
		if b.typ == BondDouble {
			b.stereo = StereoNone
			if !hasBonds && (m.hasDirectedBond(b.begin) || m.hasDirectedBond(b.end)) {
				hasBonds = true
			}
		}
	}
	if !hasAtoms && !anyDir {
		// nothing to perceive: flagging possible centres changes no feature
		return
	}
	// With flagPossibleStereoCenters every atom is examined, hence hasAtoms starts true.
	hasAtoms = len(m.atoms) > 0
	var ranks []int
	for keepGoing := hasAtoms || hasBonds; keepGoing; {
		changedAtoms, changedBonds := false, false
		if hasAtoms {
			hasAtoms, changedAtoms = m.assignAtomChiralCodes(&ranks)
		}
		if hasBonds {
			hasBonds, changedBonds = m.assignBondStereoCodes(&ranks)
		}
		keepGoing = (hasAtoms || hasBonds) && (changedAtoms || changedBonds)
		if keepGoing {
			m.rerankAtoms(ranks)
		}
	}
	special, ringStereo := m.findChiralAtomSpecialCases(ranks)
	for a := range m.atoms {
		at := &m.atoms[a]
		if at.chiral == ChiralUnspecified || at.chiral.nonTetrahedral() || at.cip != 0 || (special[a] && ringStereo[a]) {
			continue
		}
		at.chiral = ChiralUnspecified
		// RDKit's issue 194: the H written only to carry the chirality goes back to implicit.
		if at.hs == 1 && at.charge == 0 && !at.aromatic {
			at.hs = 0
			at.noImplicit = false
			m.explicitValenceNonStrict(a)
			m.calcImplicitValence(a, false)
		}
	}
}

// detectDoubleBondStereo is RDKit's shouldDetectDoubleBondStereo: not in a ring, or only in
// rings of 8 atoms or more.
func (m *mol) detectDoubleBondStereo(b int) bool {
	return m.rings.numBondRings(b) == 0 || m.rings.minBondRingSize(b) >= 8
}

// hasDirectedBond reports whether atom a has a bond written with "/" or "\".
func (m *mol) hasDirectedBond(a int) bool {
	for _, b := range m.atoms[a].bonds {
		if m.bonds[b].dir != dirNone {
			return true
		}
	}
	return false
}

// cipRanks is RDKit's assignAtomCIPRanks: ranks from atomic number, isotope and atom map
// number, refined by the neighbours.
func (m *mol) cipRanks() []int {
	invars := make([]int, len(m.atoms))
	for i := range m.atoms {
		at := &m.atoms[i]
		mass := 0
		if at.isotope != 0 {
			mass = at.isotope - elements[at.num].isotope
			if mass >= 0 {
				mass++
			}
		}
		mass += 512
		if mass < 0 {
			mass = 0
		} else {
			mass %= 1024
		}
		mapnum := (at.mapNum + 1) % 1024
		invars[i] = ((at.num%128)<<10|mass)<<10 | mapnum
	}
	return m.iterateRanks(invars)
}

// iterateRanks is RDKit's iterateCIPRanks. RDKit appends each round's ranks to a growing
// history per atom; since every round refines the last, comparing histories is comparing the
// current ranks, so each round here splits the classes of equal rank by the atoms' neighbour
// lists: every neighbour's rank+1 repeated twice its bond order (once for a double bond to a
// three- or four-coordinate P) in decreasing order, then one 0 per hydrogen.
func (m *mol) iterateRanks(invars []int) []int {
	n := len(m.atoms)
	// order holds the atoms sorted by rank; classes of equal rank are contiguous in it
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(invars[i], invars[j]) })
	ranks := make([]int, n)
	numRanks := 0
	for k, i := range order {
		if k > 0 && invars[order[k-1]] != invars[i] {
			numRanks++
		}
		ranks[i] = numRanks
	}
	if n > 0 {
		numRanks++
	}
	// each atom's neighbours (flat, nbrAt[i] to nbrAt[i+1]) with their multiplicities, and
	// its entry, the same length every round (entryAt[i] to entryAt[i+1])
	type nbr struct{ atom, count int }
	nbrAt := make([]int, n+1)
	entryAt := make([]int, n+1)
	for i := range m.atoms {
		nbrAt[i+1] = nbrAt[i] + len(m.atoms[i].bonds)
	}
	nbrs := make([]nbr, nbrAt[n])
	hs := make([]int, n)
	for i := range m.atoms {
		hs[i] = m.totalHs(i)
		k, size := nbrAt[i], 0
		for _, b := range m.atoms[i].bonds {
			o := m.bonds[b].other(i)
			c := m.bonds[b].typ.twice()
			if m.bonds[b].typ == BondDouble && m.atoms[o].num == 15 && (m.degree(o) == 3 || m.degree(o) == 4) {
				c = 1
			}
			nbrs[k] = nbr{o, c}
			k++
			size += c
		}
		entryAt[i+1] = entryAt[i] + size
	}
	buf := make([]int, entryAt[n])
	entry := func(i int) []int { return buf[entryAt[i]:entryAt[i+1]] }
	next := make([]int, n)
	key := func(i, j int) int {
		if c := slices.Compare(entry(i), entry(j)); c != 0 {
			return c
		}
		return cmp.Compare(hs[i], hs[j])
	}
	maxIts := n/2 + 1
	for its, last := 0, -1; numRanks < n && its < maxIts && (last < 0 || last < numRanks); its++ {
		last = numRanks
		r := -1
		for lo := 0; lo < n; {
			hi := lo + 1
			for hi < n && ranks[order[hi]] == ranks[order[lo]] {
				hi++
			}
			if hi-lo == 1 {
				r++
				next[order[lo]] = r
				lo = hi
				continue
			}
			class := order[lo:hi]
			for _, i := range class {
				ns := nbrs[nbrAt[i]:nbrAt[i+1]]
				for a := 1; a < len(ns); a++ { // by decreasing rank
					for b := a; b > 0 && ranks[ns[b].atom] > ranks[ns[b-1].atom]; b-- {
						ns[b], ns[b-1] = ns[b-1], ns[b]
					}
				}
				e := entry(i)[:0]
				for _, nb := range ns {
					for range nb.count {
						e = append(e, ranks[nb.atom]+1)
					}
				}
			}
			slices.SortFunc(class, key)
			for k, i := range class {
				if k == 0 || key(class[k-1], i) != 0 {
					r++
				}
				next[i] = r
			}
			lo = hi
		}
		ranks, next = next, ranks
		numRanks = r + 1
	}
	return ranks
}

// rerankAtoms is RDKit's rerankAtoms: the ranks refined with the stereo found so far (R
// above S above none, Z and E double bonds).
func (m *mol) rerankAtoms(ranks []int) {
	factor := 100
	for factor < len(m.atoms) {
		factor *= 10
	}
	invars := make([]int, len(m.atoms))
	for i := range m.atoms {
		invars[i] = ranks[i] * factor
		switch m.atoms[i].cip {
		case 'S':
			invars[i] += 10
		case 'R':
			invars[i] += 20
		}
		for _, b := range m.atoms[i].bonds {
			if m.bonds[b].typ == BondDouble {
				switch m.bonds[b].stereo {
				case StereoE:
					invars[i]++
				case StereoZ:
					invars[i] += 2
				}
			}
		}
	}
	copy(ranks, m.iterateRanks(invars))
}

// bridgehead is RDKit's queryIsAtomBridgehead: three ring bonds, two of them in rings of the
// set that share at least two bonds.
func (m *mol) bridgehead(a int) bool {
	if m.degree(a) < 3 {
		return false
	}
	mine := map[int]bool{}
	for _, b := range m.atoms[a].bonds {
		if m.rings.numBondRings(b) > 0 {
			mine[b] = true
		}
	}
	if len(mine) < 3 {
		return false
	}
	br := m.rings.bondRings
	for i := range br {
		inI := false
		set := map[int]bool{}
		for _, b := range br[i] {
			set[b] = true
			if mine[b] {
				inI = true
			}
		}
		if !inI {
			continue
		}
		for j := i + 1; j < len(br); j++ {
			overlap, inJ := 0, false
			for _, b := range br[j] {
				if mine[b] {
					inJ = true
				}
				if set[b] {
					overlap++
				}
				if overlap >= 2 && inJ {
					return true
				}
			}
		}
	}
	return false
}

// potentialCentre is RDKit's isAtomPotentialChiralCenter: whether atom a can be a
// tetrahedral centre (four substituents counting hydrogens, or three for P, As, S and Se with
// a double bond or charge, and N in a three-ring or at a bridgehead), whether two neighbours
// rank the same, and its neighbours as (rank, bond) pairs.
func (m *mol) potentialCentre(a int, ranks []int) (legal, dupes bool, nbrs [][2]int) {
	at := &m.atoms[a]
	nz := m.degree(a)
	hs := m.totalHs(a)
	switch {
	case nz+hs > 4, nz+hs < 3:
		return false, false, nil
	case nz < 3 && at.num != 15 && at.num != 33:
		return false, false, nil
	case nz == 3 && hs != 1:
		switch at.num {
		case 7:
			legal = m.rings.atomInRingOfSize(a, 3) || m.bridgehead(a)
		case 15, 33:
			legal = true
		case 16, 34:
			legal = at.explVal == 4 || (at.explVal == 3 && at.charge == 1)
		}
		if !legal {
			return false, false, nil
		}
	}
	for _, b := range at.bonds {
		r := ranks[m.bonds[b].other(a)]
		for _, nb := range nbrs {
			if nb[0] == r {
				return true, true, append(nbrs, [2]int{r, b})
			}
		}
		nbrs = append(nbrs, [2]int{r, b})
	}
	return true, false, nbrs
}

// assignAtomChiralCodes is RDKit's assignAtomChiralCodes with flagPossibleStereoCenters: the
// R/S code of every tagged atom that is a real centre. It reports whether potential centres
// remain without a code and whether any code was assigned.
func (m *mol) assignAtomChiralCodes(ranks *[]int) (unassigned, changed bool) {
	n := 0
	for a := range m.atoms {
		at := &m.atoms[a]
		if at.cip != 0 {
			continue
		}
		if *ranks == nil {
			*ranks = m.cipRanks()
		}
		legal, dupes, nbrs := m.potentialCentre(a, *ranks)
		if legal {
			n++
		}
		if !legal || dupes || at.chiral == ChiralUnspecified || at.chiral == ChiralOther {
			continue
		}
		changed = true
		n--
		slices.SortFunc(nbrs, func(x, y [2]int) int { return cmp.Compare(x[0], y[0]) })
		order := make([]int, len(nbrs))
		for i, nb := range nbrs {
			order[i] = nb[1]
		}
		swaps := m.perturbationOrder(a, order)
		if len(order) == 3 && m.totalHs(a) == 1 {
			swaps++
		}
		tag := at.chiral
		if swaps%2 == 1 {
			if tag == ChiralCCW {
				tag = ChiralCW
			} else {
				tag = ChiralCCW
			}
		}
		at.cip = 'R'
		if tag == ChiralCCW {
			at.cip = 'S'
		}
	}
	return n > 0, changed
}

// dirNeighbour is a neighbour of a double-bond atom with the direction of its bond, seen
// from the double bond.
type dirNeighbour struct {
	atom int
	dir  bondDir
}

// neighbourDirs is RDKit's findAtomNeighborDirHelper: the other neighbours of atom a with
// their bond directions (the missing one set opposite), empty when none is directed or the
// two rank the same.
func (m *mol) neighbourDirs(a, ref int, ranks []int) []dirNeighbour {
	var nbrs []dirNeighbour
	seen := false
	for _, b := range m.atoms[a].bonds {
		if b == ref {
			continue
		}
		bd := &m.bonds[b]
		dir := bd.dir
		if dir != dirNone {
			seen = true
			if a != bd.begin {
				dir = dir.flip()
			}
		}
		nbrs = append(nbrs, dirNeighbour{bd.other(a), dir})
	}
	if !seen {
		return nil
	}
	if len(nbrs) == 2 && ranks[nbrs[0].atom] == ranks[nbrs[1].atom] {
		return nil
	}
	opposite := func(d bondDir) bondDir {
		if d == dirEndDownRight {
			return dirEndUpRight
		}
		return dirEndDownRight
	}
	if nbrs[0].dir == dirNone {
		if len(nbrs) > 1 {
			nbrs[0].dir = opposite(nbrs[1].dir)
		}
	} else if len(nbrs) > 1 && nbrs[1].dir == dirNone {
		nbrs[1].dir = opposite(nbrs[0].dir)
	}
	return nbrs
}

// assignBondStereoCodes is RDKit's assignBondStereoCodes: E or Z for each double bond with
// directed bonds on both sides, none when the directions on one side conflict. It reports
// whether candidate bonds remain unassigned and whether any was assigned.
func (m *mol) assignBondStereoCodes(ranks *[]int) (unassigned, assigned bool) {
	n := 0
	clear := map[int]bool{}
	for bi := range m.bonds {
		b := &m.bonds[bi]
		if b.typ != BondDouble || b.stereo != StereoNone {
			continue
		}
		if *ranks == nil {
			*ranks = m.cipRanks()
		}
		if !m.detectDoubleBondStereo(bi) {
			continue
		}
		db, de := m.degree(b.begin), m.degree(b.end)
		if db < 2 || db > 3 || de < 2 || de > 3 {
			continue
		}
		n++
		begN := m.neighbourDirs(b.begin, bi, *ranks)
		endN := m.neighbourDirs(b.end, bi, *ranks)
		if len(begN) == 0 || len(endN) == 0 {
			continue
		}
		pick := func(ns []dirNeighbour) dirNeighbour {
			if len(ns) == 1 || (*ranks)[ns[0].atom] > (*ranks)[ns[1].atom] {
				return ns[0]
			}
			return ns[1]
		}
		conflict := func(ns []dirNeighbour, centre int) bool {
			if len(ns) == 2 && ns[0].dir == ns[1].dir {
				clear[m.bondBetween(ns[0].atom, centre)] = true
				clear[m.bondBetween(ns[1].atom, centre)] = true
				return true
			}
			return false
		}
		cb, ce := conflict(begN, b.begin), conflict(endN, b.end)
		switch {
		case cb || ce:
			b.stereo = StereoNone
		case pick(begN).dir == pick(endN).dir:
			b.stereo = StereoZ
		default:
			b.stereo = StereoE
		}
		assigned = true
		n--
	}
	for bi := range clear {
		if bi >= 0 {
			m.bonds[bi].dir = dirNone
		}
	}
	return n > 0, assigned
}

// ringStereoCandidate is RDKit's atomIsCandidateForRingStereochem.
func (m *mol) ringStereoCandidate(a int, ranks []int) bool {
	if m.rings.numAtomRings(a) == 0 {
		return false
	}
	if m.atoms[a].num == 7 && m.degree(a) == 3 && !m.rings.atomInRingOfSize(a, 3) && !m.bridgehead(a) {
		return false
	}
	var nonRing, ring []int
	ringRanks := map[int]bool{}
	for _, b := range m.atoms[a].bonds {
		o := m.bonds[b].other(a)
		if m.rings.numBondRings(b) == 0 {
			nonRing = append(nonRing, o)
		} else {
			ring = append(ring, o)
			ringRanks[ranks[o]] = true
		}
	}
	switch len(nonRing) {
	case 2:
		return ranks[nonRing[0]] != ranks[nonRing[1]]
	case 1:
		return len(ring) >= 2
	case 0:
		return (len(ring) == 4 && len(ringRanks) == 3) || (len(ring) == 3 && len(ringRanks) == 2)
	}
	return false
}

// findChiralAtomSpecialCases is RDKit's findChiralAtomSpecialCases: tagged ring atoms without
// a code that pair with another such atom of their ring system (cis/trans ring stereo). It
// returns which atoms are special cases and which have ring-stereo partners.
func (m *mol) findChiralAtomSpecialCases(ranks []int) (special, partners []bool) {
	n := len(m.atoms)
	special = make([]bool, n)
	partners = make([]bool, n)
	seen := make([]bool, n)
	used := make([]bool, n)
	bondSeen := make([]bool, len(m.bonds))
	for a := range m.atoms {
		at := &m.atoms[a]
		if seen[a] || at.chiral == ChiralUnspecified || at.cip != 0 || m.rings.numAtomRings(a) == 0 || !m.ringStereoCandidate(a, ranks) {
			continue
		}
		var next []int
		for _, b := range at.bonds {
			if bondSeen[b] {
				continue
			}
			bondSeen[b] = true
			if m.rings.numBondRings(b) > 0 {
				if o := m.bonds[b].other(a); !seen[o] {
					next = append(next, o)
					used[o] = true
				}
			}
		}
		// RDKit starts from the atom's earlier partners only when it has ring bonds left to explore
		found := len(next) > 0 && partners[a]
		for len(next) > 0 {
			r := next[0]
			next = next[1:]
			seen[r] = true
			if m.atoms[r].chiral != ChiralUnspecified && m.atoms[r].cip == 0 && m.ringStereoCandidate(r, ranks) {
				found = true
				partners[r] = true
				special[r], special[a] = true, true
			}
			for _, b := range m.atoms[r].bonds {
				if bondSeen[b] {
					continue
				}
				bondSeen[b] = true
				if m.rings.numBondRings(b) > 0 {
					if o := m.bonds[b].other(r); !seen[o] && !used[o] {
						next = append(next, o)
						used[o] = true
					}
				}
			}
		}
		if found {
			partners[a] = true
		} else {
			special[a] = false
		}
		seen[a] = true
	}
	return special, partners
}
