// Package smiles reads SMILES strings into molecules in pure Go, reproducing what RDKit
// 2022.09's Chem.MolFromSmiles builds (default sanitisation, hydrogens removed, legacy
// stereo perception), and featurises them exactly as OGB's smiles2graph does
// (ogb/utils/features.py): 9 integer features per atom and 3 per bond.
//
// Atoms keep RDKit's numbering, which is SMILES order without the hydrogen atoms RDKit
// removes. The pipeline follows RDKit step by step, since every step decides features:
//
//   - parse.go: the SMILES grammar RDKit accepts, and RDKit's order of atoms and bonds;
//   - hydrogens.go: which "[H]" atoms become hydrogen counts (RemoveHs defaults);
//   - valence.go: valences, implicit hydrogens, nitro-group cleanup, radicals;
//   - rings.go: RDKit's SSSR and its symmetrisation;
//   - kekulize.go, aromaticity.go: Kekulé structure of aromatic input, then RDKit's
//     aromaticity model;
//   - hybridization.go: conjugation, hybridisation, chirality cleanup;
//   - stereo.go: the legacy CIP ranking that decides which "@" and "/" survive;
//   - features.go: OGB's vocabularies; scaffold.go: Bemis–Murcko scaffolds;
//   - molecule.go (this file): the pipeline and the API; types.go: the atom and bond
//     properties; elements.go: RDKit's periodic table; errors.go: errors and limits.
//
// Invalid input yields an *Error naming the byte position and the reason; nothing panics,
// and MaxLength and MaxAtoms bound the work. ORACLE.md records how the features compare
// with those OGB and RDKit published.
package smiles

// Molecule is a molecule read from a SMILES and sanitised as RDKit sanitises it.
type Molecule struct {
	m *mol
}

// Parse reads a SMILES the way RDKit's Chem.MolFromSmiles does: it removes the hydrogen atoms
// RDKit removes, rejects what RDKit's sanitisation rejects (valences, unkekulisable aromatic
// systems), perceives rings, aromaticity, conjugation, hybridisation and stereo. Text after
// the first space or tab (a name) is ignored. The empty string is a molecule without atoms.
// Errors are *Error values.
func Parse(s string) (*Molecule, error) {
	m, err := parseGraph(s)
	if err != nil {
		return nil, err
	}
	m.removeHydrogens()
	if len(m.atoms) > 0 {
		if err := m.sanitize(); err != nil {
			return nil, err
		}
		m.assignStereochemistry()
	}
	return &Molecule{m: m}, nil
}

// sanitize is RDKit's MolOps::sanitizeMol with all operations, in RDKit's order.
func (m *mol) sanitize() error {
	m.cleanUp()
	for a := range m.atoms {
		if err := m.updatePropertyCache(a, true); err != nil {
			return err
		}
	}
	if err := m.perceiveRings(); err != nil {
		return err
	}
	if err := m.kekulize(); err != nil {
		return err
	}
	m.assignRadicals()
	if err := m.setAromaticity(); err != nil {
		return err
	}
	m.setConjugation()
	m.setHybridization()
	m.cleanupChirality()
	m.adjustHs()
	return nil
}

// NumAtoms returns the number of atoms (hydrogens RDKit keeps as atoms included).
func (mol *Molecule) NumAtoms() int { return len(mol.m.atoms) }

// NumBonds returns the number of bonds.
func (mol *Molecule) NumBonds() int { return len(mol.m.bonds) }

// Atom describes one atom of a Molecule, with the properties RDKit reports for it.
type Atom struct {
	AtomicNum    int // 0 for the dummy atom "*"
	Isotope      int // 0 when none was written
	FormalCharge int
	// NumHs is the number of hydrogens attached but not in the graph (RDKit's
	// GetTotalNumHs): written in brackets, implicit, or from removed hydrogen atoms.
	NumHs int
	// Degree is the number of bonded atoms in the graph (RDKit's GetDegree); the total
	// degree of OGB's features is Degree+NumHs.
	Degree           int
	RadicalElectrons int
	Aromatic         bool
	InRing           bool
	Chirality        Chirality
	Hybridization    Hybridization
	// AtomClass is the atom class (":n" in brackets, an atom map number), -1 when none.
	AtomClass int
	// SMILESIndex is the atom's position among the atoms written in the SMILES, hydrogen
	// atoms included; Pos is its byte offset in the SMILES.
	SMILESIndex, Pos int
}

// Symbol returns the symbol of the atom's element ("C", "Na"; "*" for the dummy atom).
func (a Atom) Symbol() string {
	if a.AtomicNum < 0 || a.AtomicNum > maxAtomicNum {
		return "?"
	}
	return elements[a.AtomicNum].symbol
}

// Atoms returns the atoms, in RDKit's order: the order of the SMILES, without the hydrogen
// atoms that became hydrogen counts.
func (mol *Molecule) Atoms() []Atom {
	as := make([]Atom, len(mol.m.atoms))
	for i := range as {
		as[i] = mol.atom(i)
	}
	return as
}

func (mol *Molecule) atom(i int) Atom {
	m := mol.m
	at := &m.atoms[i]
	return Atom{
		AtomicNum:        at.num,
		Isotope:          at.isotope,
		FormalCharge:     at.charge,
		NumHs:            m.totalHs(i),
		Degree:           m.degree(i),
		RadicalElectrons: at.radicals,
		Aromatic:         at.aromatic,
		InRing:           m.rings.numAtomRings(i) > 0,
		Chirality:        at.chiral,
		Hybridization:    at.hyb,
		AtomClass:        at.mapNum,
		SMILESIndex:      at.index,
		Pos:              at.pos,
	}
}

// Bond describes one bond of a Molecule, from atom Begin to atom End as RDKit orients it.
type Bond struct {
	Begin, End int
	Type       BondType
	Stereo     BondStereo
	Aromatic   bool
	Conjugated bool
	InRing     bool
}

// Bonds returns the bonds in RDKit's order: in the order read, ring closures last (in
// increasing ring-closure number).
func (mol *Molecule) Bonds() []Bond {
	bs := make([]Bond, len(mol.m.bonds))
	for i := range bs {
		b := &mol.m.bonds[i]
		bs[i] = Bond{
			Begin:      b.begin,
			End:        b.end,
			Type:       b.typ,
			Stereo:     b.stereo,
			Aromatic:   b.aromatic,
			Conjugated: b.conjugated,
			InRing:     mol.m.rings.numBondRings(i) > 0,
		}
	}
	return bs
}
