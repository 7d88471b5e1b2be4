package smiles

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Bemis–Murcko scaffolds as RDKit's MurckoScaffold.MurckoScaffoldSmiles(includeChirality=
// False) computes them, the grouping of OGB's scaffold splits. RDKit's MurckoDecompose keeps
// the ring atoms and the atoms on paths between rings, plus atoms double-bonded to those (the
// O of a ring C=O, of an amide linker); a removed substituent leaves an explicit H on an
// aromatic heteroatom or aromatic carbocation it was bonded to ([nH]), and resets the
// hydrogens of a bracket or chiral atom to implicit ones; aromatic flags are kept, valences
// recomputed. The scaffold SMILES is then RDKit's canonical SMILES without isotopes or
// stereo. ScaffoldKey does not write that SMILES: it returns a canonical form of the same
// labelled graph (element, aromaticity, charge, hydrogen count and atom class of each atom,
// bond types), equal for two molecules exactly when their scaffold graphs are isomorphic,
// which is when RDKit's canonical scaffold SMILES are equal.

// ScaffoldKey returns a canonical key of the molecule's Bemis–Murcko scaffold: two molecules
// have the same key exactly when RDKit gives them the same scaffold SMILES
// (MurckoScaffoldSmiles with includeChirality=False). A molecule without rings has the
// empty scaffold, key "". The key is a canonical description of the scaffold graph, not a
// SMILES. Errors are *Error values: a scaffold whose valences RDKit would reject, or one too
// symmetric to canonicalise within a fixed budget.
func (mol *Molecule) ScaffoldKey() (string, error) {
	sc, err := mol.m.murcko()
	if err != nil {
		return "", err
	}
	// A disconnected scaffold is the multiset of its parts: canonical keys of the parts,
	// sorted, so that identical parts never multiply the search.
	var keys []string
	for _, frag := range sc.fragments() {
		k, err := sc.subgraph(frag).canonicalKey()
		if err != nil {
			return "", err
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, " . "), nil
}

// subgraph returns the molecule made of the given atoms and the bonds between them.
func (m *mol) subgraph(atoms []int) *mol {
	index := make(map[int]int, len(atoms))
	sub := &mol{}
	for _, a := range atoms {
		index[a] = len(sub.atoms)
		at := m.atoms[a]
		at.bonds = nil
		sub.atoms = append(sub.atoms, at)
	}
	for _, b := range m.bonds {
		u, okU := index[b.begin]
		v, okV := index[b.end]
		if okU && okV {
			b.begin, b.end = u, v
			sub.addBond(b)
		}
	}
	return sub
}

// murcko is RDKit's MurckoDecompose followed by GetScaffoldForMol's UpdatePropertyCache.
func (m *mol) murcko() (*mol, error) {
	n := len(m.atoms)
	keep := make([]bool, n)
	deg := make([]int, n)
	var leaves []int
	for a := range m.atoms {
		keep[a] = true
		deg[a] = m.degree(a)
		if m.rings.numAtomRings(a) == 0 && deg[a] <= 1 {
			leaves = append(leaves, a)
		}
	}
	// Atoms on paths between rings are what is left of the acyclic parts after pruning
	// their ends: a non-ring atom only has bridges, so any path between two ring atoms
	// through it is the only one.
	for len(leaves) > 0 {
		a := leaves[len(leaves)-1]
		leaves = leaves[:len(leaves)-1]
		if !keep[a] {
			continue
		}
		keep[a] = false
		for _, b := range m.atoms[a].bonds {
			o := m.bonds[b].other(a)
			if keep[o] {
				deg[o]--
				if m.rings.numAtomRings(o) == 0 && deg[o] <= 1 {
					leaves = append(leaves, o)
				}
			}
		}
	}
	atoms := slices.Clone(m.atoms)
	remove := make([]bool, n)
	for a := range m.atoms {
		if keep[a] {
			continue
		}
		remove[a] = true
		for _, b := range m.atoms[a].bonds {
			o := m.bonds[b].other(a)
			if !keep[o] {
				continue
			}
			nb := &atoms[o]
			if m.bonds[b].typ == BondDouble {
				remove[a] = false
				break
			}
			switch {
			case nb.aromatic && nb.num != 6, nb.aromatic && nb.num == 6 && nb.charge == 1:
				nb.hs = 1
			case nb.noImplicit || nb.chiral != ChiralUnspecified:
				nb.noImplicit, nb.hs, nb.chiral = false, 0, ChiralUnspecified
			}
		}
	}
	sc := &mol{}
	index := make([]int, n)
	for a := range atoms {
		index[a] = -1
		if !remove[a] {
			index[a] = len(sc.atoms)
			at := atoms[a]
			at.bonds = nil
			sc.atoms = append(sc.atoms, at)
		}
	}
	for _, b := range m.bonds {
		if index[b.begin] >= 0 && index[b.end] >= 0 {
			b.begin, b.end = index[b.begin], index[b.end]
			sc.addBond(b)
		}
	}
	for a := range sc.atoms {
		if err := sc.updatePropertyCache(a, true); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// canonicalKey returns a canonical string of the labelled graph by McKay's
// individualisation-refinement: the atoms are partitioned into ordered cells, refined until
// every atom of a cell sees the same number of neighbours of each kind in every cell; then
// each atom of the first ambiguous cell is individualised in turn, and the smallest
// description over the leaves of the search (where all cells are single atoms) is the key.
// A leaf with the same description as the first one reveals an automorphism; the branch it
// lies in mirrors the first one and is left, and the automorphisms prune the atoms of the
// first path's cells that are equivalent to ones already explored, so that symmetric
// scaffolds stay cheap.
func (m *mol) canonicalKey() (string, error) {
	n := len(m.atoms)
	labels := make([]string, n)
	for a := range m.atoms {
		at := &m.atoms[a]
		sym := elements[at.num].symbol
		if at.aromatic {
			sym = strings.ToLower(sym)
		}
		labels[a] = fmt.Sprintf("%s%+dH%d", sym, at.charge, m.totalHs(a))
		if at.mapNum >= 0 {
			labels[a] += ":" + strconv.Itoa(at.mapNum)
		}
	}
	s := &canonSearch{
		m: m, labels: labels, abortTo: -1,
		order: make([]int, n), pos: make([]int, n), cell: make([]int, n), end: make([]int, n),
		count: make([]int, n), inQueue: make([]bool, n),
	}
	for i := range s.order {
		s.order[i] = i
	}
	slices.SortFunc(s.order, func(i, j int) int { return strings.Compare(labels[i], labels[j]) })
	var queue []int
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && labels[s.order[hi]] == labels[s.order[lo]] {
			hi++
		}
		s.end[lo] = hi
		for i := lo; i < hi; i++ {
			s.pos[s.order[i]] = i
			s.cell[s.order[i]] = lo
		}
		queue = append(queue, lo)
		lo = hi
	}
	if err := s.refine(queue); err != nil {
		return "", err
	}
	if err := s.search(0, nil, true); err != nil {
		return "", err
	}
	return s.best, nil
}

// canonSearch is the state of the canonical-form search. The current ordered partition of
// the atoms is order (the atoms cell by cell), pos (each atom's index in order), cell (the
// cell of each atom, named by the index of its first atom in order) and end (for each cell,
// the index after its last atom); changes are logged so that a branch can be undone.
type canonSearch struct {
	m                     *mol
	labels                []string
	order, pos, cell, end []int
	undo                  []change
	// first is the description of the leftmost leaf, firstOrder its atom order and
	// firstPath the atoms individualised on the way; best is the smallest description.
	first, best string
	firstOrder  []int
	firstPath   []int
	autos       []automorphism
	abortTo     int    // depth to unwind to after a leaf equivalent to the first, or -1
	work        int    // refinement steps, bounded by maxCanonWork
	count       []int  // scratch: weighted neighbour counts
	inQueue     []bool // scratch: cells waiting as splitters
}

// change records an overwritten entry of one of the partition's arrays.
type change struct {
	arr      *[]int
	i, value int
}

// set writes v at index i of one of the partition's arrays, logging the old value.
func (s *canonSearch) set(arr *[]int, i, v int) {
	s.undo = append(s.undo, change{arr, i, (*arr)[i]})
	(*arr)[i] = v
}

// rollback undoes the changes logged after mark.
func (s *canonSearch) rollback(mark int) {
	for k := len(s.undo) - 1; k >= mark; k-- {
		c := s.undo[k]
		(*c.arr)[c.i] = c.value
	}
	s.undo = s.undo[:mark]
}

// automorphism is a symmetry of the graph found by the search: the atoms it moves and their
// images (sorted by atom), and fix, the number of atoms of the first path it fixes.
type automorphism struct {
	from, to []int
	fix      int
}

// image returns the atom g maps a to.
func (g *automorphism) image(a int) int {
	if i, ok := slices.BinarySearch(g.from, a); ok {
		return g.to[i]
	}
	return a
}

// maxCanonWork bounds the work of one canonical form (about a second).
const maxCanonWork = 200_000_000

// bondWeight gives each bond type its own digit, base 4096, in neighbour counts.
func bondWeight(t BondType) int { return 1 << (12 * int(t)) }

// spend counts w steps of work, failing beyond maxCanonWork.
func (s *canonSearch) spend(w int) error {
	s.work += w
	if s.work > maxCanonWork {
		return &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: "scaffold too symmetric to canonicalise"}
	}
	return nil
}

// refine splits cells until the partition is equitable, using the cells in queue (and the
// cells they split off) as splitters: a cell splits when its atoms have different numbers of
// neighbours, bond type by bond type, in a splitter. Cells split in increasing order of those
// numbers, so the result depends only on the graph and the starting partition.
func (s *canonSearch) refine(queue []int) error {
	m := s.m
	for _, c := range queue {
		s.inQueue[c] = true
	}
	var touched, cells []int
	for len(queue) > 0 {
		sp := queue[0]
		queue = queue[1:]
		s.inQueue[sp] = false
		touched = touched[:0]
		for i := sp; i < s.end[sp]; i++ {
			a := s.order[i]
			for _, b := range m.atoms[a].bonds {
				o := m.bonds[b].other(a)
				if s.count[o] == 0 {
					touched = append(touched, o)
				}
				s.count[o] += bondWeight(m.bonds[b].typ)
			}
		}
		if err := s.spend(len(touched) + s.end[sp] - sp); err != nil {
			return err
		}
		cells = cells[:0]
		for _, a := range touched {
			cells = append(cells, s.cell[a])
		}
		slices.Sort(cells)
		cells = slices.Compact(cells)
		for _, c := range cells {
			e := s.end[c]
			if e-c < 2 {
				continue
			}
			if err := s.spend(e - c); err != nil {
				return err
			}
			members := slices.Clone(s.order[c:e])
			slices.SortStableFunc(members, func(x, y int) int { return cmp.Compare(s.count[x], s.count[y]) })
			if s.count[members[0]] == s.count[members[len(members)-1]] {
				continue
			}
			wasQueued := s.inQueue[c]
			largest, largestSize := -1, 0
			var starts []int
			for lo := c; lo < e; {
				hi := lo + 1
				for hi < e && s.count[members[hi-c]] == s.count[members[lo-c]] {
					hi++
				}
				s.set(&s.end, lo, hi)
				for i := lo; i < hi; i++ {
					a := members[i-c]
					s.set(&s.order, i, a)
					s.set(&s.pos, a, i)
					s.set(&s.cell, a, lo)
				}
				starts = append(starts, lo)
				if hi-lo > largestSize {
					largest, largestSize = lo, hi-lo
				}
				lo = hi
			}
			for _, st := range starts {
				if (wasQueued || st != largest) && !s.inQueue[st] {
					s.inQueue[st] = true
					queue = append(queue, st)
				}
			}
		}
		for _, a := range touched {
			s.count[a] = 0
		}
	}
	return nil
}

// orbitOf returns the members of the cell reachable from the atoms done by the automorphisms
// that fix the first depth atoms of the first path.
func (s *canonSearch) orbitOf(done, members []int, depth int) map[int]bool {
	reached := map[int]bool{}
	stack := slices.Clone(done)
	for _, d := range done {
		reached[d] = true
	}
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k := range s.autos {
			g := &s.autos[k]
			if g.fix < depth {
				continue
			}
			if b := g.image(a); !reached[b] {
				reached[b] = true
				stack = append(stack, b)
			}
		}
	}
	return reached
}

