package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/pe"
)

// pathJSON returns the graph JSON of a path on n nodes.
func pathJSON(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"num_nodes": %d, "edges": [`, n)
	for v := 1; v < n; v++ {
		if v > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d,%d]", v-1, v)
	}
	b.WriteString("]}")
	return b.String()
}

// A graph too large for the machine is refused with an error naming the file, the input size
// and what it would need — not a runtime crash with a goroutine dump.
func TestTooLargeForMemory(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	os.WriteFile(huge, []byte(`{"num_nodes": 100000, "edges": [[0,1]]}`), 0o644)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(pathJSON(3000)), 0o644)
	for _, tc := range []struct {
		limit int64
		args  []string
		want  []string
	}{
		{1 << 30, []string{"pe", "--graph", huge}, []string{huge + ": num_nodes = 100000: ", "100000-node graph", "needs 298.1 GiB of memory, more than the 1.0 GiB available"}},
		{1 << 30, []string{"product", "--graph", huge}, []string{huge + ": num_nodes = 100000: ", "needs", "more than the 1.0 GiB available"}},
		{64 << 20, []string{"product", "--graph", big}, []string{big + ": num_nodes = 3000: ", "n = 3000, |E| = 2999"}},
		{64 << 20, []string{"pe", "--graph", big}, []string{big + ": num_nodes = 3000: ", "more than the 64.0 MiB available"}},
	} {
		restore := memory.SetLimit(tc.limit)
		code, stdout, stderr := runCLI(t, "", tc.args...)
		restore()
		if code != 1 || stdout != "" {
			t.Errorf("sgformer %v: exit %d, %d bytes on stdout; want exit 1 and nothing", tc.args, code, len(stdout))
		}
		for _, want := range tc.want {
			if !strings.Contains(stderr, want) {
				t.Errorf("sgformer %v: stderr %q lacks %q", tc.args, stderr, want)
			}
		}
	}
}

// The preprocess command refuses a dataset whose preprocessed form does not fit, naming the
// dataset and its largest graph.
func TestPreprocessTooLarge(t *testing.T) {
	dir := t.TempDir()
	var nodes, edges strings.Builder
	for v := range 2000 {
		fmt.Fprintf(&nodes, "0 %d 6\n", v)
		if v > 0 {
			fmt.Fprintf(&edges, "0 %d %d 1\n", v-1, v)
		}
	}
	fmt.Fprintf(&nodes, "1 0 6\n1 1 6\n")
	fmt.Fprintf(&edges, "1 0 1 1\n")
	for name, content := range map[string]string{
		"ZINC_Nodes.txt": nodes.String(), "ZINC_Edges.txt": edges.String(), "ZINC_Labels.txt": "0 1\n1 2\n",
		"ZINC_splits.json": `[{"test": [1], "model_selection": [{"train": [0], "validation": []}]}]`,
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	defer memory.SetLimit(64 << 20)()
	code, _, stderr := runCLI(t, "", "preprocess", "--dataset", "zinc12k", "--data-dir", dir, "--out", t.TempDir(), "--no-verify")
	for _, want := range []string{"2 graphs", "largest graph 0 (2000 nodes)", "more than the 64.0 MiB available"} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
		}
	}
}

// pe streams its output: memory does not grow with the n²×k table it prints, and the bytes are
// those of encoding/json.
func TestPEStreams(t *testing.T) {
	const n, k = 150, 64
	doc := pathJSON(n)
	g, err := graph.ReadJSON(strings.NewReader(doc), "g")
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := pe.NewSpectrum(g)
	enc, _ := pe.Product(spec, k)
	d := enc.Dense()
	rows := make([][]float64, n*n)
	for r := range rows {
		rows[r] = make([]float64, k)
		for c := range k {
			rows[r][c] = d.At(r, c)
		}
	}
	var want bytes.Buffer
	json.NewEncoder(&want).Encode(struct {
		Eigenvalues []float64   `json:"eigenvalues"`
		PE          [][]float64 `json:"pe"`
	}{enc.Values, rows})

	var before, after runtime.MemStats
	out := &hashWriter{h: sha256.New()}
	var errOut bytes.Buffer
	runtime.ReadMemStats(&before)
	code := run([]string{"pe", "--graph", "-", "--k", fmt.Sprint(k)}, strings.NewReader(doc), out, &errOut)
	runtime.ReadMemStats(&after)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if sum := sha256.Sum256(want.Bytes()); out.n != want.Len() || !bytes.Equal(out.h.Sum(nil), sum[:]) {
		t.Errorf("output (%d bytes) differs from encoding/json's (%d bytes)", out.n, want.Len())
	}
	// The spectrum is 4 n×n float64 (0.7 MB); neither the n²·k table (11.5 MB of float64)
	// nor its JSON (30 MB) may be held in memory.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("pe allocated %d bytes for a %d-byte output; want at most 8 MiB", alloc, out.n)
	}
}

// hashWriter hashes and counts what is written to it.
type hashWriter struct {
	h hash.Hash
	n int
}

func (w *hashWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return w.h.Write(p)
}
