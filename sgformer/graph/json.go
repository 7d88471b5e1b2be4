package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// The command line's graph format:
//
//	{"num_nodes": 4, "edges": [[0,1],[1,2],[2,3]], "node_features": [6,6,8,6], "edge_features": [1,2,1]}
//
// Each undirected edge is listed once, in either orientation. The optional "node_features" hold
// one integer per node, or one list of integers per node; "edge_features" likewise per listed
// edge.

// ReadJSON reads a graph in the command line's JSON format (see the package example). name is
// used in error messages, which speak of the format, not of Go: they give the line and column
// of the offending value, the field and element (e.g. "edges[2][0]: want an integer node id,
// got 1.5"), and say when the input is empty or ends inside the graph. It reads the input
// token by token, allocating in proportion to it.
//
// An input larger than MaxJSONBytes is refused once that much is read, and a value quoted in an
// error is cut to its first quoteLimit characters.
func ReadJSON(r io.Reader, name string) (*Graph, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(raw) > MaxJSONBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB, the most a graph file may hold (the product graph of a graph that large would not fit in memory)", name, MaxJSONBytes>>20)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf(`%s: empty file: want a graph in JSON, {"num_nodes": n, "edges": [[u,v], ...]}`, name)
	}
	p := &jsonParser{raw: raw, name: name, dec: json.NewDecoder(bytes.NewReader(raw))}
	p.dec.UseNumber()
	g, err := p.graph()
	if err != nil {
		return nil, err
	}
	return g, nil
}

// MaxJSONBytes bounds the size of a graph file (ReadJSON): some 64 times the JSON of a graph of
// 5,000 nodes and 100,000 edges with features, whose product graph has 25 million nodes.
const MaxJSONBytes = 64 << 20

// quoteLimit is how many characters of a value an error quotes (quote).
const quoteLimit = 40

// quote quotes s as Go does, cut to its first quoteLimit characters (cut).
func quote(s string) string { return cut(s, strconv.Quote) }

// cut returns form(s), or where s is longer than quoteLimit characters form of its first ones
// and how long it was.
func cut(s string, form func(string) string) string {
	n := 0
	for i := range s {
		if n == quoteLimit {
			return fmt.Sprintf("%s… (%d bytes)", form(s[:i]), len(s))
		}
		n++
	}
	return form(s)
}

// jsonParser reads the graph format from raw with a token decoder, for errors that name the
// position and field of what is wrong.
type jsonParser struct {
	raw  []byte
	name string
	dec  *json.Decoder
}

