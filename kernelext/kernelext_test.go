package kernelext

import (
	"bytes"
	"errors"
	"image/png"
	"maps"
	"math"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/training"
)

func TestMeanStd(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		digits int
		want   string
	}{
		// mean 0.063; deviations ±0.002 and 0: sqrt((4e-6 + 4e-6) / 3) = 0.0016.
		{[]float64{0.061, 0.063, 0.065}, 3, "0.063 ± 0.002"},
		// mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5; sqrt(5/4) = 1.118.
		{[]float64{1, 2, 3, 4}, 2, "2.50 ± 1.12"},
		{[]float64{7, 7}, 1, "7.0 ± 0.0"},
		{[]float64{0.5}, 3, "0.500"},
		{nil, 3, "n/a"},
	} {
		if got := MeanStd(tc.values, tc.digits); got != tc.want {
			t.Errorf("MeanStd(%v, %d) = %q, want %q", tc.values, tc.digits, got, tc.want)
		}
	}
}

func TestResultsTable(t *testing.T) {
	got := ResultsTable(`ZINC <12k> & "friends"`, []string{"model", "MAE", "notes"},
		[][]string{{"subgraphormer", MeanStd([]float64{0.061, 0.065}, 3), "<script>alert(1)</script>"}, {"gin", "0.387"}})
	for _, want := range []string{
		`<caption style="font-weight:bold;text-align:left">ZINC &lt;12k&gt; &amp; &#34;friends&#34;</caption>`,
		`<th style="padding:2px 8px;border-bottom:1px solid #888">MAE</th>`,
		`<td style="padding:2px 8px;text-align:left">subgraphormer</td>`,
		`<td style="padding:2px 8px;text-align:right">0.063 ± 0.002</td>`,
		`&lt;script&gt;alert(1)&lt;/script&gt;`,
		// The short row is padded to the header's three columns.
		`<tr><td style="padding:2px 8px;text-align:left">gin</td><td style="padding:2px 8px;text-align:right">0.387</td><td style="padding:2px 8px;text-align:left"></td></tr>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %s\n%s", want, got)
		}
	}
	if strings.Contains(got, "<script>") || strings.Count(got, "<tr>") != 3 {
		t.Errorf("unescaped text or wrong row count:\n%s", got)
	}
	if strings.Contains(ResultsTable("", nil, nil), "caption") {
		t.Error("an empty title made a caption")
	}
}

// svgFunc is an SVGer made of a function.
type svgFunc func() ([]byte, error)

func (f svgFunc) SVG() ([]byte, error) { return f() }

func TestFigure(t *testing.T) {
	doc := svgFunc(func() ([]byte, error) {
		return []byte("<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg width=\"1\"></svg>\n"), nil
	})
	got, err := FigureHTML(doc)
	if want := "<div><svg width=\"1\"></svg>\n</div>"; err != nil || got != want {
		t.Errorf("FigureHTML = %q, %v; want %q", got, err, want)
	}
	fig, err := plots.Lines("a title", "x", "y", false, []plots.Series{{Name: "s", X: []float64{1, 2}, Mean: []float64{3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := Figure(fig); !errors.Is(err, ErrNotInKernel) {
		t.Errorf("Figure outside a kernel: %v, want ErrNotInKernel", err)
	}
	if err := DisplayHTML("<b>x</b>"); !errors.Is(err, ErrNotInKernel) {
		t.Errorf("DisplayHTML outside a kernel: %v, want ErrNotInKernel", err)
	}
	failing := svgFunc(func() ([]byte, error) { return nil, errors.New("no font") })
	if _, err := FigureHTML(failing); err == nil || !strings.Contains(err.Error(), "no font") {
		t.Errorf("FigureHTML of a failing figure: %v", err)
	}
	if _, err := FigureHTML(svgFunc(func() ([]byte, error) { return []byte("<png/>"), nil })); err == nil {
		t.Error("FigureHTML accepted a document without <svg>")
	}
}

// A figure is saved as PNG alone (with a text description): a bundle that also held HTML or SVG
// would show that instead in a trusted notebook, and JupyterLab picks HTML, sanitised, in an
// untrusted one.
func TestFigureBundle(t *testing.T) {
	fig, err := plots.Lines("a title", "x", "y", false, []plots.Series{{Name: "s", X: []float64{1, 2}, Mean: []float64{3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	fig.DPI = 144
	b, err := FigureBundle(fig)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Data) != 2 || b.Data[protocol.MIMETextPlain] != "[a title]" {
		t.Errorf("bundle types %v, text %q; want image/png and text/plain [a title]", slices.Collect(maps.Keys(b.Data)), b.Data[protocol.MIMETextPlain])
	}
	raw, _ := b.Data[protocol.MIMEImagePNG].([]byte)
	img, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("image/png does not decode: %v", err)
	}
	size, _ := b.Metadata["image/png"].(map[string]int)
	// At 144 dots per inch and 96 CSS pixels per inch, the image is shown at 2/3 of its pixels.
	if wantW, wantH := int(math.Ceil(fig.Width.Points()/72*144)), int(math.Ceil(fig.Height.Points()/72*144)); img.Width != wantW || img.Height != wantH {
		t.Errorf("PNG %d × %d pixels, want %d × %d", img.Width, img.Height, wantW, wantH)
	}
	if math.Abs(float64(size["width"])-float64(img.Width)*96/144) > 1 || math.Abs(float64(size["height"])-float64(img.Height)*96/144) > 1 {
		t.Errorf("shown at %v CSS pixels for a %d × %d PNG at 144 dpi", size, img.Width, img.Height)
	}
	fig.Title = "overall"
	if b, err := FigureBundle(fig); err != nil || b.Data[protocol.MIMETextPlain] != "[overall: a title]" {
		t.Errorf("with an overall title: %v, %v", b.Data[protocol.MIMETextPlain], err)
	}
	fig.Title, fig.Panels[0].Plot.Title.Text = "", ""
	if b, err := FigureBundle(fig); err != nil || b.Data[protocol.MIMETextPlain] != "[a figure]" {
		t.Errorf("untitled: %v, %v", b.Data[protocol.MIMETextPlain], err)
	}
	fig.Width = 0
	if _, err := FigureBundle(fig); err == nil {
		t.Error("a figure of width 0 made a bundle")
	}
}

// polylines returns the number of points of each polyline in svg.
func polylines(t *testing.T, svg string) []int {
	t.Helper()
	var counts []int
	for _, m := range regexp.MustCompile(`<polyline [^>]*points="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
		counts = append(counts, len(strings.Fields(m[1])))
	}
	return counts
}

