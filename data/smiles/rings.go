package smiles

import (
	"slices"
	"strconv"
	"strings"
)

// Ring perception as RDKit 2022.09 does it in sanitisation (FindRings.cpp: findSSSR, then
// symmetrizeSSSR). Whether an atom or bond is in a ring does not depend on the ring set, but
// aromaticity, kekulisation and double-bond stereo read the rings themselves, their order
// and the order of the atoms in each, so the algorithm is reproduced step by step: trimming
// of chains, smallest rings through degree-2 and degree-3 atoms by breadth-first search,
// removal of surplus rings, and the symmetrised extra rings.

// maxBFSQueue is RDKit's MAX_BFSQ_SIZE; maxPathSearch bounds the total work of the
// path search used for highly fused systems, which RDKit leaves unbounded.
const (
	maxBFSQueue   = 200000
	maxPathSearch = 2000000
)

// ringInfo holds the symmetrised SSSR: rings as atom lists and as bond lists, and for each
// atom and bond the rings containing it.
type ringInfo struct {
	atomRings, bondRings [][]int
	atomMembers          [][]int
	bondMembers          [][]int
}

func (r *ringInfo) numAtomRings(a int) int { return len(r.atomMembers[a]) }
func (r *ringInfo) numBondRings(b int) int { return len(r.bondMembers[b]) }

// atomInRingOfSize reports whether atom a is in a ring of the set with n atoms.
func (r *ringInfo) atomInRingOfSize(a, n int) bool {
	for _, ri := range r.atomMembers[a] {
		if len(r.atomRings[ri]) == n {
			return true
		}
	}
	return false
}

// minBondRingSize returns the size of the smallest ring of the set containing bond b, 0 if none.
func (r *ringInfo) minBondRingSize(b int) int {
	best := 0
	for _, ri := range r.bondMembers[b] {
		if n := len(r.bondRings[ri]); best == 0 || n < best {
			best = n
		}
	}
	return best
}

// ringBonds converts a ring given as atoms in cyclic order to its bonds.
func (m *mol) ringBonds(ring []int) []int {
	bs := make([]int, len(ring))
	for i := range ring {
		bs[i] = m.bondBetween(ring[i], ring[(i+1)%len(ring)])
	}
	return bs
}

// setRings stores the given rings as the molecule's ring information.
func (m *mol) setRings(rings [][]int) {
	r := ringInfo{atomMembers: make([][]int, len(m.atoms)), bondMembers: make([][]int, len(m.bonds))}
	for i, ring := range rings {
		bs := m.ringBonds(ring)
		r.atomRings = append(r.atomRings, ring)
		r.bondRings = append(r.bondRings, bs)
		for _, a := range ring {
			r.atomMembers[a] = append(r.atomMembers[a], i)
		}
		for _, b := range bs {
			r.bondMembers[b] = append(r.bondMembers[b], i)
		}
	}
	m.rings = r
}

// ringKey identifies a ring by its set of atoms (RDKit's ring invariant).
func ringKey(ring []int) string {
	s := slices.Clone(ring)
	slices.Sort(s)
	var b strings.Builder
	for i, a := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(a))
	}
	return b.String()
}

// compareRingSets orders two rings as boost::dynamic_bitset orders their atom sets: as binary
// numbers with bit i for atom i.
func compareRingSets(x, y []int) int {
	a, b := slices.Clone(x), slices.Clone(y)
	slices.Sort(a)
	slices.Sort(b)
	i, j := len(a)-1, len(b)-1
	for i >= 0 && j >= 0 {
		switch {
		case a[i] > b[j]:
			return 1
		case a[i] < b[j]:
			return -1
		}
		i--
		j--
	}
	switch {
	case i >= 0:
		return 1
	case j >= 0:
		return -1
	}
	return 0
}

// ringFinder is the state of RDKit's findSSSR.
type ringFinder struct {
	m           *mol
	activeBonds []bool
	degrees     []int
	ringBonds   []bool
	ringAtoms   []bool
	invars      map[string]bool
	work        int // steps of the path search so far
	// workspace of the breadth-first searches
	color                 []uint8
	parent, depth, branch []int
	queue                 []int
}

