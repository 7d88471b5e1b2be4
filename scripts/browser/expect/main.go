// Command expect prints, as JSON, what the notebooks' explorers must show for a state, computed
// from the library directly (packages product and pe), not through kernelext: the browser test
// (scripts/browser/test.py) compares the counts an explorer displays with its answers.
//
// Usage:
//
//	expect product MOLECULE ROOT CONNECTIVITY
//	expect pe MOLECULE MODE K COLUMN
//	expect sampling MOLECULE RATIO SEED
//
// MOLECULE is kernelext.LoadMolecule's spec (e.g. zinc12k:5853). For pe, a COLUMN beyond the
// PE's columns is answered for its last one, as the explorer shows it; for sampling, the roots
// are those of draw 0 of the seed, product.SampleRoots from rand.NewPCG(SEED, 0).
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/sgformer/sgformer/kernelext"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/product"
)

func main() {
	out, err := answer(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "expect:", err)
		os.Exit(2)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "expect:", err)
		os.Exit(1)
	}
}

// answer computes the expectation the arguments ask for.
func answer(args []string) (map[string]any, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("usage: expect product|pe|sampling MOLECULE ...")
	}
	m, err := kernelext.LoadMolecule(args[1])
	if err != nil {
		return nil, err
	}
	ints := func(from int) ([]int, error) {
		var xs []int
		for _, a := range args[from:] {
			x, err := strconv.Atoi(a)
			if err != nil {
				return nil, fmt.Errorf("%q is not an integer", a)
			}
			xs = append(xs, x)
		}
		return xs, nil
	}
	n := m.Graph.N()
	switch {
	case args[0] == "product" && len(args) == 4:
		root, err := strconv.Atoi(args[2])
		if err != nil {
			return nil, err
		}
		name, err := product.ParseName(args[3], 2)
		if err != nil {
			return nil, err
		}
		e, err := product.Connect(m.Graph, 2, name)
		if err != nil {
			return nil, err
		}
		in, inside, senders := 0, 0, map[int32]bool{}
		for i := range e.Len() {
			if int(e.Dst[i])/n != root {
				continue
			}
			in++
			if int(e.Src[i])/n == root {
				inside++
			} else {
				senders[e.Src[i]] = true
			}
		}
		return map[string]any{"n": n, "nodes": n, "edges": e.Len(), "edges-in": in, "from-inside": inside,
			"from-outside": in - inside, "neighbours": len(senders)}, nil
	case args[0] == "pe" && len(args) == 5:
		xs, err := ints(3)
		if err != nil {
			return nil, err
		}
		spec, err := pe.NewSpectrum(m.Graph)
		if err != nil {
			return nil, err
		}
		var enc *pe.Encoding
		switch args[2] {
		case "exact":
			enc, err = pe.Product(spec, xs[0])
		case "reference":
			enc, err = pe.Reference(spec, xs[0])
		case "concat":
			enc, err = pe.Concatenation(spec, 2, xs[0])
		default:
			err = fmt.Errorf("unknown PE mode %q", args[2])
		}
		if err != nil {
			return nil, err
		}
		c := min(xs[1], enc.Columns()-1)
		t := enc.Tuple(c)
		return map[string]any{"n": n, "columns": enc.Columns(), "column": c, "tuple": fmt.Sprintf("%d,%d", t[0], t[1]), "eigenvalue": enc.Values[c]}, nil
	case args[0] == "sampling" && len(args) == 4:
		ratio, err := strconv.ParseFloat(args[2], 64)
		if err != nil {
			return nil, err
		}
		seed, err := strconv.Atoi(args[3])
		if err != nil {
			return nil, err
		}
		roots, err := product.SampleRoots(n, ratio, rand.New(rand.NewPCG(uint64(seed), 0)))
		if err != nil {
			return nil, err
		}
		p, err := product.New(m.Graph, 2)
		if err != nil {
			return nil, err
		}
		sp, err := p.Sample(roots)
		if err != nil {
			return nil, err
		}
		kept := map[string]any{"n": n, "roots": roots, "nodes": sp.NumNodes()}
		for _, c := range sp.Connectivities {
			kept[c.Name.String()] = c.Len()
		}
		return kept, nil
	}
	return nil, fmt.Errorf("unknown question %q", args)
}
