package smiles_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sgformer/sgformer/data/smiles"
)

// writeSMILES writes the graph with adjacency lists adj as a SMILES of the given atom:
// a depth-first spanning tree, with %(n) ring closures for the other bonds.
func writeSMILES(adj [][]int, atom string) string {
	n := len(adj)
	parent := make([]int, n)
	seen := make([]bool, n)
	tree := map[[2]int]bool{}
	var visit func(v int)
	visit = func(v int) {
		seen[v] = true
		for _, w := range adj[v] {
			if !seen[w] {
				parent[w] = v
				tree[[2]int{v, w}], tree[[2]int{w, v}] = true, true
				visit(w)
			}
		}
	}
	parent[0] = -1
	visit(0)
	closure := map[[2]int]int{}
	for v := range adj {
		for _, w := range adj[v] {
			if v < w && !tree[[2]int{v, w}] {
				closure[[2]int{v, w}] = len(closure) + 1
			}
		}
	}
	var b strings.Builder
	var write func(v int)
	write = func(v int) {
		b.WriteString(atom)
		var kids []int
		for _, w := range adj[v] {
			if r, ok := closure[[2]int{min(v, w), max(v, w)}]; ok {
				fmt.Fprintf(&b, "%%(%d)", r)
			}
			if tree[[2]int{v, w}] && parent[w] == v {
				kids = append(kids, w)
			}
		}
		for i, w := range kids {
			if i < len(kids)-1 {
				b.WriteByte('(')
				write(w)
				b.WriteByte(')')
			} else {
				write(w)
			}
		}
	}
	write(0)
	return b.String()
}

// cubicGrid returns the k x k x k grid graph.
func cubicGrid(k int) [][]int {
	adj := make([][]int, k*k*k)
	id := func(x, y, z int) int { return (z*k+y)*k + x }
	add := func(a, b int) { adj[a], adj[b] = append(adj[a], b), append(adj[b], a) }
	for z := range k {
		for y := range k {
			for x := range k {
				if x+1 < k {
					add(id(x, y, z), id(x+1, y, z))
				}
				if y+1 < k {
					add(id(x, y, z), id(x, y+1, z))
				}
				if z+1 < k {
					add(id(x, y, z), id(x, y, z+1))
				}
			}
		}
	}
	return adj
}

// polyacene returns n linearly fused aromatic six-rings.
func polyacene(n int) string {
	var b strings.Builder
	b.WriteString("c1ccc2")
	for i := 2; i < n; i++ {
		fmt.Fprintf(&b, "cc%%(%d)", i+1)
	}
	b.WriteString("cccc")
	for i := n; i > 2; i-- {
		fmt.Fprintf(&b, "c%%(%d)c", i)
	}
	b.WriteString("c2c1")
	return b.String()
}

// TestLimits reads inputs built to be expensive (long chains of stereocentres, dense and
// highly symmetric ring systems, a clique of metal atoms, very symmetric scaffolds, inputs
// over the limits): each must give a molecule or an *Error, and its scaffold key, quickly.
func TestLimits(t *testing.T) {
	var tree func(d int) string // a binary tree of cyclopropanes: 2^d symmetric leaves
	tree = func(d int) string {
		if d == 0 {
			return "C1CC1"
		}
		return "C(" + tree(d-1) + ")" + tree(d-1)
	}
	clique := make([][]int, 40)
	for i := range clique {
		for j := range clique {
			if i != j {
				clique[i] = append(clique[i], j)
			}
		}
	}
	tests := []struct {
		name, smiles string
		kind         smiles.ErrorKind // 0: valid
	}{
		{"stereo chain", "F" + strings.Repeat("[C@H](Cl)", 1000) + "F", 0},
		{"symmetric stereo chain", "C" + strings.Repeat("[C@H](O)", 1000) + "C", 0},
		{"double bonds", "C" + strings.Repeat("/C=C", 600) + "/C", 0},
		{"cyclopropanes", strings.Repeat("C1CC1", 600), 0},
		{"polyacene", polyacene(300), 0},
		{"cubic grid of metals", writeSMILES(cubicGrid(9), "[Fe]"), 0},
		{"clique of metals", writeSMILES(clique, "[Fe]"), 0},
		{"tree of rings", tree(8), 0},
		{"dummy atoms in a ring", "*1" + strings.Repeat("*", 200) + "1", 0},
		{"unkekulizable", strings.Replace(polyacene(200), "c", "[cH2]", 1), smiles.Chemistry},
		{"too many atoms", strings.Repeat("C", smiles.MaxAtoms+1), smiles.Limit},
		{"too long", "C" + strings.Repeat(" ", smiles.MaxLength), smiles.Limit},
	}
	for _, tc := range tests {
		start := time.Now()
		mol, err := smiles.Parse(tc.smiles)
		if err == nil {
			_, err = mol.ScaffoldKey()
		}
		var e *smiles.Error
		switch {
		case tc.kind == 0 && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.kind != 0 && (!errors.As(err, &e) || e.Kind != tc.kind):
			t.Errorf("%s: error %v, want a %s", tc.name, err, tc.kind)
		}
		t.Logf("%s: %d bytes in %v", tc.name, len(tc.smiles), time.Since(start))
	}
}
