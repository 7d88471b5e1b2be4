package data

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/sgformer/sgformer/data/smiles"
	"github.com/sgformer/sgformer/internal/parallel"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// ErrNoAtoms reports an empty SMILES: a molecule without atoms is no graph to learn from.
var ErrNoAtoms = errors.New("an empty SMILES (no atoms)")

// MoleculeGraph reads a SMILES and returns its graph as OGB's smiles2graph featurises it
// (smiles.OGBGraph: 9 atom and 3 bond features, each bond once, in RDKit's order). Errors are
// *smiles.Error values.
func MoleculeGraph(s string) (*graph.Graph, error) {
	g, err := smiles.OGBGraph(s)
	if err != nil {
		return nil, err
	}
	return OGBGraph(g)
}

// OGBGraph is a featurised molecule of package smiles as a graph.
func OGBGraph(m *smiles.Graph) (*graph.Graph, error) {
	edges := make([]graph.Edge, len(m.Bonds))
	for i, b := range m.Bonds {
		edges[i] = graph.Edge{b[0], b[1]}
	}
	atoms := make([]int32, 0, len(m.AtomFeatures)*smiles.NumAtomFeatures)
	for _, f := range m.AtomFeatures {
		atoms = append(atoms, f[:]...)
	}
	bonds := make([]int32, 0, len(m.BondFeatures)*smiles.NumBondFeatures)
	for _, f := range m.BondFeatures {
		bonds = append(bonds, f[:]...)
	}
	g, err := graph.New(len(m.AtomFeatures), edges,
		graph.Features{Width: smiles.NumAtomFeatures, Ints: atoms},
		graph.Features{Width: smiles.NumBondFeatures, Ints: bonds})
	if err != nil {
		return nil, fmt.Errorf("smiles: building the graph: %w", err)
	}
	return g, nil
}

// MoleculeGraphs featurises SMILES strings as OGB's smiles2graph does (smiles.OGBGraph: 9 atom
// and 3 bond features, each bond once, in RDKit's order), in parallel on workers goroutines
// (GOMAXPROCS when workers ≤ 0). It returns one graph per string, and where a string was refused,
// a nil graph and its error at the same index of errs (a *smiles.Error, or ErrNoAtoms); errs is
// nil when every string was read. A molecule without bonds (a single atom, a salt) is a graph
// without edges.
func MoleculeGraphs(ss []string, workers int) (graphs []*graph.Graph, errs []error) {
	graphs = make([]*graph.Graph, len(ss))
	all := make([]error, len(ss))
	parallel.For(len(ss), workers, func(i int) {
		g, err := MoleculeGraph(ss[i])
		if err == nil && g.N() == 0 {
			err = ErrNoAtoms
		}
		if err != nil {
			all[i] = err
			return
		}
		graphs[i] = g
	})
	return graphs, failures(all)
}

// failures returns errs if any of them is not nil, else nil.
func failures(errs []error) []error {
	if slices.ContainsFunc(errs, func(err error) bool { return err != nil }) {
		return errs
	}
	return nil
}

// Fractions of the random and scaffold splits: 80 % train, 10 % validation, 10 % test, as
// OGB's and MoleculeNet's.
const (
	fracTrain = 0.8
	fracValid = 0.1
)

// RandomSplit splits graphs 0..n−1 at random, 80/10/10: a permutation drawn from seed (PCG, so
// the same seed gives the same split on every machine and Go version), whose first ⌊0.8n⌋
// entries are the training set, the next ⌊0.1n⌋ the validation set and the rest the test set
// (the fractions of MoleculeNet's random_split). Each part is sorted.
func RandomSplit(n int, seed uint64) Split {
	perm := rand.New(rand.NewPCG(seed, 0x5eed_5711)).Perm(n)
	train := int(fracTrain * float64(n))
	valid := int(fracValid * float64(n))
	s := Split{Train: perm[:train], Valid: perm[train : train+valid], Test: perm[train+valid:]}
	for _, part := range [][]int{s.Train, s.Valid, s.Test} {
		slices.Sort(part)
	}
	return s
}

// ScaffoldSplit is OGB's deterministic scaffold split (the scaffold_split of Hu et al.'s
// pretrain-gnns, chem/splitters.py, from which OGB's molecule splits come): graphs with equal
// keys form a group; groups are sorted by size, largest first, ties broken by the larger
// smallest index first (Python's sorted(key=(len, first), reverse=True)); each group then goes
// whole to the training set while it stays within 0.8n graphs, else to the validation set while
// train and validation stay within 0.9n, else to the test set. keys[i] is graph i's scaffold
// (smiles.Molecule.ScaffoldKey; "" for molecules without rings, one group as in RDKit).
func ScaffoldSplit(keys []string) Split {
	groups := map[string][]int{}
	for i, k := range keys {
		groups[k] = append(groups[k], i)
	}
	sets := make([][]int, 0, len(groups))
	for _, g := range groups {
		sets = append(sets, g) // each in increasing order
	}
	slices.SortFunc(sets, func(a, b []int) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(b[0], a[0]))
	})
	n := float64(len(keys))
	trainCut, validCut := fracTrain*n, (fracTrain+fracValid)*n
	var s Split
	for _, set := range sets {
		switch {
		case float64(len(s.Train)+len(set)) <= trainCut:
			s.Train = append(s.Train, set...)
		case float64(len(s.Train)+len(s.Valid)+len(set)) <= validCut:
			s.Valid = append(s.Valid, set...)
		default:
			s.Test = append(s.Test, set...)
		}
	}
	return s
}

// ScaffoldKeys returns the Bemis–Murcko scaffold key of each SMILES (smiles.Molecule.ScaffoldKey,
// the grouping of RDKit's MurckoScaffoldSmiles(includeChirality=False)), computed in parallel
// on GOMAXPROCS goroutines; errs as MoleculeGraphs'.
func ScaffoldKeys(ss []string) (keys []string, errs []error) {
	keys = make([]string, len(ss))
	all := make([]error, len(ss))
	parallel.For(len(ss), 0, func(i int) {
		mol, err := smiles.Parse(ss[i])
		if err == nil {
			keys[i], err = mol.ScaffoldKey()
		}
		if err != nil {
			all[i] = fmt.Errorf("scaffold: %w", err)
		}
	})
	return keys, failures(all)
}

// maxReported is how many refused rows an error lists before counting the rest.
const maxReported = 10

// rowErrors joins the errors of refused rows into one, each as "FILE:LINE: column "C": reason",
// the first maxReported of them and the count of the rest; nil when errs has none.
func rowErrors(file, column string, lines []int, errs []error) error {
	var out []error
	failed := 0
	for i, err := range errs {
		if err == nil {
			continue
		}
		if failed++; failed <= maxReported {
			out = append(out, fmt.Errorf("%s:%d: column %q: %w", file, lines[i], column, err))
		}
	}
	if failed > maxReported {
		out = append(out, fmt.Errorf("%s: %d more rows refused (%d in all)", file, failed-maxReported, failed))
	}
	return errors.Join(out...)
}

// featurize featurises the SMILES read from the given lines of file's column.
func featurize(file, column string, ss []string, lines []int) ([]*graph.Graph, error) {
	graphs, errs := MoleculeGraphs(ss, 0)
	if err := rowErrors(file, column, lines, errs); err != nil {
		return nil, err
	}
	return graphs, nil
}