// addRing appends ring to res unless a ring with the same atoms was found before.
func (f *ringFinder) addRing(res *[][]int, ring []int) bool {
	k := ringKey(ring)
	if f.invars[k] {
		return false
	}
	f.invars[k] = true
	*res = append(*res, ring)
	return true
}

// markRing records the atoms and bonds of a new ring as ring atoms and bonds.
func (f *ringFinder) markRing(ring []int) {
	for _, b := range f.m.ringBonds(ring) {
		if b >= 0 {
			f.ringBonds[b] = true
		}
	}
	for _, a := range ring {
		f.ringAtoms[a] = true
	}
}

// perceiveRings computes RDKit's symmetrised SSSR (symmetrizeSSSR: the SSSR plus the surplus
// rings that could replace one of its rings) and stores it as the ring information.
func (m *mol) perceiveRings() error {
	sssr, extras, err := m.findSSSR()
	if err != nil {
		return err
	}
	res := slices.Clone(sssr)
	if len(extras) > 0 {
		// An extra ring replaces a ring of the SSSR of the same size if it provides every
		// bond that ring alone provides.
		counts := make([]int, len(m.bonds))
		bsssr := make([][]int, len(sssr))
		for i, r := range sssr {
			bsssr[i] = m.ringBonds(r)
			for _, b := range bsssr[i] {
				counts[b]++
			}
		}
		for _, extra := range extras {
			eb := m.ringBonds(extra)
			for _, ring := range bsssr {
				if len(ring) != len(eb) {
					continue
				}
				share, replaces := false, true
				for _, b := range ring {
					if counts[b] == 1 || !share {
						if slices.Contains(eb, b) {
							share = true
						} else if counts[b] == 1 {
							replaces = false
						}
					}
				}
				if share && replaces {
					res = append(res, extra)
					break
				}
			}
		}
	}
	m.setRings(res)
	return nil
}

// fragments returns the connected components, each as ascending atom indices, ordered by
// their smallest atom.
func (m *mol) fragments() [][]int {
	comp := make([]int, len(m.atoms))
	for i := range comp {
		comp[i] = -1
	}
	var frags [][]int
	for s := range m.atoms {
		if comp[s] >= 0 {
			continue
		}
		id := len(frags)
		comp[s] = id
		stack := []int{s}
		members := []int{}
		for len(stack) > 0 {
			a := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			members = append(members, a)
			for _, b := range m.atoms[a].bonds {
				if o := m.bonds[b].other(a); comp[o] < 0 {
					comp[o] = id
					stack = append(stack, o)
				}
			}
		}
		slices.Sort(members)
		frags = append(frags, members)
	}
	return frags
}

// minSet is the std::set<int> of atoms RDKit trims, taken smallest first: a binary heap
// over atom indices without duplicates.
type minSet struct {
	heap []int
	in   []bool
}

func newMinSet(n int) *minSet { return &minSet{in: make([]bool, n)} }

func (s *minSet) empty() bool { return len(s.heap) == 0 }

func (s *minSet) add(x int) {
	if s.in[x] {
		return
	}
	s.in[x] = true
	s.heap = append(s.heap, x)
	for i := len(s.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if s.heap[p] <= s.heap[i] {
			break
		}
		s.heap[p], s.heap[i] = s.heap[i], s.heap[p]
		i = p
	}
}

