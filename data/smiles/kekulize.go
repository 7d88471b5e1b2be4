package smiles

import (
	"fmt"
	"slices"
	"strings"
)

// Kekulisation of aromatic input as RDKit 2022.09 does it (Kekulize.cpp): ring systems of the
// symmetrised SSSR (rings sharing a bond), in ring order; in each, the atoms that can take a
// double bond, then a search that places double bonds neighbour by neighbour and backtracks
// (at most 100 times) when an atom is left without one. The Kekulé structure found is the one
// RDKit finds, which matters where a ring is not aromatic again after perception.

const (
	maxBackTracks = 100
	// maxDummyPermutations bounds RDKit's enumeration of which dummy atoms take no double
	// bond (2^n tries for n dummies).
	maxDummyPermutations = 1 << 12
)

// kekulize is RDKit's MolOps::Kekulize with markAtomsBonds = true.
func (m *mol) kekulize() error {
	found := false
	for i := range m.bonds {
		if m.bonds[i].aromatic {
			found = true
		}
	}
	valences := make([]int, len(m.atoms))
	for a := range m.atoms {
		if _, err := m.calcImplicitValence(a, false); err != nil {
			return err
		}
		valences[a] = m.atoms[a].explVal + m.implicitValence(a)
		if m.isAromaticAtom(a) {
			found = true
		}
	}
	if !found {
		return nil
	}
	var arings, brings [][]int
	for i, ring := range m.rings.atomRings {
		for _, a := range ring {
			if m.atoms[a].num != 0 {
				arings = append(arings, ring)
				brings = append(brings, m.rings.bondRings[i])
				break
			}
		}
	}
	neigh := ringNeighbours(brings, 0, 0)
	done := make([]bool, len(arings))
	for curr := 0; curr < len(arings); {
		var fused []int
		pickFusedRings(curr, neigh, &fused, done)
		frings := make([][]int, len(fused))
		for i, ri := range fused {
			frings[i] = arings[ri]
		}
		if err := m.kekulizeFused(frings); err != nil {
			return err
		}
		next := slices.Index(done, false)
		if next < 0 {
			break
		}
		curr = next
	}
	for i := range m.bonds {
		m.bonds[i].aromatic = false
	}
	for a := range m.atoms {
		at := &m.atoms[a]
		if !at.aromatic {
			continue
		}
		if m.rings.numAtomRings(a) == 0 {
			return m.atomErr(Chemistry, a, "non-ring %s marked aromatic", m.describe(a))
		}
		at.aromatic = false
		// pyrrole-type N and P lose the explicit H written as [nH]; it becomes implicit
		if (at.num == 7 || at.num == 15) && at.charge == 0 && at.hs == 1 {
			at.noImplicit = false
			at.hs = 0
			if err := m.updatePropertyCache(a, false); err != nil {
				return err
			}
		}
	}
	for a := range m.atoms {
		if v := m.atoms[a].explVal + m.implicitValence(a); v != valences[a] {
			return m.atomErr(Chemistry, a, "kekulization changed the valence of %s from %d to %d", m.describe(a), valences[a], v)
		}
	}
	return nil
}

// ringNeighbours is RDKit's makeRingNeighborMap: rings (as bond lists) are neighbours when
// they share a bond; rings larger than maxSize have none (0: no limit), and rings sharing
// more than maxOverlap bonds are not neighbours (0: no limit). Neighbour lists ascend.
func ringNeighbours(brings [][]int, maxSize, maxOverlap int) [][]int {
	neigh := make([][]int, len(brings))
	for i := range brings {
		if maxSize > 0 && len(brings[i]) > maxSize {
			continue
		}
		for j := i + 1; j < len(brings); j++ {
			if maxSize > 0 && len(brings[j]) > maxSize {
				continue
			}
			shared := 0
			for _, b := range brings[i] {
				if slices.Contains(brings[j], b) {
					shared++
				}
			}
			if shared > 0 && (maxOverlap == 0 || shared <= maxOverlap) {
				neigh[i] = append(neigh[i], j)
				neigh[j] = append(neigh[j], i)
			}
		}
	}
	for i := range neigh {
		slices.Sort(neigh[i])
	}
	return neigh
}

// pickFusedRings collects the ring system of ring curr by depth-first search (RDKit's
// RingUtils::pickFusedRings).
func pickFusedRings(curr int, neigh [][]int, res *[]int, done []bool) {
	done[curr] = true
	*res = append(*res, curr)
	// iterative form of the recursive search, visiting neighbours in the same order
	type frame struct{ ring, next int }
	frames := []frame{{curr, 0}}
	for len(frames) > 0 {
		f := &frames[len(frames)-1]
		if f.next >= len(neigh[f.ring]) {
			frames = frames[:len(frames)-1]
			continue
		}
		n := neigh[f.ring][f.next]
		f.next++
		if !done[n] {
			done[n] = true
			*res = append(*res, n)
			frames = append(frames, frame{n, 0})
		}
	}
}

