package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// The graphs that parity predicts are ZINC's test molecules as the text export lists them
// (read here line by line, as the shell version did with awk), in the format sgformer predict
// reads.
func TestWriteGraphs(t *testing.T) {
	dir := shareddata.Dir(t, "zinc12k")
	j := &job{dir: t.TempDir()}
	if err := writeGraphs(j, dir, parityGraphs); err != nil {
		t.Fatal(err)
	}
	rows := func(file string, id int) [][]int {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]int
		sc := bufio.NewScanner(zr)
		for sc.Scan() {
			var row []int
			for _, w := range strings.Fields(sc.Text()) {
				n, err := strconv.Atoi(w)
				if err != nil {
					row = nil // the header
					break
				}
				row = append(row, n)
			}
			if len(row) > 0 && row[0] == id {
				out = append(out, row[1:])
			}
		}
		return out
	}
	for _, id := range parityGraphs {
		b, err := os.ReadFile(j.path("graph-" + strconv.Itoa(id) + ".json"))
		if err != nil {
			t.Fatal(err)
		}
		var got cliGraph
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		want := cliGraph{}
		nodes := rows("ZINC_Nodes.txt.gz", id) // node atom_type, in any order
		want.NumNodes = len(nodes)
		want.NodeFeatures = make([]int32, len(nodes))
		for _, r := range nodes {
			want.NodeFeatures[r[0]] = int32(r[1])
		}
		for _, r := range rows("ZINC_Edges.txt.gz", id) { // u v bond_type
			want.Edges = append(want.Edges, graph.Edge{r[0], r[1]})
			want.EdgeFeatures = append(want.EdgeFeatures, int32(r[2]))
		}
		if want.NumNodes == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("graph %d:\n got %+v\nwant %+v", id, got, want)
		}
		if _, err := graph.ReadJSON(bytes.NewReader(b), "graph"); err != nil {
			t.Errorf("graph %d: sgformer cannot read it: %v", id, err)
		}
	}
}