func (s *minSet) popMin() int {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(h) && h[l] < h[small] {
			small = l
		}
		if l+1 < len(h) && h[l+1] < h[small] {
			small = l + 1
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	s.heap = h
	s.in[top] = false
	return top
}

// findSSSR is RDKit's MolOps::findSSSR. It returns the rings and the surplus rings found on
// the way (RDKit's extraRings property, which only keeps those of the last fragment that
// had any).
func (m *mol) findSSSR() (res, extras [][]int, err error) {
	n := len(m.atoms)
	f := &ringFinder{
		m:           m,
		activeBonds: make([]bool, len(m.bonds)),
		degrees:     make([]int, n),
		ringBonds:   make([]bool, len(m.bonds)),
		ringAtoms:   make([]bool, n),
		invars:      map[string]bool{},
	}
	for i := range f.activeBonds {
		f.activeBonds[i] = true
	}
	for i := range m.atoms {
		f.degrees[i] = m.degree(i)
	}
	for _, frag := range m.fragments() {
		if len(frag) < 3 {
			continue
		}
		changed := newMinSet(n)
		nbonds := 0
		for _, a := range frag {
			nbonds += f.degrees[a]
			if f.degrees[a] < 2 {
				changed.add(a)
			}
		}
		nbonds /= 2
		nexpt := nbonds - len(frag) + 1
		if nexpt < 1 {
			continue
		}
		var fragRes [][]int
		done := make([]bool, n)
		nDone := 0
		for nDone < len(frag) {
			for !changed.empty() {
				c := changed.popMin()
				if !done[c] {
					done[c] = true
					nDone++
					f.trimBonds(c, changed, f.degrees, f.activeBonds)
				}
			}
			d2 := f.pickD2Nodes(frag)
			if len(d2) > 0 {
				if err := f.findRingsD2Nodes(&fragRes, d2); err != nil {
					return nil, nil, err
				}
				for _, c := range d2 {
					done[c] = true
					nDone++
					f.trimBonds(c, changed, f.degrees, f.activeBonds)
				}
			} else if nDone < len(frag) {
				cand := -1
				for _, a := range frag {
					if f.degrees[a] == 3 {
						cand = a
						break
					}
				}
				if cand < 0 {
					break
				}
				if err := f.findRingsD3Node(&fragRes, cand); err != nil {
					return nil, nil, err
				}
				done[cand] = true
				nDone++
				f.trimBonds(cand, changed, f.degrees, f.activeBonds)
			}
		}
		if len(fragRes) < nexpt {
			if err := f.findMissingRings(&fragRes, nbonds); err != nil {
				return nil, nil, err
			}
			if len(fragRes) < nexpt {
				// RDKit gives up on the SSSR and switches to its approximate ring finder.
				return m.fastFindRings(), extras, nil
			}
		}
		if len(fragRes) > nexpt {
			fragRes, extras = m.removeExtraRings(fragRes)
		}
		res = append(res, fragRes...)
	}
	return res, extras, nil
}

// trimBonds removes the active bonds of atom c (RDKit's trimBonds), noting neighbours that
// may become chain ends.
func (f *ringFinder) trimBonds(c int, changed *minSet, degrees []int, active []bool) {
	for _, b := range f.m.atoms[c].bonds {
		if !active[b] {
			continue
		}
		o := f.m.bonds[b].other(c)
		if degrees[o] <= 2 {
			changed.add(o)
		}
		active[b] = false
		degrees[o]--
		degrees[c]--
	}
}

// pickD2Nodes picks one degree-2 atom per chain of degree-2 atoms (RDKit's pickD2Nodes).
func (f *ringFinder) pickD2Nodes(frag []int) []int {
	var d2 []int
	forb := make(map[int]bool)
	for {
		root := -1
		for _, a := range frag {
			if f.degrees[a] == 2 && !forb[a] {
				root = a
				break
			}
		}
		if root < 0 {
			return d2
		}
		d2 = append(d2, root)
		forb[root] = true
		stack := []int{root}
		for len(stack) > 0 {
			a := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, b := range f.m.atoms[a].bonds {
				if !f.activeBonds[b] {
					continue
				}
				if o := f.m.bonds[b].other(a); !forb[o] && f.degrees[o] == 2 {
					forb[o] = true
					stack = append(stack, o)
				}
			}
		}
	}
}

// findRingsD2Nodes is RDKit's findRingsD2nodes: the smallest rings through each chosen
// degree-2 atom, then another search for atoms that found the same ring.
func (f *ringFinder) findRingsD2Nodes(res *[][]int, d2 []int) error {
	type dupCand struct {
		ring  []int
		nodes []int
	}
	var dups []*dupCand
	dupIndex := map[string]*dupCand{}
	nodeInvars := map[int][]string{}
	var nodeOrder []int
	dupMap := map[int][]int{}
	for _, cand := range d2 {
		srings, err := f.smallestRingsBFS(cand, f.activeBonds, -1)
		if err != nil {
			return err
		}
		for _, ring := range srings {
			k := ringKey(ring)
			if f.addRing(res, ring) {
				f.markRing(ring)
			}
			if _, ok := nodeInvars[cand]; !ok {
				i, _ := slices.BinarySearch(nodeOrder, cand)
				nodeOrder = slices.Insert(nodeOrder, i, cand)
			}
			nodeInvars[cand] = append(nodeInvars[cand], k)
			for _, node := range nodeOrder {
				if node != cand && slices.Contains(nodeInvars[node], k) {
					dupMap[cand] = append(dupMap[cand], node)
					dupMap[node] = append(dupMap[node], cand)
				}
			}
			d := dupIndex[k]
			if d == nil {
				d = &dupCand{ring: ring}
				dupIndex[k] = d
				dups = append(dups, d)
			}
			d.nodes = append(d.nodes, cand)
		}
		if len(srings) == 0 {
			changed := newMinSet(len(f.m.atoms))
			changed.add(cand)
			for !changed.empty() {
				f.trimBonds(changed.popMin(), changed, f.degrees, f.activeBonds)
			}
		}
	}
	// RDKit's findSSSRforDupCands, visiting the duplicated rings in bitset order.
	slices.SortFunc(dups, func(x, y *dupCand) int { return compareRingSets(x.ring, y.ring) })
	for _, d := range dups {
		if len(d.nodes) < 2 {
			continue
		}
		var nrings [][]int
		minSize := -1
		for _, c := range d.nodes {
			degrees := slices.Clone(f.degrees)
			active := slices.Clone(f.activeBonds)
			changed := newMinSet(len(f.m.atoms))
			for _, o := range dupMap[c] {
				f.trimBonds(o, changed, degrees, active)
			}
			srings, err := f.smallestRingsBFS(c, active, -1)
			if err != nil {
				return err
			}
			for _, r := range srings {
				if minSize < 0 || len(r) < minSize {
					minSize = len(r)
				}
				nrings = append(nrings, r)
			}
		}
		for _, r := range nrings {
			if len(r) == minSize {
				f.addRing(res, r)
			}
		}
	}
	return nil
}

// findRingsD3Node is RDKit's findRingsD3Node: up to three rings through a degree-3 atom.
func (f *ringFinder) findRingsD3Node(res *[][]int, cand int) error {
	srings, err := f.smallestRingsBFS(cand, f.activeBonds, -1)
	if err != nil {
		return err
	}
	for _, r := range srings {
		f.addRing(res, r)
	}
	nsmall := len(srings)
	if nsmall >= 3 || nsmall == 0 {
		return nil
	}
	var nbrs []int
	for _, b := range f.m.atoms[cand].bonds {
		if f.activeBonds[b] && len(nbrs) < 3 {
			nbrs = append(nbrs, f.m.bonds[b].other(cand))
		}
	}
	if len(nbrs) < 3 {
		return &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: "ring perception failed: neighbour not found"}
	}
	add := func(forbidden int) error {
		rings, err := f.smallestRingsBFS(cand, f.activeBonds, forbidden)
		if err != nil {
			return err
		}
		for _, r := range rings {
			f.addRing(res, r)
		}
		return nil
	}
	if nsmall == 2 {
		for _, n := range nbrs {
			if slices.Contains(srings[0], n) && slices.Contains(srings[1], n) {
				return add(n)
			}
		}
		return &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: "ring perception failed: third ring not found"}
	}
	var f1, f2 int
	switch {
	case !slices.Contains(srings[0], nbrs[0]):
		f1, f2 = nbrs[1], nbrs[2]
	case !slices.Contains(srings[0], nbrs[1]):
		f1, f2 = nbrs[0], nbrs[2]
	case !slices.Contains(srings[0], nbrs[2]):
		f1, f2 = nbrs[0], nbrs[1]
	default:
		return &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: "ring perception failed: rings not found"}
	}
	if err := add(f2); err != nil {
		return err
	}
	return add(f1)
}