// search explores the individualisations of the current (equitable) partition, reached by
// individualising the atoms of path; from is a cell index before the first ambiguous cell,
// and onFirst tells whether path leads along the first path.
func (s *canonSearch) search(from int, path []int, onFirst bool) error {
	n := len(s.order)
	target := -1
	for c := from; c < n; c = s.end[c] {
		if s.end[c]-c > 1 {
			target = c
			break
		}
	}
	if err := s.spend(1); err != nil {
		return err
	}
	if target < 0 {
		s.leaf(path)
		return nil
	}
	members := slices.Clone(s.order[target:s.end[target]])
	slices.Sort(members)
	var done []int
	var pruned map[int]bool
	for _, v := range members {
		if onFirst && len(done) > 0 {
			if pruned == nil || !pruned[v] {
				pruned = s.orbitOf(done, members, len(path))
			}
			if pruned[v] {
				continue
			}
		}
		done = append(done, v)
		mark := len(s.undo)
		// v becomes a cell of its own, first in its old cell
		i, u, e := s.pos[v], s.order[target], s.end[target]
		s.set(&s.order, target, v)
		s.set(&s.order, i, u)
		s.set(&s.pos, v, target)
		s.set(&s.pos, u, i)
		s.set(&s.end, target, target+1)
		s.set(&s.end, target+1, e)
		for j := target + 1; j < e; j++ {
			s.set(&s.cell, s.order[j], target+1)
		}
		err := s.refine([]int{target})
		if err == nil {
			err = s.search(target, append(path, v), onFirst && len(done) == 1)
		}
		s.rollback(mark)
		if err != nil {
			return err
		}
		if s.abortTo >= 0 {
			if s.abortTo < len(path) {
				return nil
			}
			s.abortTo = -1
		}
	}
	return nil
}

