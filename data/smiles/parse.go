package smiles

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The SMILES reader: the language RDKit 2022.09's SMILES grammar accepts
// (Code/GraphMol/SmilesParse/smiles.yy and smiles.ll), building the graph in RDKit's order
// (SmilesParseOps.cpp: CloseMolRings, CheckChiralitySpecifications, SetUnspecifiedBondTypes,
// AdjustAtomChiralityFlags). Two deliberate differences: a ring closure whose two ends give
// different bond orders ("C=1CC-1") is rejected, where RDKit silently keeps the first; and
// dative ("->", "<-") and query ("~") bonds and CXSMILES extensions are reported as
// unsupported.

// ringEnd is one occurrence of a ring-closure number: RDKit's partial bond.
type ringEnd struct {
	num         int // ring-closure number
	atom        int
	typ         BondType
	unspecified bool
	dir         bondDir
	pos         int
}

// parser reads one SMILES.
type parser struct {
	src      string // the SMILES proper, trimmed
	off      int    // offset of src in the caller's string
	i        int
	m        *mol
	active   int   // the atom the next bond starts from
	branches []int // atoms where open branches started
	branchAt []int // byte offsets of the open parentheses
	rings    []ringEnd
}

// parseGraph reads s into a molecule graph, before hydrogen removal and sanitisation.
func parseGraph(s string) (*mol, error) {
	if len(s) > MaxLength {
		return nil, &Error{Kind: Limit, Pos: -1, Atom: -1, Reason: fmt.Sprintf("a SMILES of %d bytes, longer than the %d accepted (MaxLength)", len(s), MaxLength)}
	}
	// RDKit (SmilesToMol with its default parameters) takes everything after the first space
	// or tab, unless at the very start, as a name or as a CXSMILES extension ("|...|").
	body := s
	if cut := strings.IndexAny(s, " \t"); cut > 0 {
		body = s[:cut]
		if strings.HasPrefix(strings.TrimSpace(s[cut:]), "|") {
			return nil, &Error{Kind: Unsupported, Pos: cut, Atom: -1, Reason: "CXSMILES extensions are not supported"}
		}
	}
	m := &mol{}
	if body == "" {
		return m, nil
	}
	// The lexer trims control characters and spaces at both ends and stops at a newline.
	start, end := 0, len(body)
	for start < end && body[start] <= ' ' {
		start++
	}
	for end > start && body[end-1] <= ' ' {
		end--
	}
	src := body[start:end]
	if nl := strings.IndexByte(src, '\n'); nl >= 0 {
		src = src[:nl]
	}
	if src == "" {
		return nil, syntaxErr(start, "no atoms")
	}
	// room for as many atoms and bonds as the SMILES can have at most
	n := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case 'B', 'C', 'N', 'O', 'P', 'S', 'F', 'I', 'b', 'c', 'n', 'o', 'p', 's', '*', '[':
			n++
		}
	}
	n = min(n, MaxAtoms)
	m.atoms = make([]atom, 0, n)
	m.bonds = make([]bond, 0, n+n/2)
	p := &parser{src: src, off: start, m: m, active: -1}
	if err := p.run(); err != nil {
		return nil, err
	}
	if err := p.closeRings(); err != nil {
		return nil, err
	}
	if err := p.checkChiralClasses(); err != nil {
		return nil, err
	}
	m.setUnspecifiedBondTypes()
	m.adjustChiralityFlags()
	return m, nil
}

// pos converts an offset in src to an offset in the caller's string.
func (p *parser) pos(i int) int { return p.off + i }

func (p *parser) errAt(i int, format string, args ...any) *Error {
	return syntaxErr(p.pos(i), format, args...)
}