// smallestRingsBFS is RDKit's BFSWorkspace::smallestRingsBfs: all smallest rings through
// root along active bonds, avoiding atom forbidden (when >= 0).
func (f *ringFinder) smallestRingsBFS(root int, active []bool, forbidden int) ([][]int, error) {
	const white, gray, black = 0, 1, 2
	m := f.m
	n := len(m.atoms)
	if len(f.color) != n {
		f.color, f.parent, f.depth, f.branch = make([]uint8, n), make([]int, n), make([]int, n), make([]int, n)
	}
	// branch is the root's neighbour each atom was reached through
	color, parent, depth, branch := f.color, f.parent, f.depth, f.branch
	for i := range parent {
		color[i], parent[i], depth[i], branch[i] = white, -1, 0, -1
	}
	if forbidden >= 0 {
		color[forbidden] = black
	}
	queue := append(f.queue[:0], root)
	defer func() { f.queue = queue[:0] }()
	var rings [][]int
	curSize := int(^uint(0) >> 1)
	for head := 0; head < len(queue); {
		if len(queue)-head >= maxBFSQueue {
			return nil, &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: "ring perception: maximum breadth-first search size exceeded"}
		}
		curr := queue[head]
		head++
		color[curr] = black
		d := depth[curr] + 1
		if d > curSize {
			break
		}
		for _, b := range m.atoms[curr].bonds {
			if !active[b] {
				continue
			}
			nbr := m.bonds[b].other(curr)
			if color[nbr] == black || parent[curr] == nbr {
				continue
			}
			if color[nbr] == white {
				parent[nbr] = curr
				color[nbr] = gray
				depth[nbr] = d
				branch[nbr] = branch[curr]
				if curr == root {
					branch[nbr] = nbr
				}
				queue = append(queue, nbr)
				continue
			}
			// a second path to nbr: stitch the two paths into a ring through root, unless
			// they meet before the root (which RDKit finds by walking them)
			if branch[curr] == branch[nbr] {
				continue
			}
			ring := []int{nbr}
			for p := parent[nbr]; p != -1 && p != root; p = parent[p] {
				ring = append(ring, p)
			}
			back := []int{curr}
			ok := true
			for p := parent[curr]; p != -1; p = parent[p] {
				if slices.Contains(ring, p) || slices.Contains(back, p) {
					ok = false
					break
				}
				back = append(back, p)
			}
			if !ok {
				continue
			}
			slices.Reverse(back)
			ring = append(back, ring...)
			if len(ring) > 1 {
				if len(ring) <= curSize {
					curSize = len(ring)
					rings = append(rings, ring)
				} else {
					return rings, nil
				}
			}
		}
	}
	return rings, nil
}

