package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonGraph is the command line's graph format:
//
//	{"num_nodes": 4, "edges": [[0,1],[1,2],[2,3]], "node_features": [6,6,8,6], "edge_features": [1,2,1]}
//
// Each undirected edge is listed once, in either orientation. The optional "node_features" hold
// one integer per node, or one list of integers per node; "edge_features" likewise per listed edge.
type jsonGraph struct {
	NumNodes     *int              `json:"num_nodes"`
	Edges        [][]int           `json:"edges"`
	NodeFeatures []json.RawMessage `json:"node_features"`
	EdgeFeatures []json.RawMessage `json:"edge_features"`
}

// ReadJSON reads a graph in the command line's JSON format (see the package example). name is
// used in error messages, which give the line and column of malformed JSON.
func ReadJSON(r io.Reader, name string) (*Graph, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var jg jsonGraph
	if err := dec.Decode(&jg); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%s:%s: %w", name, position(raw, syn.Offset), err)
		case errors.As(err, &typ):
			return nil, fmt.Errorf("%s:%s: field %q: %w", name, position(raw, typ.Offset), typ.Field, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if jg.NumNodes == nil {
		return nil, fmt.Errorf("%s: missing field \"num_nodes\"", name)
	}
	edges := make([]Edge, len(jg.Edges))
	for i, e := range jg.Edges {
		if len(e) != 2 {
			return nil, fmt.Errorf("%s: edges[%d]: want a pair [u,v], got %d numbers", name, i, len(e))
		}
		edges[i] = Edge{e[0], e[1]}
	}
	nf, err := decodeIntFeatures(jg.NodeFeatures)
	if err != nil {
		return nil, fmt.Errorf("%s: node_features%w", name, err)
	}
	ef, err := decodeIntFeatures(jg.EdgeFeatures)
	if err != nil {
		return nil, fmt.Errorf("%s: edge_features%w", name, err)
	}
	g, err := New(*jg.NumNodes, edges, nf, ef)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return g, nil
}

// decodeIntFeatures turns a list of integers, or of equal-length integer lists, into a table.
func decodeIntFeatures(rows []json.RawMessage) (Features, error) {
	if len(rows) == 0 {
		return Features{}, nil
	}
	f := Features{}
	for i, r := range rows {
		var one int32
		if err := json.Unmarshal(r, &one); err == nil {
			if f.Width > 1 {
				return Features{}, fmt.Errorf("[%d]: a single integer where rows have %d", i, f.Width)
			}
			f.Width = 1
			f.Ints = append(f.Ints, one)
			continue
		}
		var many []int32
		if err := json.Unmarshal(r, &many); err != nil || len(many) == 0 {
			return Features{}, fmt.Errorf("[%d]: want an integer or a non-empty list of integers, got %s", i, r)
		}
		if i > 0 && len(many) != f.Width {
			return Features{}, fmt.Errorf("[%d]: %d values where rows have %d", i, len(many), f.Width)
		}
		f.Width = len(many)
		f.Ints = append(f.Ints, many...)
	}
	return f, nil
}

// position returns "line:column" (both from 1) of the last byte the JSON decoder read when it
// failed, offset bytes into data: the offending character, or the end of the offending value.
func position(data []byte, offset int64) string {
	i := max(0, min(offset, int64(len(data)))-1)
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	col := i - int64(bytes.LastIndexByte(data[:i], '\n'))
	return fmt.Sprintf("%d:%d", line, col)
}