func records(n int) []training.Record {
	recs := make([]training.Record, n)
	for i := range recs {
		e := i + 1
		recs[i] = training.Record{Epoch: e, TrainLoss: 1 / float64(e), Valid: 2 / float64(e), Test: 3 / float64(e), Seconds: 10, BestEpoch: e}
	}
	return recs
}

func TestPolylineCurves(t *testing.T) {
	for _, n := range []int{1, 2, 40} {
		fig, err := PolylineCurves(records(n), "mae")
		if err != nil {
			t.Fatal(err)
		}
		svg, _ := fig.SVG()
		if got := polylines(t, string(svg)); len(got) != 3 || got[0] != n || got[1] != n || got[2] != n {
			t.Errorf("%d epochs: polylines of %v points, want three of %d", n, got, n)
		}
		if c := strings.Count(string(svg), "<circle"); c != 3 {
			t.Errorf("%d epochs: %d markers, want 3 (the latest point of each curve)", n, c)
		}
		if c := strings.Count(string(svg), "<line"); c != 1 {
			t.Errorf("%d epochs: %d vertical lines, want 1 (the best epoch)", n, c)
		}
	}
	recs := records(5)
	recs[2].Test = math.Inf(1)
	fig, _ := PolylineCurves(recs, `<m&>`)
	svg, _ := fig.SVG()
	if got := polylines(t, string(svg)); len(got) != 3 || got[2] != 4 {
		t.Errorf("with one infinite test value: polylines of %v points, want 5, 5, 4", got)
	}
	if !strings.Contains(string(svg), "val &lt;m&amp;&gt; 0.4") || strings.Contains(string(svg), "<m&>") {
		t.Errorf("metric name not escaped in the legend:\n%s", svg)
	}
	// 1/e over 40 epochs spans more than a decade: logarithmic axes.
	fig, _ = PolylineCurves(records(40), "mae")
	svg, _ = fig.SVG()
	if !strings.Contains(string(svg), ">log</text>") {
		t.Error("no logarithmic axis for values spanning more than a decade")
	}
	fig, _ = PolylineCurves(nil, "mae")
	if svg, _ = fig.SVG(); len(polylines(t, string(svg))) != 0 || !strings.HasPrefix(string(svg), "<svg") {
		t.Errorf("no records: %s", svg)
	}
}