// findMissingRings is RDKit's fix for highly fused systems (its issue 3514824): rings through
// bonds between ring atoms that no ring found so far contains. RDKit scans bond indices below
// the fragment's bond count, which is reproduced.
func (f *ringFinder) findMissingRings(res *[][]int, nbonds int) error {
	m := f.m
	dead := make([]bool, len(m.bonds))
	next := func() int {
		for i := 0; i < nbonds && i < len(m.bonds); i++ {
			b := &m.bonds[i]
			if !f.ringBonds[i] && !dead[i] && f.ringAtoms[b.begin] && f.ringAtoms[b.end] {
				return i
			}
		}
		return -1
	}
	for b := next(); b >= 0; b = next() {
		ring, found, err := f.atomSearchBFS(m.bonds[b].begin, m.bonds[b].end)
		if err != nil {
			return err
		}
		if found && f.addRing(res, ring) {
			f.markRing(ring)
		}
		if !f.ringBonds[b] {
			dead[b] = true
		}
	}
	return nil
}

// atomSearchBFS is RDKit's _atomSearchBFS: the shortest path of ring atoms from start to end
// (not through their bond) that closes a ring not yet found.
func (f *ringFinder) atomSearchBFS(start, end int) ([]int, bool, error) {
	m := f.m
	type node struct{ atom, parent int }
	nodes := []node{{start, -1}}
	queue := []int{0}
	path := func(i int) []int {
		var p []int
		for ; i >= 0; i = nodes[i].parent {
			p = append(p, nodes[i].atom)
		}
		slices.Reverse(p)
		return p
	}
	onPath := func(i, a int) bool {
		for ; i >= 0; i = nodes[i].parent {
			if nodes[i].atom == a {
				return true
			}
		}
		return false
	}
	for len(queue) > 0 {
		if len(queue) >= maxBFSQueue || f.work > maxPathSearch {
			return nil, false, &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: "ring perception: maximum breadth-first search size exceeded"}
		}
		cur := queue[0]
		queue = queue[1:]
		a := nodes[cur].atom
		for _, b := range m.atoms[a].bonds {
			f.work++
			nbr := m.bonds[b].other(a)
			if nbr == end {
				if a != start {
					ring := append(path(cur), nbr)
					if !f.invars[ringKey(ring)] {
						return ring, true, nil
					}
				}
			} else if f.ringAtoms[nbr] && !onPath(cur, nbr) {
				nodes = append(nodes, node{nbr, cur})
				queue = append(queue, len(nodes)-1)
			}
		}
	}
	return nil, false, nil
}