// kekulizeFused is RDKit's kekulizeFused for one ring system given as atom rings.
func (m *mol) kekulizeFused(rings [][]int) error {
	var all []int
	inAll := make([]bool, len(m.atoms))
	for _, r := range rings {
		for _, a := range r {
			if !inAll[a] {
				inAll[a] = true
				all = append(all, a)
			}
		}
	}
	cands, questions, done := m.markDoubleBondCandidates(all)
	if cands == nil {
		return nil
	}
	k := &kekulizer{m: m, all: all, inAll: inAll}
	ok, err := k.run(slices.Clone(cands), done)
	if err != nil {
		return err
	}
	if !ok && len(questions) > 0 {
		if ok, err = k.permuteDummies(cands, questions); err != nil {
			return err
		}
	}
	if !ok {
		var unkek []string
		for a, c := range cands {
			if c {
				if len(unkek) == 10 {
					unkek = append(unkek, "...")
					break
				}
				unkek = append(unkek, fmt.Sprint(m.atoms[a].index))
			}
		}
		blame := all[0]
		for _, a := range all {
			if cands[a] {
				blame = a
				break
			}
		}
		return m.atomErr(Chemistry, blame, "can't kekulize the aromatic system; unkekulized atoms %s", strings.Join(unkek, " "))
	}
	return nil
}

// markDoubleBondCandidates is RDKit's markDbondCands: which aromatic atoms of the system must
// take a double bond (nil when the system holds no aromatic or dummy atom), which dummy atoms
// may or may not, and which atoms are done from the start (the non-aromatic ones). It turns
// the aromatic bonds of the system into single bonds.
func (m *mol) markDoubleBondCandidates(all []int) (cands []bool, questions, done []int) {
	hasArom := false
	for _, a := range all {
		if m.atoms[a].num == 0 || m.isAromaticAtom(a) {
			hasArom = true
			break
		}
	}
	if !hasArom {
		return nil, nil, nil
	}
	cands = make([]bool, len(m.atoms))
	notCand := make([]bool, len(m.rings.atomRings))
	for ri, ring := range m.rings.atomRings {
		notCand[ri] = true
		for _, a := range ring {
			if m.isAromaticAtom(a) && m.rings.numAtomRings(a) == 1 {
				notCand[ri] = false
				break
			}
		}
	}
	var makeSingle []int
	seen := make([]bool, len(m.atoms))
	for _, a := range all {
		seen[a] = true
		at := &m.atoms[a]
		if at.num != 0 && !m.isAromaticAtom(a) {
			done = append(done, a)
			continue
		}
		sbo, nToIgnore, nonArNbrs := 0, 0, 0
		for _, b := range at.bonds {
			bd := &m.bonds[b]
			o := bd.other(a)
			if m.atoms[o].num != 0 && !m.atoms[o].aromatic && seen[o] {
				nonArNbrs++
			}
			if bd.aromatic && (bd.typ == BondSingle || bd.typ == BondDouble || bd.typ == BondAromatic) {
				sbo++
				makeSingle = append(makeSingle, b)
			} else {
				c := bd.typ.roundedOrder()
				sbo += c
				if c == 0 {
					nToIgnore++
				}
			}
		}
		nRings := m.rings.numAtomRings(a)
		nNotCand := 0
		for _, ri := range m.rings.atomMembers[a] {
			if notCand[ri] {
				nNotCand++
			}
		}
		if at.num == 0 && nonArNbrs < nRings && nNotCand < nRings {
			cands[a] = true
			questions = append(questions, a)
			continue
		}
		sbo += m.totalHs(a)
		chrg := at.valenceCharge()
		dv := defaultValence(at.num) + chrg
		tbo := at.explVal + m.implicitValence(a)
		nRad := at.radicals
		totalDegree := m.degree(a) + m.implicitValence(a) - nToIgnore
		valList := elements[at.num].valences
		for vi := 1; tbo > dv && vi < len(valList) && valList[vi] > 0; vi++ {
			dv = int(valList[vi]) + chrg
		}
		if tbo == 5 && sbo == 4 && dv == 3 && totalDegree == 3 && nRad == 0 && chrg == 0 && m.totalHs(a) == 0 {
			switch at.num {
			case 7, 15, 33: // aromatic N-oxides such as O=n1ccccc1
				dv = 5
			}
		}
		if totalDegree+nRad >= dv {
			continue
		}
		if dv == sbo+1+nRad || (nRad == 0 && at.noImplicit && dv == sbo+2) {
			cands[a] = true
		}
	}
	for _, b := range makeSingle {
		m.bonds[b].typ = BondSingle
	}
	return cands, questions, done
}

// kekulizer is the state of RDKit's kekulizeWorker over one ring system.
type kekulizer struct {
	m     *mol
	all   []int
	inAll []bool
}

