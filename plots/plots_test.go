package plots_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/product"
	"github.com/sgformer/sgformer/sgformer/training"
)

// newGraph builds a featureless graph or fails the test.
func newGraph(t *testing.T, n int, edges ...graph.Edge) *graph.Graph {
	t.Helper()
	g, err := graph.New(n, edges, graph.Features{}, graph.Features{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// molecule is a six-ring with a two-atom side chain.
func molecule(t *testing.T) *graph.Graph {
	return newGraph(t, 8, graph.Edge{0, 1}, graph.Edge{1, 2}, graph.Edge{2, 3}, graph.Edge{3, 4}, graph.Edge{4, 5}, graph.Edge{5, 0}, graph.Edge{2, 6}, graph.Edge{6, 7})
}

// records is a short run whose validation metric is best at epoch 3 of 5.
func records() []training.Record {
	valid := []float64{2.0, 1.2, 0.9, 1.1, 1.0}
	var recs []training.Record
	best := 0
	for i, v := range valid {
		if best == 0 || v < valid[best-1] {
			best = i + 1
		}
		recs = append(recs, training.Record{Epoch: i + 1, TrainLoss: 3 / float64(i+1), Valid: v, Test: v + 0.1, LR: 1e-3 / float64(1+i/3), BestEpoch: best})
	}
	return recs
}

// checkSVG checks that data is well-formed XML with an <svg> root and holds each text, that
// every path starts with a move (viewers drop those that do not), and that every embedded
// image is PNG data labelled as such, stretched to its rectangle.
func checkSVG(t *testing.T, data []byte, texts ...string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = el.Name.Local
		}
		attrs := map[string]string{}
		for _, a := range el.Attr {
			attrs[a.Name.Local] = a.Value
		}
		switch el.Name.Local {
		case "path":
			if d := attrs["d"]; !strings.HasPrefix(d, "M") {
				t.Fatalf("SVG path %.40q does not start with a move", d)
			}
		case "image":
			if !strings.HasPrefix(attrs["href"], "data:image/png;base64,") || attrs["preserveAspectRatio"] != "none" {
				t.Fatalf("SVG image with preserveAspectRatio %q and data %.30q", attrs["preserveAspectRatio"], attrs["href"])
			}
		}
	}
	if root != "svg" {
		t.Fatalf("SVG root element %q", root)
	}
	for _, text := range texts {
		if !bytes.Contains(data, []byte(text)) {
			t.Errorf("SVG lacks the text %q", text)
		}
	}
}

// checkPNG checks that data decodes as a PNG of the figure's size at its DPI.
func checkPNG(t *testing.T, f *plots.Figure, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	dpi := float64(f.DPI)
	w, h := int(f.Width.Dots(dpi)+0.5), int(f.Height.Dots(dpi)+0.5)
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("PNG is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
}

func TestFiguresRender(t *testing.T) {
	g := molecule(t)
	p, err := product.New(g, 2)
	if err != nil {
		t.Fatal(err)
	}
	external, _ := p.Connectivity("external")
	adjacency, err := plots.AdjacencyMatrix(p.NumNodes(), external)
	if err != nil {
		t.Fatal(err)
	}
	signed := mat.NewDense(3, 2, []float64{-1, 0.5, 0.25, 0, 1, -0.75})
	nodeValues := []float64{-2, -1, 0, 1, 2, 3, 0.5, -0.5}
	productValues := make([]float64, 64)
	for i := range productValues {
		productValues[i] = math.Sin(float64(i))
	}
	timing := []plots.Series{
		{Name: "product PE", X: []float64{4, 8, 16}, Mean: []float64{1e-4, 3e-4, 1e-3}, Std: []float64{1e-5, 2e-5, 1e-4}},
		{Name: "brute force", X: []float64{4, 8, 16}, Mean: []float64{1e-3, 5e-2, 3}},
	}
	ablation := []plots.Series{
		{Name: "with PE", X: []float64{0.2, 0.5, 1}, Mean: []float64{0.2, 0.1, 0.07}, Std: []float64{0.01, 0.01, 0.003}},
		{Name: "without PE", X: []float64{0.2, 0.5, 1}, Mean: []float64{0.25, 0.12, 0.08}, Std: []float64{0.02, 0.01, 0.004}},
	}
	for _, tc := range []struct {
		name  string
		make  func() (*plots.Figure, error)
		texts []string
	}{
		{"curves", func() (*plots.Figure, error) { return plots.Curves(records(), "mae") }, []string{"Training loss", "Validation and test MAE", "Learning rate", "best epoch 3"}},
		{"heatmap adjacency", func() (*plots.Figure, error) { return plots.Heatmap("A_{G^S}", adjacency) }, []string{"A_{G^S}", "row", "column"}},
		{"heatmap signed", func() (*plots.Figure, error) { return plots.Heatmap("PE", signed) }, []string{"PE"}},
		{"product heatmap", func() (*plots.Figure, error) { return plots.ProductHeatmap("A_{G^S}", adjacency, g.N()) }, []string{"A_{G^S}"}},
		{"graph", func() (*plots.Figure, error) { return plots.Graph(g, nodeValues, "node values") }, []string{"node values"}},
		{"product graph", func() (*plots.Figure, error) { return plots.ProductGraph(g, productValues, "on G□G") }, []string{"on G□G", "internal edges"}},
		{"eigenvector figure", func() (*plots.Figure, error) { return plots.EigenvectorFigure(g) }, []string{"G: v₁", "G□G: v₁(s)·v₁(v)"}},
		{"curves one epoch", func() (*plots.Figure, error) { return plots.Curves(records()[:1], "mae") }, []string{"best epoch 1"}},
		{"graph one node", func() (*plots.Figure, error) { return plots.Graph(newGraph(t, 1), []float64{0.5}, "a node") }, []string{"a node", "n = 1, |E| = 0"}},
		{"graph labelled", func() (*plots.Figure, error) {
			return plots.Graph(g, nodeValues, "atoms", plots.NodeLabels([]string{"C", "N", "O", "Cl", "", "S", "C", "Na"}))
		}, []string{"atoms", ">Cl<", ">Na<", ">N<"}},
		{"graph disconnected", func() (*plots.Figure, error) {
			return plots.EigenvectorFigure(newGraph(t, 5, graph.Edge{0, 1}, graph.Edge{1, 2}, graph.Edge{3, 4}))
		}, []string{"λ₁ = "}},
		{"lines one unnamed series", func() (*plots.Figure, error) {
			return plots.Lines("one", "x", "y", false, []plots.Series{{X: []float64{1, 2}, Mean: []float64{3, 3}}})
		}, []string{"one"}},
		{"lines log", func() (*plots.Figure, error) { return plots.Lines("PE time", "n", "seconds", true, timing) }, []string{"PE time", "product PE", "brute force", "seconds"}},
		{"ablation", func() (*plots.Figure, error) { return plots.Ablation("Sampling", "ratio", "test MAE", ablation) }, []string{"Sampling", "with PE", "without PE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			svg, err := f.SVG()
			if err != nil {
				t.Fatal(err)
			}
			checkSVG(t, svg, tc.texts...)
			data, err := f.PNG()
			if err != nil {
				t.Fatal(err)
			}
			checkPNG(t, f, data)
		})
	}
}

// ProductHeatmap adds one separator per block boundary of each n²-long axis: 2(n−1) lines on
// an n²×n² matrix, n−1 on a k×n² one.
func TestProductHeatmapBlocks(t *testing.T) {
	const n = 4
	paths := func(f *plots.Figure, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(svg, []byte("<path"))
	}
	square, wide := mat.NewDense(n*n, n*n, nil), mat.NewDense(3, n*n, nil)
	square.Set(0, 1, 1)
	wide.Set(0, 1, 1)
	if d := paths(plots.ProductHeatmap("a", square, n)) - paths(plots.Heatmap("a", square)); d != 2*(n-1) {
		t.Errorf("n²×n²: %d more paths, want %d", d, 2*(n-1))
	}
	if d := paths(plots.ProductHeatmap("a", wide, n)) - paths(plots.Heatmap("a", wide)); d != n-1 {
		t.Errorf("3×n²: %d more paths, want %d", d, n-1)
	}
}

// The same input gives the same figure, byte for byte (the graph layout is deterministic).
func TestDeterministic(t *testing.T) {
	var out [2][]byte
	for i := range out {
		f, err := plots.EigenvectorFigure(molecule(t))
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = f.SVG(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Fatal("two renderings of the same figure differ")
	}
}

func TestSave(t *testing.T) {
	f, err := plots.Curves(records(), "mae")
	if err != nil {
		t.Fatal(err)
	}
	f.Title = "a run"
	dir := t.TempDir()
	for _, name := range []string{"curves.svg", "curves.PNG", "sub/dir/curves.png"} {
		path := filepath.Join(dir, name)
		if err := f.Save(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".svg") {
			checkSVG(t, data, "a run")
		} else {
			checkPNG(t, f, data)
		}
	}
	// Saving again replaces the file.
	if err := f.Save(filepath.Join(dir, "curves.svg")); err != nil {
		t.Fatal(err)
	}
	err = f.Save(filepath.Join(dir, "curves.jpg"))
	if err == nil || !strings.Contains(err.Error(), `unknown image format ".jpg"`) || !strings.Contains(err.Error(), "want .svg or .png") {
		t.Fatalf("saving as .jpg: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "curves.PNG curves.svg sub" {
		t.Fatalf("directory holds %v: a temporary file left behind, or a .jpg written", names)
	}
}

func TestCurvesBestEpoch(t *testing.T) {
	recs := records()
	// The best epoch is the one the last record names, even where a later epoch ties.
	recs[4].Valid = recs[2].Valid
	f, err := plots.Curves(recs, "rmse")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	checkSVG(t, svg, "best epoch 3", "Validation and test RMSE")
	// A resumed run that repeated epoch 5: the later record counts.
	recs = append(recs, training.Record{Epoch: 5, TrainLoss: 0.5, Valid: 0.5, Test: 0.6, LR: 1e-3, BestEpoch: 5})
	if f, err = plots.Curves(recs, "mae"); err != nil {
		t.Fatal(err)
	}
	if svg, err = f.SVG(); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, svg, "best epoch 5")
}

// AdjacencyMatrix against the definitions of A_G = I ⊗ A, A_{G^S} = A ⊗ I and A_point on the
// path 0 – 1 – 2.
func TestAdjacencyMatrix(t *testing.T) {
	const n = 3
	g := newGraph(t, n, graph.Edge{0, 1}, graph.Edge{1, 2})
	adj := func(a, b int) bool { return a-b == 1 || b-a == 1 }
	p, err := product.New(g, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		edges product.Edges
		want  func(s, v, t, w int) bool // (s, v) ← (t, w)
	}{
		{"internal", conn(p, "internal"), func(s, v, t, w int) bool { return s == t && adj(v, w) }},
		{"external", conn(p, "external"), func(s, v, t, w int) bool { return v == w && adj(s, t) }},
		{"point", conn(p, "point"), func(s, v, t, w int) bool { return t == v && w == v }},
	} {
		a, err := plots.AdjacencyMatrix(n*n, tc.edges)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := a.Dims(); r != n*n || c != n*n {
			t.Fatalf("%s: %d×%d matrix", tc.name, r, c)
		}
		for s := range n {
			for v := range n {
				for u := range n {
					for w := range n {
						want := 0.0
						if tc.want(s, v, u, w) {
							want = 1
						}
						if got := a.At(s*n+v, u*n+w); got != want {
							t.Errorf("%s: entry ((%d,%d), (%d,%d)) = %v, want %v", tc.name, s, v, u, w, got, want)
						}
					}
				}
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	g := molecule(t)
	one := newGraph(t, 1)
	nan := math.NaN()
	for _, tc := range []struct {
		name, want string
		make       func() (any, error)
	}{
		{"curves empty", "no training records", func() (any, error) { return plots.Curves(nil, "mae") }},
		{"curves NaN", "epoch 2 holds a non-finite value", func() (any, error) {
			recs := records()
			recs[1].Valid = nan
			return plots.Curves(recs, "mae")
		}},
		{"curves best epoch missing", "best epoch 9", func() (any, error) {
			recs := records()
			recs[4].BestEpoch = 9
			return plots.Curves(recs, "mae")
		}},
		{"heatmap empty", "empty 0×0 matrix", func() (any, error) { return plots.Heatmap("empty", &mat.Dense{}) }},
		{"product heatmap no product axis", "a 3×2 matrix has no axis of n² = 4 product nodes", func() (any, error) { return plots.ProductHeatmap("x", mat.NewDense(3, 2, nil), 2) }},
		{"heatmap NaN", "entry (0, 1) is NaN", func() (any, error) { return plots.Heatmap("nan", mat.NewDense(1, 2, []float64{0, nan})) }},
		{"adjacency no nodes", "want at least one", func() (any, error) { return plots.AdjacencyMatrix(0, product.Edges{}) }},
		{"adjacency out of range", "edge 0 (4 ← 0) leaves the 4 nodes", func() (any, error) {
			return plots.AdjacencyMatrix(4, product.Edges{Dst: []int32{4}, Src: []int32{0}})
		}},
		{"adjacency mismatched", "different numbers", func() (any, error) {
			return plots.AdjacencyMatrix(4, product.Edges{Dst: []int32{1, 2}, Src: []int32{0}})
		}},
		{"graph nil", "no graph", func() (any, error) { return plots.Graph(nil, nil, "") }},
		{"graph values length", "7 node values for 8 nodes", func() (any, error) { return plots.Graph(g, make([]float64, 7), "") }},
		{"graph NaN", "node value 3 is NaN", func() (any, error) {
			v := make([]float64, 8)
			v[3] = nan
			return plots.Graph(g, v, "")
		}},
		{"graph labels length", "2 node labels for 8 nodes", func() (any, error) {
			return plots.Graph(g, make([]float64, 8), "", plots.NodeLabels([]string{"C", "N"}))
		}},
		{"product graph labels length", "8 node labels for 64 nodes", func() (any, error) {
			return plots.ProductGraph(g, make([]float64, 64), "", plots.NodeLabels(make([]string, 8)))
		}},
		{"product graph values length", "8 node values for 64 nodes", func() (any, error) { return plots.ProductGraph(g, make([]float64, 8), "") }},
		{"eigenvector one node", "at least two nodes", func() (any, error) { return plots.EigenvectorFigure(one) }},
		{"lines none", "no series", func() (any, error) { return plots.Lines("", "", "", false, nil) }},
		{"lines empty series", "no points", func() (any, error) { return plots.Lines("", "", "", false, []plots.Series{{Name: "a"}}) }},
		{"lines mismatched", "2 means for 3 x values", func() (any, error) {
			return plots.Lines("", "", "", false, []plots.Series{{Name: "a", X: []float64{1, 2, 3}, Mean: []float64{1, 2}}})
		}},
		{"lines std length", "1 standard deviations for 2 x values", func() (any, error) {
			return plots.Lines("", "", "", false, []plots.Series{{X: []float64{1, 2}, Mean: []float64{1, 2}, Std: []float64{1}}})
		}},
		{"lines negative std", "negative standard deviation", func() (any, error) {
			return plots.Lines("", "", "", false, []plots.Series{{X: []float64{1}, Mean: []float64{1}, Std: []float64{-1}}})
		}},
		{"lines infinite", "not finite", func() (any, error) {
			return plots.Lines("", "", "", false, []plots.Series{{X: []float64{math.Inf(1)}, Mean: []float64{1}}})
		}},
		{"lines log non-positive", "cannot be shown on a log scale", func() (any, error) {
			return plots.Lines("", "", "", true, []plots.Series{{X: []float64{1, 2}, Mean: []float64{1, 2}, Std: []float64{1, 0}}})
		}},
		{"ablation without std", "has no standard deviations", func() (any, error) {
			return plots.Ablation("", "", "", []plots.Series{{Name: "a", X: []float64{1}, Mean: []float64{1}}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.make()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestFigureCheck(t *testing.T) {
	good, err := plots.Lines("t", "x", "y", false, []plots.Series{{X: []float64{1, 2}, Mean: []float64{3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		edit       func(f *plots.Figure)
	}{
		{"no size", "size", func(f *plots.Figure) { f.Width = 0 }},
		{"no DPI", "DPI", func(f *plots.Figure) { f.DPI = 0 }},
		{"no panels", "no panels", func(f *plots.Figure) { f.Panels = nil }},
		{"no plot", "panel 0 has no plot", func(f *plots.Figure) { f.Panels = []plots.Panel{{}} }},
	} {
		f := *good
		tc.edit(&f)
		for _, render := range []func() ([]byte, error){f.SVG, f.PNG} {
			if _, err := render(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
			}
		}
	}
}

// conn returns the connectivity called name of p.
func conn(p *product.Graph, name product.Name) product.Edges {
	e, _ := p.Connectivity(name)
	return e
}