// removeExtraRings is RDKit's removeExtraRings: sorted by size, a ring is kept when it adds a
// bond to those of the rings kept so far, preferring among rings of one size those that
// overlap most with what is kept. It returns the kept rings and the surplus ones. (RDKit
// recomputes the overlaps with bit sets; here they are kept up to date as bonds join the
// union, which gives the same choices.)
func (m *mol) removeExtraRings(rings [][]int) (kept, extras [][]int) {
	res := slices.Clone(rings)
	slices.SortStableFunc(res, func(x, y []int) int { return len(x) - len(y) })
	bonds := make([][]int, len(res))
	ringsOf := make([][]int, len(m.bonds))
	for i, r := range res {
		bonds[i] = m.ringBonds(r)
		for _, b := range bonds[i] {
			if b >= 0 {
				ringsOf[b] = append(ringsOf[b], i)
			}
		}
	}
	inUnion := make([]bool, len(m.bonds))
	overlap := make([]int, len(res)) // bonds of each ring already in the union
	subset := func(i int) bool { return overlap[i] == len(bonds[i]) }
	merge := func(i int) {
		for _, b := range bonds[i] {
			if b >= 0 && !inUnion[b] {
				inUnion[b] = true
				for _, j := range ringsOf[b] {
					overlap[j]++
				}
			}
		}
	}
	avail := make([]bool, len(res))
	keep := make([]bool, len(res))
	for i := range avail {
		avail[i] = true
	}
	for i := range res {
		if subset(i) {
			avail[i] = false
		}
		if !avail[i] {
			continue
		}
		merge(i)
		keep[i] = true
		var consider []int
		for j := i + 1; j < len(res) && len(res[j]) == len(res[i]); j++ {
			if avail[j] {
				consider = append(consider, j)
			}
		}
		for len(consider) > 0 {
			best := 0
			for k, j := range consider {
				if overlap[j] > overlap[consider[best]] {
					best = k
				}
			}
			j := consider[best]
			consider = append(consider[:best], consider[best+1:]...)
			if !subset(j) {
				keep[j] = true
				merge(j)
			}
			avail[j] = false
		}
	}
	for i, r := range res {
		if keep[i] {
			kept = append(kept, r)
		} else {
			extras = append(extras, r)
		}
	}
	return kept, extras
}

// fastFindRings is RDKit's approximate ring finder (a depth-first search), which findSSSR
// falls back to when it cannot find enough rings.
func (m *mol) fastFindRings() [][]int {
	color := make([]int, len(m.atoms))
	var res [][]int
	var order []int
	var dfs func(a, from int)
	dfs = func(a, from int) {
		color[a] = 1
		order = append(order, a)
		for _, b := range m.atoms[a].bonds {
			nbr := m.bonds[b].other(a)
			switch color[nbr] {
			case 0:
				if m.degree(nbr) < 2 {
					color[nbr] = 2
				} else {
					dfs(nbr, a)
				}
			case 1:
				if from >= 0 && nbr != from {
					var cycle []int
					k := len(order) - 1
					for k >= 0 && order[k] != a {
						k--
					}
					for ; k >= 0 && order[k] != nbr; k-- {
						cycle = append(cycle, order[k])
					}
					res = append(res, append(cycle, nbr))
				}
			}
		}
		color[a] = 2
		order = order[:len(order)-1]
	}
	for i := range m.atoms {
		if color[i] != 0 {
			continue
		}
		if m.degree(i) < 2 {
			color[i] = 2
			continue
		}
		dfs(i, -1)
	}
	return res
}