// leaf handles a discrete partition reached by path.
func (s *canonSearch) leaf(path []int) {
	key := s.describe()
	switch {
	case s.firstOrder == nil:
		s.first, s.best = key, key
		s.firstOrder, s.firstPath = slices.Clone(s.order), slices.Clone(path)
	case key == s.first:
		// this branch mirrors the first one: record the symmetry (atom by atom, the first
		// leaf's order onto this one's) and go back to where the two paths part
		k := 0
		for k < len(path) && k < len(s.firstPath) && path[k] == s.firstPath[k] {
			k++
		}
		g := automorphism{fix: k}
		type pair struct{ a, b int }
		var moved []pair
		for i, a := range s.firstOrder {
			if b := s.order[i]; a != b {
				moved = append(moved, pair{a, b})
			}
		}
		slices.SortFunc(moved, func(x, y pair) int { return cmp.Compare(x.a, y.a) })
		for _, p := range moved {
			g.from = append(g.from, p.a)
			g.to = append(g.to, p.b)
		}
		s.autos = append(s.autos, g)
		s.abortTo = k
	case key < s.best:
		s.best = key
	}
}

// describe writes the graph with the atoms in the order of the current, discrete partition.
func (s *canonSearch) describe() string {
	m := s.m
	var b strings.Builder
	for i, a := range s.order {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.labels[a])
	}
	type edge struct{ u, v, t int }
	edges := make([]edge, 0, len(m.bonds))
	for _, bd := range m.bonds {
		u, v := s.pos[bd.begin], s.pos[bd.end]
		edges = append(edges, edge{min(u, v), max(u, v), int(bd.typ)})
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if c := cmp.Compare(x.u, y.u); c != 0 {
			return c
		}
		return cmp.Compare(x.v, y.v)
	})
	b.WriteByte('|')
	for i, e := range edges {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(e.u))
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(e.v))
		b.WriteByte("?-=#$:"[e.t])
	}
	return b.String()
}
