package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/product"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

const triangleTail = `{"num_nodes": 4, "edges": [[0,1],[1,2],[2,0],[3,2]]}`

func TestProductCommand(t *testing.T) {
	code, out, stderr := runCLI(t, triangleTail, "product", "--graph", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		NumNodes                  int `json:"num_nodes"`
		Internal, External, Point [][2]int32
		Distance                  []int32
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	g, _ := graph.ReadJSON(strings.NewReader(triangleTail), "g")
	p, _ := product.New(g, 2)
	internal, _ := p.Connectivity("internal")
	external, _ := p.Connectivity("external")
	if got.NumNodes != 4 || len(got.Internal) != internal.Len() || len(got.External) != external.Len() || len(got.Point) != 16 || len(got.Distance) != 16 {
		t.Fatalf("product output %+v", got)
	}
	for i, e := range got.External {
		if e != [2]int32{external.Dst[i], external.Src[i]} {
			t.Fatalf("external[%d] = %v", i, e)
		}
	}
	if got.Distance[0*4+3] != 2 || got.Distance[3*4+3] != 0 || got.Point[1] != [2]int32{1, 5} {
		t.Fatalf("distance d(0,3) = %d, point[1] = %v", got.Distance[3], got.Point[1])
	}
}

func TestPECommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.json")
	os.WriteFile(path, []byte(triangleTail), 0o644)
	code, out, stderr := runCLI(t, "", "pe", "--graph", path, "--k", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Eigenvalues []float64
		PE          [][]float64
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	g, _ := graph.ReadJSON(strings.NewReader(triangleTail), "g")
	spec, _ := pe.NewSpectrum(g)
	enc, _ := pe.Product(spec, 5)
	d := enc.Dense()
	if len(got.Eigenvalues) != 5 || len(got.PE) != 16 || len(got.PE[0]) != 5 {
		t.Fatalf("pe output: %d eigenvalues, %d rows", len(got.Eigenvalues), len(got.PE))
	}
	for c := range 5 {
		if got.Eigenvalues[c] != enc.Values[c] {
			t.Fatalf("eigenvalue %d = %v, want %v", c, got.Eigenvalues[c], enc.Values[c])
		}
		for r := range 16 {
			if math.Abs(got.PE[r][c]-d.At(r, c)) > 0 {
				t.Fatalf("pe[%d][%d] = %v, want %v", r, c, got.PE[r][c], d.At(r, c))
			}
		}
	}
	// The reference mode pads with zero columns.
	code, out, _ = runCLI(t, triangleTail, "pe", "--graph", "-", "--k", "8", "--mode", "reference")
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got.Eigenvalues) != 8 || len(got.PE[0]) != 8 {
		t.Fatalf("reference mode: exit %d, %d eigenvalues", code, len(got.Eigenvalues))
	}
	// n = 4 has m = 3 non-trivial eigenvectors: 8 of the 9 pairs, no padding needed.
	code, out, _ = runCLI(t, `{"num_nodes": 3, "edges": [[0,1]]}`, "pe", "--graph", "-", "--k", "8", "--mode", "reference")
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got.Eigenvalues) != 4 || got.PE[0][7] != 0 {
		t.Fatalf("reference mode on a small graph: exit %d, eigenvalues %v", code, got.Eigenvalues)
	}
}