// graph reads the whole input.
func (p *jsonParser) graph() (*Graph, error) {
	at, tok, err := p.token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, p.errorf(at, `want a graph object {"num_nodes": n, "edges": [[u,v], ...]}, got %s`, describe(tok))
	}
	var (
		n          *int
		edges      []Edge
		edgeAt     []int64 // offset of each edge, for the errors of New
		nf, ef     Features
		seen       = map[string]bool{}
		fieldNames = "num_nodes, edges, node_features, edge_features"
	)
	for p.dec.More() {
		at, tok, err := p.token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // object keys are strings
		if seen[key] {
			return nil, p.errorf(at, "%s given twice", quote(key))
		}
		seen[key] = true
		switch key {
		case "num_nodes":
			at, tok, err := p.token()
			if err != nil {
				return nil, err
			}
			x, ok := integer(tok)
			if !ok || x < 0 {
				return nil, p.errorf(at, "num_nodes: want a non-negative integer, got %s", describe(tok))
			}
			v := int(x)
			n = &v
		case "edges":
			if edges, edgeAt, err = p.edges(); err != nil {
				return nil, err
			}
		case "node_features":
			if nf, err = p.features(key); err != nil {
				return nil, err
			}
		case "edge_features":
			if ef, err = p.features(key); err != nil {
				return nil, err
			}
		default:
			return nil, p.errorf(at, "unknown field %s (want %s)", quote(key), fieldNames)
		}
	}
	if _, _, err := p.token(); err != nil { // the closing brace
		return nil, err
	}
	end := p.dec.InputOffset()
	if rest := bytes.TrimLeft(p.raw[end:], " \t\r\n"); len(rest) > 0 {
		return nil, p.errorf(int64(len(p.raw)-len(rest)), "unexpected data after the graph")
	}
	if n == nil {
		return nil, fmt.Errorf("%s: missing field \"num_nodes\"", p.name)
	}
	g, err := New(*n, edges, nf, ef)
	if ee, ok := errors.AsType[*EdgeError](err); ok {
		return nil, p.errorf(edgeAt[ee.Index], "%w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return g, nil
}

// edges reads the list of pairs [[u,v], ...] and the offset of each pair.
func (p *jsonParser) edges() ([]Edge, []int64, error) {
	at, tok, err := p.token()
	if err != nil {
		return nil, nil, err
	}
	if tok != json.Delim('[') {
		return nil, nil, p.errorf(at, "edges: want a list of pairs [[u,v], ...], got %s", describe(tok))
	}
	var edges []Edge
	var offsets []int64
	for i := 0; p.dec.More(); i++ {
		at, tok, err := p.token()
		if err != nil {
			return nil, nil, err
		}
		if tok != json.Delim('[') {
			return nil, nil, p.errorf(at, "edges[%d]: want a pair [u,v], got %s", i, describe(tok))
		}
		var e Edge
		count := 0
		for ; p.dec.More(); count++ {
			at, tok, err := p.token()
			if err != nil {
				return nil, nil, err
			}
			x, ok := integer(tok)
			if !ok || x < math.MinInt || x > math.MaxInt {
				return nil, nil, p.errorf(at, "edges[%d][%d]: want an integer node id, got %s", i, count, describe(tok))
			}
			if count < 2 {
				e[count] = int(x)
			}
		}
		if _, _, err := p.token(); err != nil { // ']'
			return nil, nil, err
		}
		if count != 2 {
			return nil, nil, p.errorf(at, "edges[%d]: want a pair [u,v], got %d numbers", i, count)
		}
		edges, offsets = append(edges, e), append(offsets, at)
	}
	if _, _, err := p.token(); err != nil { // ']'
		return nil, nil, err
	}
	return edges, offsets, nil
}

// features reads a list of integers, or of equal-length non-empty integer lists, into a table.
func (p *jsonParser) features(field string) (Features, error) {
	at, tok, err := p.token()
	if err != nil {
		return Features{}, err
	}
	if tok != json.Delim('[') {
		return Features{}, p.errorf(at, "%s: want a list with an integer or a list of integers per row, got %s", field, describe(tok))
	}
	f := Features{}
	for i := 0; p.dec.More(); i++ {
		at, tok, err := p.token()
		if err != nil {
			return Features{}, err
		}
		if tok != json.Delim('[') { // one integer
			x, ok := integer(tok)
			if !ok {
				return Features{}, p.errorf(at, "%s[%d]: want an integer or a non-empty list of integers, got %s", field, i, describe(tok))
			}
			if x < math.MinInt32 || x > math.MaxInt32 {
				return Features{}, p.errorf(at, "%s[%d]: %d does not fit in 32 bits", field, i, x)
			}
			if f.Width > 1 {
				return Features{}, p.errorf(at, "%s[%d]: a single integer where rows have %d", field, i, f.Width)
			}
			f.Width = 1
			f.Ints = append(f.Ints, int32(x))
			continue
		}
		width := 0
		for ; p.dec.More(); width++ {
			at, tok, err := p.token()
			if err != nil {
				return Features{}, err
			}
			x, ok := integer(tok)
			if !ok {
				return Features{}, p.errorf(at, "%s[%d][%d]: want an integer, got %s", field, i, width, describe(tok))
			}
			if x < math.MinInt32 || x > math.MaxInt32 {
				return Features{}, p.errorf(at, "%s[%d][%d]: %d does not fit in 32 bits", field, i, width, x)
			}
			f.Ints = append(f.Ints, int32(x))
		}
		if _, _, err := p.token(); err != nil { // ']'
			return Features{}, err
		}
		switch {
		case width == 0:
			return Features{}, p.errorf(at, "%s[%d]: want an integer or a non-empty list of integers, got []", field, i)
		case i > 0 && width != f.Width:
			return Features{}, p.errorf(at, "%s[%d]: %d values where rows have %d", field, i, width, f.Width)
		}
		f.Width = width
	}
	if _, _, err := p.token(); err != nil { // ']'
		return Features{}, err
	}
	if f.Width == 0 {
		return Features{}, nil
	}
	return f, nil
}

// token returns the next token and the offset where it starts. A syntax error or the end of
// the input (the graph is not over when token is called) is an error naming the position.
func (p *jsonParser) token() (int64, json.Token, error) {
	at := p.dec.InputOffset()
	for at < int64(len(p.raw)) && bytes.IndexByte([]byte(" \t\r\n,:"), p.raw[at]) >= 0 {
		at++
	}
	tok, err := p.dec.Token()
	if syn, ok := errors.AsType[*json.SyntaxError](err); ok {
		return at, nil, fmt.Errorf("%s:%s: %w", p.name, position(p.raw, syn.Offset+1), err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		end := int64(len(bytes.TrimRight(p.raw, " \t\r\n")))
		return at, nil, fmt.Errorf("%s:%s: truncated: the file ends inside the graph", p.name, position(p.raw, end))
	}
	if err != nil {
		return at, nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return at, tok, nil
}

// errorf formats an error at the byte offset at of the input.
func (p *jsonParser) errorf(at int64, format string, args ...any) error {
	return fmt.Errorf("%s:%s: %w", p.name, position(p.raw, at+1), fmt.Errorf(format, args...))
}

// integer returns the value of a JSON number token that is an integer (no fraction or
// exponent) fitting in 64 bits.
func integer(tok json.Token) (int64, bool) {
	num, ok := tok.(json.Number)
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseInt(string(num), 10, 64)
	return x, err == nil
}

// describe writes a token as the input has it, for "got ..." in messages.
func describe(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		return string(t)
	case string:
		return quote(t)
	case json.Number:
		return cut(string(t), func(s string) string { return s })
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

// position returns "line:column" (both from 1) of the last byte the JSON decoder read when it
// failed, offset bytes into data: the offending character, or the end of the offending value.
func position(data []byte, offset int64) string {
	i := max(0, min(offset, int64(len(data)))-1)
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	col := i - int64(bytes.LastIndexByte(data[:i], '\n'))
	return fmt.Sprintf("%d:%d", line, col)
}
