package main

import (
	"encoding/json"
	"flag"
	"io"
	"os"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
)

// readGraph reads the graph JSON at path, or standard input for "-".
func readGraph(path string, io stdio) (*graph.Graph, error) {
	if path == "" {
		return nil, usagef("--graph FILE is required (\"-\" for standard input)")
	}
	if path == "-" {
		return graph.ReadJSON(io.in, "<stdin>")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return graph.ReadJSON(f, path)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	return enc.Encode(v)
}

// writeJSONFile writes v, indented, to path atomically.
func writeJSONFile(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(raw, '\n'))
}

// pairs lists the edges as [dst, src] pairs.
func pairs(e product.Edges) [][2]int32 {
	out := make([][2]int32, e.Len())
	for i := range out {
		out[i] = [2]int32{e.Dst[i], e.Src[i]}
	}
	return out
}

func productCmd(args []string, io stdio) error {
	fs := flag.NewFlagSet("sgformer product", flag.ContinueOnError)
	path := fs.String("graph", "", "graph JSON file, or - for standard input")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	g, err := readGraph(*path, io)
	if err != nil {
		return err
	}
	p, err := product.New(g, 2)
	if err != nil {
		return err
	}
	conn := func(name string) [][2]int32 { e, _ := p.Connectivity(name); return pairs(e) }
	return writeJSON(io.out, struct {
		NumNodes int        `json:"num_nodes"`
		Internal [][2]int32 `json:"internal"`
		External [][2]int32 `json:"external"`
		Point    [][2]int32 `json:"point"`
		Distance []int32    `json:"distance"`
	}{g.N(), conn("internal"), conn("external"), conn("point"), product.NodeMarking(g)})
}

func peCmd(args []string, io stdio) error {
	fs := flag.NewFlagSet("sgformer pe", flag.ContinueOnError)
	path := fs.String("graph", "", "graph JSON file, or - for standard input")
	k := fs.Int("k", 8, "number of eigenpairs of the product graph's Laplacian")
	mode := fs.String("mode", string(preprocess.Exact), `"exact": the k smallest eigenpairs; "reference": the authors' code (no trivial eigenvector, zero padding)`)
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *k < 0 {
		return usagef("--k %d must not be negative", *k)
	}
	g, err := readGraph(*path, io)
	if err != nil {
		return err
	}
	spec, err := pe.NewSpectrum(g)
	if err != nil {
		return err
	}
	var enc *pe.Encoding
	switch preprocess.Mode(*mode) {
	case preprocess.Exact:
		enc, err = pe.Product(spec, *k)
	case preprocess.AuthorsCode:
		enc, err = pe.Reference(spec, *k)
	default:
		return usagef("--mode %q: want %q or %q", *mode, preprocess.Exact, preprocess.AuthorsCode)
	}
	if err != nil {
		return err
	}
	rows := make([][]float64, enc.Rows())
	for r := range rows {
		rows[r] = make([]float64, *k)
	}
	if enc.Columns() > 0 {
		d := enc.Dense()
		for r := range rows {
			for c := range enc.Columns() {
				rows[r][c] = d.At(r, c)
			}
		}
	}
	return writeJSON(io.out, struct {
		Eigenvalues []float64   `json:"eigenvalues"`
		PE          [][]float64 `json:"pe"`
	}{append([]float64{}, enc.Values...), rows})
}