func TestCommandErrors(t *testing.T) {
	tests := []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"", nil, 2, "usage: sgformer COMMAND"},
		{"", []string{"train2"}, 2, `unknown command "train2"`},
		{"", []string{"pe"}, 2, "--graph FILE is required"},
		{"", []string{"pe", "--graph", "/does/not/exist.json"}, 1, "open /does/not/exist.json"},
		{`{"num_nodes": 2, "edges": [[0,0]]}`, []string{"product", "--graph", "-"}, 1, "<stdin>:1:28: graph: edge 0 (0,0): self loop on node 0"},
		{"{\"num_nodes\": 2,\n\"edges\": [[0,1]]]", []string{"pe", "--graph", "-"}, 1, "<stdin>:2:17: invalid character"},
		{triangleTail, []string{"pe", "--graph", "-", "--k", "17"}, 1, "k = 17 eigenpairs asked of a product graph with 16 nodes"},
		{triangleTail, []string{"pe", "--graph", "-", "--k", "-1"}, 2, "--k -1 must not be negative"},
		{triangleTail, []string{"pe", "--graph", "-", "--mode", "fast"}, 2, `--mode "fast"`},
		{"", []string{"product", "--graph", "-", "extra"}, 2, `unexpected argument "extra"`},
		{"", []string{"preprocess", "--dataset", "qm9", "--data-dir", "x", "--out", "y"}, 2, `unknown dataset "qm9"`},
		{"", []string{"preprocess", "--dataset", "zinc12k", "--data-dir", "/nonexistent", "--out", "y"}, 1, "data: zinc12k: stat /nonexistent: no such file or directory"},
	}
	for _, tc := range tests {
		code, _, stderr := runCLI(t, tc.stdin, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("sgformer %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestPreprocessCommand(t *testing.T) {
	dir := shareddata.Dir(t, "zinc12k")
	out := t.TempDir()
	for _, recomputed := range []bool{true, false} {
		code, stdout, stderr := runCLI(t, "", "preprocess", "--dataset", "zinc12k", "--data-dir", dir, "--pe-k", "4", "--pe-mode", "exact", "--out", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if got["graphs"] != 12000.0 || got["recomputed"] != recomputed || got["product_nodes"] != 6674994.0 {
			t.Fatalf("summary %v", got)
		}
		if _, err := os.Stat(filepath.Join(out, "zinc12k-pe4-exact.cache")); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr, "\r") { // stderr is not a terminal here
			t.Errorf("a progress bar redrawn in place in a log: %q", stderr)
		}
	}
}

// preprocess with its defaults warms the cache train reads (the dataset's recipe's PE, train's
// cache directory), and train moves a damaged cache aside and computes it again.
func TestPreprocessWarmsTrain(t *testing.T) {
	dir := shareddata.Dir(t, "ogbg_molesol")
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the user cache directory both default to
	if code, _, stderr := runCLI(t, "", "preprocess", "--dataset", "ogbg-molesol", "--data-dir", dir); code != 0 {
		t.Fatalf("preprocess: exit %d: %s", code, stderr)
	}
	train := []string{"train", "--dataset", "ogbg-molesol", "--data-dir", dir, "--train-subset", "16", "--epochs", "1", "--layers", "1", "--backend", "go"}
	code, _, stderr := runCLI(t, "", append(train, "--out", filepath.Join(t.TempDir(), "run"))...)
	if code != 0 || strings.Contains(stderr, "preprocessed") {
		t.Fatalf("train after preprocess: exit %d, computed the cache again: %s", code, stderr)
	}
	caches, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "sgformer", "*.cache"))
	if len(caches) != 1 {
		t.Fatalf("caches %v", caches)
	}
	if err := os.WriteFile(caches[0], []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "", append(train, "--out", filepath.Join(t.TempDir(), "run"))...)
	if code != 0 || !strings.Contains(stderr, "moved to "+caches[0]+".corrupt, computing it again") {
		t.Fatalf("train on a damaged cache: exit %d: %s", code, stderr)
	}
}

// In a log, preprocessing reports its progress in lines (at most one per interval), with the
// rate and the ETA, and none once every graph is done.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	progress := progressLines(&b, "preprocess zinc12k", 10, 0)
	progress(4)
	progress(10)
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "preprocess zinc12k: 4/10 graphs  ") || !strings.Contains(lines[0], "graphs/s  eta ") {
		t.Errorf("lines %q", b.String())
	}
	b.Reset()
	progress = progressLines(&b, "preprocess zinc12k", 10, time.Hour)
	progress(4)
	if b.Len() != 0 {
		t.Errorf("a line before the interval: %q", b.String())
	}
}

// Every command's -h prints, on stdout with exit status 0, its usage line, what it does and
// its flags; a mistake prints them on stderr.
func TestHelp(t *testing.T) {
	for _, c := range commands {
		code, stdout, stderr := runCLI(t, "", c.name, "-h")
		lines := strings.Split(stdout, "\n")
		if code != 0 || stderr != "" || len(lines) < 4 || !strings.HasPrefix(lines[0], "usage: sgformer "+c.name) || lines[2] == "" || !strings.Contains(stdout, "\nflags:\n") || strings.Count(strings.ToLower(stdout), "flags:\n") != 1 {
			t.Errorf("%s -h: exit %d, stdout %q, stderr %q", c.name, code, stdout, stderr)
		}
		if code2, stdout2, _ := runCLI(t, "", "help", c.name); code2 != 0 || stdout2 != stdout {
			t.Errorf("help %s: exit %d, stdout %q; want %s -h's", c.name, code2, stdout2, c.name)
		}
		code, stdout, stderr = runCLI(t, "", c.name, "--no-such-flag")
		if code != 2 || stdout != "" || !strings.Contains(stderr, "usage: sgformer "+c.name) {
			t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr %q", c.name, code, stdout, stderr)
		}
	}
}