// run is RDKit's kekulizeWorker: place double bonds from atom to atom, remembering the atoms
// that had a choice, and backtrack to the last choice when an atom cannot get one.
func (k *kekulizer) run(cands []bool, done []int) (bool, error) {
	m := k.m
	inDone := make([]int, len(m.atoms))
	for _, a := range done {
		inDone[a]++
	}
	inStack := make([]int, len(m.atoms))
	var stack []int
	options := map[int][]int{}
	lastOpt := -1
	added := make([]bool, len(m.bonds))
	local := make([]bool, len(m.bonds))
	var btMoves []int
	numBT := 0
	for len(done) < len(k.all) || len(stack) > 0 {
		curr := -1
		if len(stack) > 0 {
			curr = stack[0]
			stack = stack[1:]
			inStack[curr]--
		} else {
			for _, a := range k.all {
				if inDone[a] == 0 {
					curr = a
					break
				}
			}
		}
		if curr < 0 {
			return false, nil
		}
		done = append(done, curr)
		inDone[curr]++
		var opts []int
		cand := cands[curr]
		if o, ok := options[curr]; ok {
			opts = slices.Clone(o)
		} else {
			for _, b := range m.atoms[curr].bonds {
				nbr := m.bonds[b].other(curr)
				if inDone[nbr] > 0 || !k.inAll[nbr] {
					continue
				}
				if inStack[nbr] == 0 {
					stack = append(stack, nbr)
					inStack[nbr]++
				}
				if cand && cands[nbr] && (m.bonds[b].aromatic || m.atoms[curr].num == 0 || m.atoms[nbr].num == 0) {
					opts = append(opts, nbr)
				}
			}
		}
		if !cand {
			continue
		}
		if len(opts) > 0 {
			ncnd := opts[0]
			opts = opts[1:]
			b := m.bondBetween(curr, ncnd)
			m.bonds[b].typ = BondDouble
			cands[curr], cands[ncnd] = false, false
			added[b], local[b] = true, true
			if _, ok := options[curr]; ok {
				if len(opts) == 0 {
					delete(options, curr)
					if len(btMoves) > 0 {
						btMoves = btMoves[:len(btMoves)-1]
					}
					lastOpt = -1
					if len(btMoves) > 0 {
						lastOpt = btMoves[len(btMoves)-1]
					}
				} else {
					options[curr] = opts
				}
			} else if len(opts) > 0 {
				lastOpt = curr
				btMoves = append(btMoves, curr)
				options[curr] = opts
			}
		} else if m.atoms[curr].num != 0 {
			if lastOpt >= 0 && numBT < maxBackTracks {
				done = k.backTrack(lastOpt, done, inDone, &stack, inStack, cands, added)
				numBT++
			} else {
				for b, l := range local {
					if l {
						m.bonds[b].typ = BondSingle
					}
				}
				return false, nil
			}
		}
	}
	return true, nil
}

// backTrack is RDKit's backTrack: undo everything done since atom lastOpt made its choice.
func (k *kekulizer) backTrack(lastOpt int, done, inDone []int, stack *[]int, inStack []int, cands, added []bool) []int {
	m := k.m
	first := slices.Index(done, lastOpt)
	if first < 0 {
		first = len(done)
	}
	last := -1
	for i := len(done) - 1; i >= 0; i-- {
		if done[i] == lastOpt {
			last = i
			break
		}
	}
	if last >= 0 {
		redo := slices.Clone(done[last:])
		for _, a := range redo {
			inStack[a]++
		}
		*stack = append(redo, *stack...)
	}
	tdone := done[:first]
	inT := make([]bool, len(m.atoms))
	for _, a := range tdone {
		inT[a] = true
	}
	for b, isAdded := range added {
		if !isAdded {
			continue
		}
		a1, a2 := m.bonds[b].begin, m.bonds[b].end
		if !inT[a1] && !inT[a2] {
			added[b] = false
			m.bonds[b].typ = BondSingle
			cands[a1], cands[a2] = true, true
		}
	}
	for _, a := range done[first:] {
		inDone[a]--
	}
	return slices.Clone(tdone)
}

// permuteDummies is RDKit's permuteDummiesAndKekulize: retry with subsets of the dummy atoms
// taking no double bond.
func (k *kekulizer) permuteDummies(cands []bool, questions []int) (bool, error) {
	m := k.m
	inPlay := make([]bool, len(m.atoms))
	for _, a := range k.all {
		inPlay[a] = true
	}
	limit := 1 << (len(questions) % 32) // RDKit shifts a 32-bit 1
	for pos := 1; pos < limit; pos++ {
		if pos > maxDummyPermutations {
			return false, &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: "too many dummy atoms in an aromatic system to kekulize"}
		}
		for i := range m.bonds {
			b := &m.bonds[i]
			if b.aromatic && b.typ != BondSingle && inPlay[b.begin] && inPlay[b.end] {
				b.typ = BondSingle
			}
		}
		t := slices.Clone(cands)
		for i, q := range questions {
			if pos&(1<<i) != 0 {
				t[q] = false
			}
		}
		ok, err := k.run(t, nil)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}
