package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/internal/memory"
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

// tooLarge names the input and its size in a refusal for lack of memory; other errors pass
// through.
func tooLarge(path string, g *graph.Graph, err error) error {
	if path == "-" {
		path = "<stdin>"
	}
	if _, ok := errors.AsType[*memory.Error](err); ok {
		return fmt.Errorf("%s: num_nodes = %d: %w", path, g.N(), err)
	}
	return err
}

// jsonWriter streams JSON through a buffered writer, which keeps the first write error for
// end to return.
type jsonWriter struct {
	w   *bufio.Writer
	buf []byte
}

func newJSONWriter(w io.Writer) *jsonWriter { return &jsonWriter{w: bufio.NewWriterSize(w, 1<<16)} }

func (j *jsonWriter) str(s string) { j.w.WriteString(s) }

// ints writes [x0,x1,...].
func (j *jsonWriter) ints(xs ...int32) {
	j.buf = append(j.buf[:0], '[')
	for i, x := range xs {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.buf = strconv.AppendInt(j.buf, int64(x), 10)
	}
	j.w.Write(append(j.buf, ']'))
}

// floats writes [x0,x1,...] as encoding/json does.
func (j *jsonWriter) floats(xs []float64) {
	j.buf = append(j.buf[:0], '[')
	for i, x := range xs {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.buf = appendJSONFloat(j.buf, x)
	}
	j.w.Write(append(j.buf, ']'))
}

// pairs writes the edges as [[dst,src],...].
func (j *jsonWriter) pairs(e product.Edges) {
	j.str("[")
	for i := range e.Dst {
		if i > 0 {
			j.str(",")
		}
		j.ints(e.Dst[i], e.Src[i])
	}
	j.str("]")
}

// end writes a newline and flushes, returning the first write error.
func (j *jsonWriter) end() error {
	j.str("\n")
	return j.w.Flush()
}

// appendJSONFloat appends x (finite) as encoding/json writes a float64: the shortest decimal
// that reads back as x, in exponent form below 1e-6 and from 1e21, with exponents without
// leading zeros.
func appendJSONFloat(b []byte, x float64) []byte {
	format := byte('f')
	if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, x, format, -1, 64)
	if format == 'e' { // e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

func productCmd(args []string, io stdio) error {
	fs := newFlagSet("product")
	path := fs.String("graph", "", "graph JSON file, or - for standard input")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	g, err := readGraph(*path, io)
	if err != nil {
		return err
	}
	n, m := g.N(), g.NumEdges()
	names := []product.Name{product.Internal, product.External, product.Point} // the JSON's keys, in order
	need := memory.Sum(product.GraphBytes(n, m, 2, names), product.MarkingBytes(n))
	if err := memory.Check(need, "the product graph and node marks of a graph with n = %d, |E| = %d (n² product nodes, 4·n·|E| + n² edges)", n, m); err != nil {
		return tooLarge(*path, g, err)
	}
	p, err := product.New(g, 2, names...)
	if err != nil {
		return tooLarge(*path, g, err)
	}
	marks, err := product.NodeMarking(g)
	if err != nil {
		return tooLarge(*path, g, err)
	}
	j := newJSONWriter(io.out)
	j.str(`{"num_nodes":` + strconv.Itoa(n))
	for _, c := range p.Connectivities {
		j.str(`,"` + c.Name.String() + `":`)
		j.pairs(c.Edges)
	}
	j.str(`,"distance":`)
	j.ints(marks...)
	j.str("}")
	return j.end()
}

// peUsage says what pe computes and what it costs.
const peUsage = `usage: sgformer pe --graph FILE [--k K] [--mode exact|reference]

Prints the k eigenpairs of the Laplacian of G□G with the smallest eigenvalues and the n² × k
PE, row s·n + v, as JSON: {"eigenvalues": [...], "pe": [[...], ...]}.

Cost: one eigendecomposition of G's n×n Laplacian, O(n³) time and 32·n² bytes of memory
(25 s and 0.13 GB at n = 2000, 17 minutes and 0.8 GB at n = 5000, on one core of a 2-core
machine); a graph whose eigendecomposition does not fit in the available memory is refused
before anything is computed. The output has n²·k numbers, about 20 bytes each (4.8 GB at
n = 5000, k = 8), written as they are computed.
`

func peCmd(args []string, io stdio) error {
	fs := newFlagSet("pe")
	path := fs.String("graph", "", "graph JSON file, or - for standard input")
	k := fs.Int("k", 8, "number of eigenpairs of the product graph's Laplacian")
	mode := fs.String("mode", string(preprocess.Exact), `"exact": the k smallest eigenpairs; "reference": the authors' code (no trivial eigenvector, zero padding)`)
	describe(fs, peUsage)
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *k < 0 {
		return usagef("--k %d must not be negative", *k)
	}
	m := preprocess.Mode(*mode)
	if m != preprocess.Exact && m != preprocess.AuthorsCode {
		return usagef("--mode %q: want %q or %q", *mode, preprocess.Exact, preprocess.AuthorsCode)
	}
	g, err := readGraph(*path, io)
	if err != nil {
		return err
	}
	n := g.N()
	pairs := min(*k, n*n)
	need := memory.Sum(pe.SpectrumBytes(n), pe.TupleBytes(pairs, 2), memory.Bytes(8, min(2*pairs, n), n))
	if err := memory.Check(need, "the PE of a %d-node graph with k = %d (an eigendecomposition of its n×n Laplacian)", n, *k); err != nil {
		return tooLarge(*path, g, err)
	}
	spec, err := pe.NewSpectrum(g)
	if err != nil {
		return tooLarge(*path, g, err)
	}
	var enc *pe.Encoding
	if m == preprocess.Exact {
		enc, err = pe.Product(spec, *k)
	} else {
		enc, err = pe.Reference(spec, *k)
	}
	if err != nil {
		return tooLarge(*path, g, err)
	}
	j := newJSONWriter(io.out)
	j.str(`{"eigenvalues":`)
	j.floats(enc.Values)
	j.str(`,"pe":[`)
	row := make([]float64, *k)
	for r := range enc.Rows() {
		if r > 0 {
			j.str(",")
		}
		j.floats(enc.Row(r, row))
	}
	j.str("]}")
	return j.end()
}
