package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/data/smiles"
	"github.com/sgformer/sgformer/sgformer/graph"
)

const moleculeUsage = `usage: sgformer molecule --smiles SMILES

Prints the molecule's graph as OGB's smiles2graph featurises it (RDKit's reading of the SMILES,
hydrogens removed): one node per atom with OGB's 9 atom features, each bond once as an edge
with its 3 bond features, in RDKit's order. The JSON is the graph format that product, pe and
predict --graph read:

  {"num_nodes": n, "edges": [[u,v], ...], "node_features": [[9 ints], ...], "edge_features": [[3 ints], ...]}

A SMILES that does not parse is reported with its position and the reason (exit status 1).
`

func moleculeCmd(args []string, io stdio) error {
	fs := newFlagSet("molecule")
	s := fs.String("smiles", "", "the molecule as a SMILES string (quote it for the shell)")
	describe(fs, moleculeUsage)
	if err := parse(fs, args, io); err != nil {
		return err
	}
	g, err := smilesGraph(*s)
	if err != nil {
		return err
	}
	return writeGraph(io.out, g)
}

// smilesGraph featurises the SMILES of --smiles; an error shows where it went wrong.
func smilesGraph(s string) (*graph.Graph, error) {
	if s == "" {
		return nil, usagef("--smiles SMILES is required")
	}
	gs, errs := data.MoleculeGraphs([]string{s}, 1)
	if errs != nil {
		return nil, fmt.Errorf("--smiles %s: %w", quoteShort(s), pointAt(s, errs[0]))
	}
	return gs[0], nil
}

// quoteShort quotes s, or its first and last bytes around the number left out when it is
// long (a 40 kB SMILES is not echoed whole).
func quoteShort(s string) string {
	const keep = 60
	if len(s) <= 2*keep {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q…(%d bytes)…%q", s[:keep], len(s)-2*keep, s[len(s)-keep:])
}

// pointAt adds to a SMILES error a line showing the SMILES and a caret under the byte it
// names, when it names one.
func pointAt(s string, err error) error {
	var se *smiles.Error
	if !errors.As(err, &se) || se.Pos < 0 || se.Pos > len(s) || len(s) > 200 || strings.ContainsAny(s, "\n\r\t") {
		return err
	}
	return fmt.Errorf("%w\n  %s\n  %s^", err, s, strings.Repeat(" ", len([]rune(s[:se.Pos]))))
}

// writeGraph writes g in the graph JSON format (graph.ReadJSON reads it back), integer feature
// rows as lists; every output has the same keys (a molecule without bonds, a salt, has empty
// "edges" and "edge_features").
func writeGraph(w io.Writer, g *graph.Graph) error {
	j := newJSONWriter(w)
	j.str(`{"num_nodes":` + strconv.Itoa(g.N()) + `,"edges":[`)
	for i, e := range g.Edges() {
		if i > 0 {
			j.str(",")
		}
		j.ints(int32(e[0]), int32(e[1]))
	}
	j.str("]")
	rows := func(name string, f graph.Features, n int) {
		if n > 0 && (f.Width == 0 || f.Ints == nil) {
			return
		}
		j.str(`,"` + name + `":[`)
		for r := range n {
			if r > 0 {
				j.str(",")
			}
			j.ints(f.Ints[r*f.Width : (r+1)*f.Width]...)
		}
		j.str("]")
	}
	rows("node_features", g.NodeFeatures, g.N())
	rows("edge_features", g.EdgeFeatures, g.NumEdges())
	j.str("}")
	return j.end()
}
