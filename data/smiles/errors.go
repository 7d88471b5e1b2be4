package smiles

import "fmt"

// Limits on the input, so that no SMILES can make the reader allocate or compute without
// bound. Every dataset the project reads stays far below them (Peptides-func: at most 444
// atoms and about 1,900 bytes).
const (
	// MaxLength is the longest SMILES accepted, in bytes.
	MaxLength = 1 << 15
	// MaxAtoms is the largest number of atoms (hydrogens written as atoms included).
	MaxAtoms = 2048
)

// ErrorKind classifies the errors of Parse.
type ErrorKind uint8

const (
	// Syntax: the text is not a SMILES (unknown element, unmatched parenthesis, a bond with
	// no atom after it, an unclosed ring, ...).
	Syntax ErrorKind = iota + 1
	// Chemistry: the SMILES is well formed but RDKit's sanitisation rejects the molecule
	// (an atom above its allowed valence, an aromatic system that cannot be kekulised, ...).
	Chemistry
	// Limit: the input exceeds MaxLength or MaxAtoms, or a ring system is too complex to
	// perceive within the reader's fixed work budget.
	Limit
	// Unsupported: valid for RDKit but outside what this reader implements (dative and query
	// bonds, CXSMILES extensions).
	Unsupported
)

func (k ErrorKind) String() string {
	switch k {
	case Syntax:
		return "syntax error"
	case Chemistry:
		return "chemistry error"
	case Limit:
		return "limit exceeded"
	case Unsupported:
		return "unsupported"
	}
	return "error"
}

// Error describes why a SMILES was rejected: where (the byte offset in the input string and,
// when one atom is to blame, its index in SMILES order, hydrogens written as atoms counted)
// and why.
type Error struct {
	Kind   ErrorKind
	Pos    int // byte offset into the SMILES, -1 when no single position is to blame
	Atom   int // index of the atom concerned in SMILES order, -1 when none
	Reason string
}

func (e *Error) Error() string {
	if e.Pos < 0 {
		return fmt.Sprintf("smiles: %s: %s", e.Kind, e.Reason)
	}
	return fmt.Sprintf("smiles: %s at byte %d: %s", e.Kind, e.Pos, e.Reason)
}

// syntaxErr returns a Syntax error at byte pos.
func syntaxErr(pos int, format string, args ...any) *Error {
	return &Error{Kind: Syntax, Pos: pos, Atom: -1, Reason: fmt.Sprintf(format, args...)}
}

// atomErr returns an error of the given kind blaming atom a of m.
func (m *mol) atomErr(kind ErrorKind, a int, format string, args ...any) *Error {
	at := &m.atoms[a]
	return &Error{Kind: kind, Pos: at.pos, Atom: at.index, Reason: fmt.Sprintf(format, args...)}
}

// describe names atom a for messages: its SMILES index and element.
func (m *mol) describe(a int) string {
	at := &m.atoms[a]
	return fmt.Sprintf("atom %d (%s)", at.index, elements[at.num].symbol)
}