func TestLive(t *testing.T) {
	live := LiveTraining("mae", 10)
	if live.Progress() != "" || live.HTML() != `<div style="font-family:monospace"></div>` {
		t.Errorf("before any epoch: progress %q, HTML %q", live.Progress(), live.HTML())
	}
	bar := []byte("\r\x1b[0mtrain synthetic  45% |████      | (36/80 steps, 3.2 steps/s) [10s:12s]")
	if n, err := live.Write(bar); n != len(bar) || err != nil {
		t.Errorf("Write = %d, %v; want %d, nil", n, err, len(bar))
	}
	if want := `<div style="color:#666;white-space:pre">train synthetic  45% |████      | (36/80 steps, 3.2 steps/s) [10s:12s]</div>`; !strings.Contains(live.HTML(), want) {
		t.Errorf("HTML lacks the progress bar line %s:\n%s", want, live.HTML())
	}
	for _, r := range []training.Record{
		{Epoch: 1, TrainLoss: 3, Valid: 2, Test: 2.5, Seconds: 10, BestEpoch: 1},
		{Epoch: 2, TrainLoss: 2, Valid: 0.5, Test: 0.6, Seconds: 12, BestEpoch: 2},
		{Epoch: 3, TrainLoss: 1, Valid: 0.7, Test: 0.4, Seconds: 14, BestEpoch: 2},
	} {
		live.OnEpoch(r)
	}
	// 12 s per epoch on average, 7 epochs left: 84 s.
	want := "epoch 3/10 · 12 s/epoch · ETA 1m24s · best val mae 0.5 at epoch 2 (test 0.6)"
	if got := live.Progress(); got != want {
		t.Errorf("Progress = %q, want %q", got, want)
	}
	html := live.HTML()
	if !strings.Contains(html, "<div>"+want+"</div>") || !strings.Contains(html, "36/80 steps") {
		t.Errorf("HTML lacks the progress line or the bar:\n%s", html)
	}
	if got := polylines(t, html); len(got) != 3 || got[0] != 3 {
		t.Errorf("HTML's curves: polylines of %v points, want three of 3", got)
	}
	if len(live.Records()) != 3 {
		t.Errorf("%d records, want 3", len(live.Records()))
	}
	if !errors.Is(live.Err(), ErrNotInKernel) {
		t.Errorf("Err outside a kernel = %v, want ErrNotInKernel", live.Err())
	}

	done := LiveTraining("auc", 2)
	done.Render = func([]training.Record, string) (SVGer, error) { return nil, errors.New("renderer broke") }
	done.OnEpoch(training.Record{Epoch: 1, Seconds: 30, BestEpoch: 1, Valid: 0.7, Test: 0.75})
	done.OnEpoch(training.Record{Epoch: 2, Seconds: 45, BestEpoch: 1, Valid: 0.6, Test: 0.7})
	if want := "epoch 2/2 · 37.5 s/epoch · done in 1m15s · best val auc 0.7 at epoch 1 (test 0.75)"; done.Progress() != want {
		t.Errorf("Progress = %q, want %q", done.Progress(), want)
	}
	if err := done.Err(); err == nil || err.Error() != "renderer broke" {
		t.Errorf("Err = %v, want the renderer's error", err)
	}

	unknown := LiveTraining("mae", 0)
	unknown.OnEpoch(training.Record{Epoch: 4, Seconds: 0.5, BestEpoch: 1})
	if want := "epoch 4 · 0.5 s/epoch"; unknown.Progress() != want {
		t.Errorf("Progress with unknown epochs and best epoch = %q, want %q", unknown.Progress(), want)
	}
}

func TestSeconds(t *testing.T) {
	for s, want := range map[float64]string{0.04: "0s", 0.46: "500ms", 9.94: "9.9s", 84.4: "1m24s", 7200: "2h0m0s"} {
		if got := seconds(s); got != want {
			t.Errorf("seconds(%g) = %q, want %q", s, got, want)
		}
	}
}

func TestLatestLine(t *testing.T) {
	for in, want := range map[string]string{
		"\r 10% |█| \r 20% |██| ":  "20% |██|",
		"line one\nline two\n\r  ": "line two",
		"\x1b[32mgreen\x1b[0m\r":   "green",
		"\n":                       "",
	} {
		if got := latestLine(in); got != want {
			t.Errorf("latestLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// In a notebook the soft memory limit is set, as by the sgformer command; elsewhere (a test, a
// program that only builds HTML) the process's limit is left alone.
func TestLimitMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	t.Setenv("GOMEMLIMIT", "")
	if got := limitMemory(false); got != 0 || debug.SetMemoryLimit(-1) != before {
		t.Errorf("outside a notebook: limit %d set, runtime limit %d, want none and %d", got, debug.SetMemoryLimit(-1), before)
	}
	if avail, _ := memory.Available(); avail == math.MaxInt64 {
		t.Skip("no figure of the memory available on this system")
	}
	got := limitMemory(true)
	if got <= 0 || debug.SetMemoryLimit(-1) != got {
		t.Errorf("in a notebook: limit %d, runtime limit %d; want a positive limit, set", got, debug.SetMemoryLimit(-1))
	}
}