// charAt quotes the character that starts at byte i of src (which may be one of several bytes
// of UTF-8), or names the byte where it is not UTF-8.
func (p *parser) charAt(i int) string {
	r, size := utf8.DecodeRuneInString(p.src[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x (not UTF-8)", p.src[i])
	}
	return fmt.Sprintf("%q", r)
}

// peek returns the byte at src[i], or 0 past the end.
func (p *parser) peek(i int) byte {
	if i < len(p.src) {
		return p.src[i]
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// run reads the whole SMILES: atoms, bonds, branches, ring-closure numbers and dots.
func (p *parser) run() error {
	if err := p.expectAtom(BondUnspecified, false, dirNone, true, "SMILES must start with an atom"); err != nil {
		return err
	}
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '(':
			open := p.i
			p.i++
			typ, unspec, dir, _, err := p.bondSymbol()
			if err != nil {
				return err
			}
			branchFrom := p.active
			if err := p.expectAtom(typ, unspec, dir, false, "a branch must start with an atom or a bond and an atom"); err != nil {
				return err
			}
			p.branches = append(p.branches, branchFrom)
			p.branchAt = append(p.branchAt, open)
		case c == ')':
			if len(p.branches) == 0 {
				return p.errAt(p.i, "unmatched ')'")
			}
			p.active = p.branches[len(p.branches)-1]
			p.branches = p.branches[:len(p.branches)-1]
			p.branchAt = p.branchAt[:len(p.branchAt)-1]
			p.i++
		case c == '.':
			p.i++
			if err := p.expectAtom(BondUnspecified, false, dirNone, true, "'.' must be followed by an atom"); err != nil {
				return err
			}
		case isDigit(c) || c == '%':
			if err := p.ringClosure(BondUnspecified, true, dirNone, p.i); err != nil {
				return err
			}
		default:
			at := p.i
			typ, unspec, dir, ok, err := p.bondSymbol()
			if err != nil {
				return err
			}
			if ok {
				if c2 := p.peek(p.i); isDigit(c2) || c2 == '%' {
					if err := p.ringClosure(typ, unspec, dir, at); err != nil {
						return err
					}
					continue
				}
				if err := p.expectAtom(typ, unspec, dir, false, "bond with no atom after it"); err != nil {
					return err
				}
				continue
			}
			if err := p.expectAtom(BondUnspecified, false, dirNone, false, "unexpected character"); err != nil {
				return err
			}
		}
	}
	if n := len(p.branches); n > 0 {
		return p.errAt(p.branchAt[n-1], "unmatched '('")
	}
	return nil
}

// bondSymbol reads an optional bond symbol: its type, whether the order is left unspecified
// ("/" and "\" only give a direction), its direction, and whether there was one.
func (p *parser) bondSymbol() (BondType, bool, bondDir, bool, error) {
	switch p.peek(p.i) {
	case '-':
		if p.peek(p.i+1) == '>' {
			return 0, false, 0, false, &Error{Kind: Unsupported, Pos: p.pos(p.i), Atom: -1, Reason: "dative bonds are not supported"}
		}
		p.i++
		return BondSingle, false, dirNone, true, nil
	case '=':
		p.i++
		return BondDouble, false, dirNone, true, nil
	case '#':
		p.i++
		return BondTriple, false, dirNone, true, nil
	case '$':
		p.i++
		return BondQuadruple, false, dirNone, true, nil
	case ':':
		p.i++
		return BondAromatic, false, dirNone, true, nil
	case '/':
		p.i++
		return BondUnspecified, true, dirEndUpRight, true, nil
	case '\\':
		p.i++
		if p.peek(p.i) == '\\' { // RDKit reads "\\" as one "\"
			p.i++
		}
		return BondUnspecified, true, dirEndDownRight, true, nil
	case '<':
		if p.peek(p.i+1) == '-' {
			return 0, false, 0, false, &Error{Kind: Unsupported, Pos: p.pos(p.i), Atom: -1, Reason: "dative bonds are not supported"}
		}
	case '~':
		return 0, false, 0, false, &Error{Kind: Unsupported, Pos: p.pos(p.i), Atom: -1, Reason: "query bonds ('~') are not supported"}
	}
	return 0, false, 0, false, nil
}

// expectAtom reads the atom that must come next and joins it to the active atom with a bond
// of the given type (none when detached, after a dot or at the start).
func (p *parser) expectAtom(typ BondType, unspec bool, dir bondDir, detached bool, missing string) error {
	start := p.i
	a, ok, err := p.readAtom()
	if err != nil {
		return err
	}
	if !ok {
		if start >= len(p.src) {
			return p.errAt(start, "%s, found the end of the SMILES", missing)
		}
		return p.errAt(start, "%s, found %s", missing, p.charAt(start))
	}
	if len(p.m.atoms) >= MaxAtoms {
		return &Error{Kind: Limit, Pos: p.pos(start), Atom: len(p.m.atoms), Reason: fmt.Sprintf("more than %d atoms (MaxAtoms)", MaxAtoms)}
	}
	a.index = len(p.m.atoms)
	a.pos = p.pos(start)
	a.implVal, a.explVal = -1, -1
	a.bonds = p.m.bondList()
	p.m.atoms = append(p.m.atoms, a)
	idx := a.index
	if detached {
		p.m.atoms[idx].smilesStart = true
	} else {
		b := bond{begin: p.active, end: idx, typ: typ, unspecified: unspec, dir: dir}
		if typ == BondUnspecified && !unspec {
			// no bond symbol: RDKit's GetUnspecifiedBondType, decided right away
			b.typ = p.m.unspecifiedType(p.active, idx)
		}
		b.aromatic = b.typ == BondAromatic
		p.m.addBond(b)
	}
	p.active = idx
	return nil
}

// unspecifiedType is RDKit's GetUnspecifiedBondType: aromatic between two aromatic atoms,
// single otherwise.
func (m *mol) unspecifiedType(a, b int) BondType {
	if m.atoms[a].aromatic && m.atoms[b].aromatic {
		return BondAromatic
	}
	return BondSingle
}

// ringClosure reads a ring-closure number (a digit, %nn or %(n...)) at the active atom,
// with the bond given before it.
func (p *parser) ringClosure(typ BondType, unspec bool, dir bondDir, at int) error {
	num, err := p.ringNumber()
	if err != nil {
		return err
	}
	a := p.active
	p.rings = append(p.rings, ringEnd{num: num, atom: a, typ: typ, unspecified: unspec, dir: dir, pos: p.pos(at)})
	p.m.checkRingClosureBranchStatus(a)
	p.m.atoms[a].closures = append(p.m.atoms[a].closures, -(num + 1))
	return nil
}

// ringNumber reads one ring-closure number.
func (p *parser) ringNumber() (int, error) {
	start := p.i
	c := p.peek(p.i)
	if isDigit(c) {
		p.i++
		return int(c - '0'), nil
	}
	// '%'
	p.i++
	if p.peek(p.i) == '(' {
		p.i++
		n, digits := 0, 0
		for isDigit(p.peek(p.i)) && digits < 5 {
			n = 10*n + int(p.peek(p.i)-'0')
			digits++
			p.i++
		}
		if digits == 0 || p.peek(p.i) != ')' {
			return 0, p.errAt(start, "ring-closure number %%(...) must hold 1 to 5 digits")
		}
		p.i++
		return n, nil
	}
	d1, d2 := p.peek(p.i), p.peek(p.i+1)
	if d1 < '1' || d1 > '9' || !isDigit(d2) {
		return 0, p.errAt(start, "'%%' must be followed by a two-digit ring-closure number from 10 to 99")
	}
	p.i += 2
	return int(d1-'0')*10 + int(d2-'0'), nil
}

// number reads RDKit's "number": "0" or digits without a leading zero, below 2^31.
func (p *parser) number() (int, bool, error) {
	start := p.i
	c := p.peek(p.i)
	if !isDigit(c) {
		return 0, false, nil
	}
	p.i++
	if c == '0' {
		return 0, true, nil
	}
	n := int(c - '0')
	for isDigit(p.peek(p.i)) {
		d := int(p.peek(p.i) - '0')
		if n >= (1<<31-1)/10 || n*10 >= (1<<31-1)-d {
			return 0, false, p.errAt(start, "number too large")
		}
		n = 10*n + d
		p.i++
	}
	return n, true, nil
}

// readAtom reads an organic-subset atom, an aromatic one, "*" or a bracket atom; ok is false
// when no atom starts here.
func (p *parser) readAtom() (atom, bool, error) {
	a := atom{mapNum: -1, chiralPerm: -1}
	c := p.peek(p.i)
	switch c {
	case 'B', 'C':
		a.num = 5
		if c == 'C' {
			a.num = 6
		}
		if n := p.peek(p.i + 1); c == 'C' && n == 'l' {
			a.num = 17
			p.i++
		} else if c == 'B' && n == 'r' {
			a.num = 35
			p.i++
		}
	case 'N':
		a.num = 7
	case 'O':
		a.num = 8
	case 'P':
		a.num = 15
	case 'S':
		a.num = 16
	case 'F':
		a.num = 9
	case 'I':
		a.num = 53
	case '*':
		a.num = 0
	case 'b', 'c', 'n', 'o', 'p', 's':
		a.num = aromaticSymbols[string(c)]
		a.aromatic = true
	case '[':
		return p.bracketAtom()
	default:
		return a, false, nil
	}
	p.i++
	return a, true, nil
}

// aromaticSymbols are the lower-case element symbols of aromatic atoms.
var aromaticSymbols = map[string]int{"b": 5, "c": 6, "n": 7, "o": 8, "p": 15, "s": 16, "si": 14, "as": 33, "se": 34, "te": 52}

// symbols maps element symbols to atomic numbers, with RDKit's alternatives for 110-118.
var symbols = func() map[string]int {
	s := map[string]int{"Uun": 110, "Uuu": 111, "Uub": 112, "Uut": 113, "Uuq": 114, "Uup": 115, "Uuh": 116, "Uus": 117, "Uuo": 118}
	for z := 1; z <= maxAtomicNum; z++ {
		s[elements[z].symbol] = z
	}
	return s
}()

// element reads the element of a bracket atom, by longest match as RDKit's lexer does.
func (p *parser) element(a *atom) bool {
	rest := p.src[p.i:]
	for _, n := range []int{3, 2, 1} {
		if len(rest) < n {
			continue
		}
		sym := rest[:n]
		if z, ok := symbols[sym]; ok {
			a.num = z
			p.i += n
			return true
		}
		if z, ok := aromaticSymbols[sym]; ok {
			a.num, a.aromatic = z, true
			p.i += n
			return true
		}
		if n == 1 && sym == "*" {
			a.num = 0
			p.i++
			return true
		}
	}
	// Biovia's quoted symbols of the heaviest elements
	if len(rest) >= 4 && rest[0] == '\'' && rest[3] == '\'' {
		if z, ok := symbols[rest[1:3]]; ok && z >= 104 {
			a.num = z
			p.i += 4
			return true
		}
	}
	return false
}

// bracketAtom reads "[" isotope? element chirality? hydrogens? charge? (":" class)? "]".
func (p *parser) bracketAtom() (atom, bool, error) {
	open := p.i
	a := atom{mapNum: -1, chiralPerm: -1, noImplicit: true}
	p.i++
	iso, hasIso, err := p.number()
	if err != nil {
		return a, false, err
	}
	if hasIso {
		a.isotope = iso
	}
	isH := false
	switch {
	case p.peek(p.i) == '#':
		p.i++
		z, ok, err := p.number()
		if err != nil {
			return a, false, err
		}
		if !ok {
			return a, false, p.errAt(p.i, "'#' must be followed by an atomic number")
		}
		if z > maxAtomicNum {
			return a, false, p.errAt(open, "unknown element #%d", z)
		}
		a.num = z
	case p.element(&a):
		isH = a.num == 1 && p.src[p.i-1] == 'H'
	default:
		return a, false, p.errAt(p.i, "unknown element in bracket atom")
	}
	if !isH {
		if err := p.chirality(&a); err != nil {
			return a, false, err
		}
	}
	if p.peek(p.i) == 'H' {
		p.i++
		n, ok, err := p.number()
		if err != nil {
			return a, false, err
		}
		if !ok {
			n = 1
		}
		a.hs = n
	}
	switch p.peek(p.i) {
	case '+', '-':
		sign := 1
		if p.peek(p.i) == '-' {
			sign = -1
		}
		c := p.peek(p.i)
		p.i++
		if p.peek(p.i) == c {
			p.i++
			a.charge = 2 * sign
		} else {
			n, ok, err := p.number()
			if err != nil {
				return a, false, err
			}
			if !ok {
				n = 1
			}
			a.charge = sign * n
		}
	}
	if p.peek(p.i) == ':' {
		p.i++
		n, ok, err := p.number()
		if err != nil {
			return a, false, err
		}
		if !ok {
			return a, false, p.errAt(p.i, "':' must be followed by an atom class number")
		}
		a.mapNum = n
	}
	if p.peek(p.i) != ']' {
		if p.i >= len(p.src) {
			return a, false, p.errAt(open, "unclosed '['")
		}
		return a, false, p.errAt(p.i, "unexpected %s in bracket atom", p.charAt(p.i))
	}
	p.i++
	return a, true, nil
}

// chiralClasses are the chirality classes of bracket atoms, and permutationLimits the largest
// permutation number of each (RDKit's permutationLimits).
var (
	chiralClasses     = map[string]Chirality{"TH": ChiralTetrahedral, "AL": ChiralAllene, "SP": ChiralSquarePlanar, "TB": ChiralTrigonalBipyramidal, "OH": ChiralOctahedral}
	permutationLimits = map[Chirality]int{ChiralTetrahedral: 2, ChiralAllene: 2, ChiralSquarePlanar: 3, ChiralTrigonalBipyramidal: 20, ChiralOctahedral: 30}
)

// chirality reads "@", "@@", or a chirality class (@TH, @AL, @SP, @TB, @OH) with its
// optional permutation number.
func (p *parser) chirality(a *atom) error {
	if p.peek(p.i) != '@' {
		return nil
	}
	if p.i+2 < len(p.src) {
		if tag, ok := chiralClasses[p.src[p.i+1:p.i+3]]; ok {
			p.i += 3
			n, _, err := p.number()
			if err != nil {
				return err
			}
			a.chiral, a.chiralPerm = tag, n
			return nil
		}
	}
	p.i++
	a.chiral = ChiralCCW
	if p.peek(p.i) == '@' {
		p.i++
		a.chiral = ChiralCW
	}
	return nil
}

// checkRingClosureBranchStatus reproduces RDKit's CheckRingClosureBranchStatus: a ring
// closure written after a branch on a chiral atom ("[C@@](F)1(C)CCO1") inverts its tag.
func (m *mol) checkRingClosureBranchStatus(a int) {
	at := &m.atoms[a]
	d := len(at.bonds)
	if a != len(m.atoms)-1 && (d == 1 || (d == 2 && a != 0) || (d == 3 && a == 0)) && at.chiral.tetrahedral() {
		at.invertChirality()
	}
}

// closeRings pairs the ring-closure numbers and adds their bonds, in increasing ring number
// and then in the order written, as RDKit's CloseMolRings does.
func (p *parser) closeRings() error {
	ends := slices.Clone(p.rings)
	slices.SortStableFunc(ends, func(x, y ringEnd) int { return x.num - y.num })
	m := p.m
	for k := 0; k < len(ends); {
		e1 := ends[k]
		if k+1 >= len(ends) || ends[k+1].num != e1.num {
			return syntaxErr(e1.pos, "unclosed ring %d", e1.num)
		}
		e2 := ends[k+1]
		k += 2
		if e1.atom == e2.atom {
			return syntaxErr(e2.pos, "ring closure %d bonds atom %d to itself", e1.num, e1.atom)
		}
		if m.bondBetween(e1.atom, e2.atom) >= 0 {
			return syntaxErr(e2.pos, "ring closure %d duplicates the bond between atoms %d and %d", e1.num, e1.atom, e2.atom)
		}
		if !e1.unspecified && !e2.unspecified && e1.typ != e2.typ {
			return syntaxErr(e2.pos, "ring closure %d has conflicting bond orders at its two ends", e1.num)
		}
		var b bond
		if !e1.unspecified {
			b = bond{begin: e1.atom, end: e2.atom, typ: e1.typ, dir: e1.dir}
			if b.dir == dirNone && e2.dir != dirNone {
				b.dir = e2.dir.flip()
			}
		} else {
			b = bond{begin: e2.atom, end: e1.atom, typ: e2.typ, unspecified: e2.unspecified, dir: e2.dir}
			if b.dir == dirNone && e1.dir != dirNone {
				b.dir = e1.dir.flip()
			}
		}
		if b.typ == BondUnspecified {
			b.typ = m.unspecifiedType(e1.atom, e2.atom)
		}
		b.aromatic = b.typ == BondAromatic
		idx := m.addBond(b)
		for _, a := range []int{e1.atom, e2.atom} {
			cl := m.atoms[a].closures
			if j := slices.Index(cl, -(e1.num + 1)); j >= 0 {
				cl[j] = idx
			}
		}
	}
	return nil
}

// checkChiralClasses validates the permutation numbers of @TH, @AL, @SP, @TB and @OH and
// turns @TH1/@TH2 into @/@@, as RDKit's CheckChiralitySpecifications does.
func (p *parser) checkChiralClasses() error {
	for i := range p.m.atoms {
		a := &p.m.atoms[i]
		limit, ok := permutationLimits[a.chiral]
		if !ok {
			continue
		}
		if a.chiralPerm < 0 || a.chiralPerm > limit {
			return p.m.atomErr(Syntax, i, "invalid chiral specification on atom %d", a.index)
		}
		if a.chiral == ChiralTetrahedral {
			a.chiral = ChiralCCW
			if a.chiralPerm == 2 {
				a.chiral = ChiralCW
			}
		}
	}
	return nil
}

// setUnspecifiedBondTypes gives bonds written with no order ("/", "\", bare ring closures)
// their type: aromatic between aromatic atoms, single otherwise.
func (m *mol) setUnspecifiedBondTypes() {
	for i := range m.bonds {
		b := &m.bonds[i]
		if b.unspecified {
			b.typ = m.unspecifiedType(b.begin, b.end)
			b.aromatic = b.typ == BondAromatic
		}
	}
}

// adjustChiralityFlags reproduces RDKit's AdjustAtomChiralityFlags: "@" and "@@" describe the
// neighbours in SMILES order (ring closures at the position of their digits), while RDKit
// stores them relative to the atom's bond list, where ring closures come last.
func (m *mol) adjustChiralityFlags() {
	for i := range m.atoms {
		a := &m.atoms[i]
		if !a.chiral.tetrahedral() {
			continue
		}
		type nb struct{ atom, bond int }
		nbrs := []nb{{i, -1}}
		for _, b := range a.bonds {
			if !slices.Contains(a.closures, b) {
				nbrs = append(nbrs, nb{m.bonds[b].other(i), b})
			}
		}
		slices.SortFunc(nbrs, func(x, y nb) int { return x.atom - y.atom })
		var order []int
		for _, n := range nbrs {
			if n.atom == i {
				order = append(order, a.closures...)
			} else {
				order = append(order, n.bond)
			}
		}
		swaps := m.perturbationOrder(i, order)
		if m.chiralNeedsInversion(i) {
			swaps++
		}
		if swaps%2 == 1 {
			a.invertChirality()
		}
	}
}

// chiralNeedsInversion is RDKit's Canon::chiralAtomNeedsTagInversion for a freshly read
// atom: a three-coordinate chiral atom that starts the SMILES with one explicit H, or whose
// only ring closure completes a saturated centre without H ("F[C@]1CCO1").
func (m *mol) chiralNeedsInversion(i int) bool {
	a := &m.atoms[i]
	if m.degree(i) != 3 {
		return false
	}
	if a.smilesStart && a.hs == 1 {
		return true
	}
	fourth := a.hs == 1 || (!a.noImplicit && a.implVal == 1)
	unsaturated := false
	for _, b := range a.bonds {
		if m.bonds[b].typ.twice() > 2 {
			unsaturated = true
		}
	}
	return !fourth && len(a.closures) == 1 && !unsaturated
}
