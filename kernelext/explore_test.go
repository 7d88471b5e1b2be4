package kernelext

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/pe"
	"github.com/sgformer/sgformer/sgformer/product"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

const caffeine = "Cn1cnc2c1c(=O)n(C)c(=O)n2C"

// builtin returns ZINC-12k's molecule 5853 from the built-in copy, whatever data there is.
func builtin(t *testing.T) *Molecule {
	t.Helper()
	t.Setenv("SGFORMER_DATA", t.TempDir()) // no dataset there
	m, err := LoadMolecule(ZINC5853)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Source, "built-in") || m.Graph.N() != 10 || m.Graph.NumEdges() != 10 {
		t.Fatalf("without data: %v", m)
	}
	return m
}

func TestLoadMolecule(t *testing.T) {
	m := builtin(t)
	if got := m.AtomTypes(); !slices.Equal(got, []float64{2, 5, 1, 1, 0, 0, 5, 0, 0, 9}) {
		t.Errorf("AtomTypes of the built-in molecule = %v", got)
	}
	c, err := LoadMolecule(" " + caffeine + " ")
	if err != nil {
		t.Fatal(err)
	}
	if c.Graph.N() != 14 || c.Graph.NumEdges() != 15 || c.Elements[0] != "C" || c.Elements[1] != "N" || c.Name != caffeine {
		t.Errorf("caffeine: %v, elements %v", c, c.Elements)
	}
	if got := c.AtomTypes(); got[0] != 6 || got[1] != 7 {
		t.Errorf("caffeine's atom types start %v, want the atomic numbers 6, 7", got[:2])
	}
	for spec, want := range map[string]string{
		"C1CC(":          "neither DATASET:INDEX nor a SMILES",
		"zinc12k:17":     "no files of zinc12k found",
		"ogbg-molesol:3": "no files of ogbg-molesol found",
	} {
		if _, err := LoadMolecule(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadMolecule(%q) = %v, want an error with %q", spec, err, want)
		}
	}
	// A colon in a SMILES (an atom class) is not a dataset index.
	if m, err := LoadMolecule("[CH3:1]O"); err != nil || m.Graph.N() != 2 {
		t.Errorf("LoadMolecule of a SMILES with an atom class: %v, %v", m, err)
	}
}

// The built-in copy of molecule 5853 is ZINC-12k's, with its label.
func TestBuiltinMolecule(t *testing.T) {
	dir := shareddata.Dir(t, "zinc12k")
	t.Setenv("SGFORMER_DATA", filepath.Dir(dir))
	m, err := LoadMolecule(ZINC5853)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := builtinZINC5853()
	if fmt.Sprint(m.Graph.Edges(), m.Graph.NodeFeatures, m.Graph.EdgeFeatures) != fmt.Sprint(want.Edges(), want.NodeFeatures, want.EdgeFeatures) {
		t.Errorf("the built-in molecule is not ZINC-12k's 5853: %v", m.Graph.Edges())
	}
	if !strings.Contains(m.Source, dir) || len(m.Labels) != 1 {
		t.Errorf("from the data: %v, labels %v", m, m.Labels)
	}
	if _, err := LoadMolecule("zinc12k:12000"); err == nil || !strings.Contains(err.Error(), "graphs 0 to 11999") {
		t.Errorf("an index beyond the dataset: %v", err)
	}
}

func TestDataDir(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "ogbg_molesol"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SGFORMER_DATA", root)
	if got := DataDir("ogbg-molesol"); got != filepath.Join(root, "ogbg_molesol") {
		t.Errorf("DataDir(ogbg-molesol) = %q", got)
	}
	if got := DataDir("zinc12k"); got != "" {
		t.Errorf("DataDir of a missing folder = %q, want \"\"", got)
	}
}

// Every connectivity's counts on the built-in molecule, from the definitions (n = 10,
// |E| = 10; node 1 has degree 4).
func TestCountProduct(t *testing.T) {
	m := builtin(t)
	p, err := ProductGraphs(m)
	if err != nil {
		t.Fatal(err)
	}
	const n, edges, root, degree = 10, 10, 1, 4
	for _, tc := range []struct {
		connectivity product.Name
		want         ProductCounts
	}{
		// (s, v) ← (s, w), w ~ v: the 2|E| edges of subgraph s, all inside it.
		{"internal", ProductCounts{Nodes: n, Edges: 2 * n * edges, EdgesIn: 2 * edges, FromInside: 2 * edges}},
		// (s, v) ← (t, v), t ~ s: deg(s)·n edges from as many nodes of other subgraphs.
		{"external", ProductCounts{Nodes: n, Edges: 2 * n * edges, EdgesIn: degree * n, FromOutside: degree * n, Neighbours: degree * n}},
		// (s, v) ← (v, v): n edges, one of them the root's self loop.
		{"point", ProductCounts{Nodes: n, Edges: n * n, EdgesIn: n, FromInside: 1, FromOutside: n - 1, Neighbours: n - 1}},
		{"global_internal", ProductCounts{Nodes: n, Edges: n * n * (n - 1), EdgesIn: n * (n - 1), FromInside: n * (n - 1)}},
		{"global_external", ProductCounts{Nodes: n, Edges: n * n * (n - 1), EdgesIn: n * (n - 1), FromOutside: n * (n - 1), Neighbours: n * (n - 1)}},
	} {
		got, role, err := CountProduct(p, ProductView{Root: root, Connectivity: tc.connectivity})
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.connectivity, got, err, tc.want)
			continue
		}
		count := map[float64]int{}
		for _, r := range role {
			count[r]++
		}
		if count[-1] != 1 || count[1] != n-1 || count[0.5] != tc.want.Neighbours || role[root*n+root] != -1 {
			t.Errorf("%s: roles %v", tc.connectivity, count)
		}
	}
	if _, _, err := CountProduct(p, ProductView{Root: n, Connectivity: "internal"}); err == nil {
		t.Error("a root beyond the graph was accepted")
	}
	if _, _, err := CountProduct(p, ProductView{Root: 0, Connectivity: "adjacency_7"}); err == nil {
		t.Error("an unknown connectivity was accepted")
	}
}

var svgOf = regexp.MustCompile(`(?s)<svg.*</svg>`)

// frameHTML renders f and checks what every frame holds.
func frameHTML(t *testing.T, f Frame) string {
	t.Helper()
	h, err := f.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, `<div class="sgformer-explorer" data-explorer="`+f.Explorer+`" data-state="`+f.State+`"`) || !svgOf.MatchString(h) {
		t.Fatalf("frame HTML starts %.200s", h)
	}
	return h
}

func TestProductFrame(t *testing.T) {
	m := builtin(t)
	p, err := ProductGraphs(m)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, view := range []ProductView{{0, "internal"}, {3, "internal"}, {3, "external"}, {3, "point"}, {3, "global_external"}} {
		start := time.Now()
		f, err := ProductFrame(m, p, view)
		if err != nil {
			t.Fatal(err)
		}
		h := frameHTML(t, f)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%+v: drawn in %v, want well under a second", view, d)
		}
		svg := svgOf.FindString(h)
		if other, ok := seen[svg]; ok {
			t.Errorf("%+v draws the same figure as %s", view, other)
		}
		seen[svg] = f.State
		again, _ := ProductFrame(m, p, view)
		if h2, _ := again.HTML(); h2 != h {
			t.Errorf("%+v: two drawings differ", view)
		}
		c, _, _ := CountProduct(p, view)
		if want := fmt.Sprintf(`data-edges-in="%d"`, c.EdgesIn); !strings.Contains(h, want) || !strings.Contains(h, fmt.Sprintf(`data-root="%d"`, view.Root)) {
			t.Errorf("%+v: HTML lacks %s", view, want)
		}
	}
	f, _ := ProductFrame(m, p, ProductView{3, "external"}) // node 3 has one neighbour, node 1
	if want := "external A ⊗ I: 10 of its 200 edges go into subgraph 3, 0 from inside it and 10 from 10 product nodes of other subgraphs (its neighbours)."; !slices.Contains(f.Lines, want) {
		t.Errorf("lines %q lack %q", f.Lines, want)
	}
	if _, err := ProductGraphs(mustGraph(t, 41)); err == nil || !strings.Contains(err.Error(), "up to 40 atoms") {
		t.Errorf("a molecule of 41 atoms: %v", err)
	}
}

// mustGraph returns a path on n nodes.
func mustGraph(t *testing.T, n int) *Molecule {
	t.Helper()
	m, err := LoadMolecule(strings.Repeat("C", n))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPEFrame(t *testing.T) {
	m, err := LoadMolecule(caffeine)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := pe.NewSpectrum(m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := pe.Product(spec, 8)
	f, view, err := PEFrame(m, spec, PEView{Mode: "exact", K: 8, Column: 3})
	if err != nil {
		t.Fatal(err)
	}
	tuple := exact.Tuple(3)
	if view != (PEView{"exact", 8, 3}) || f.Data["tuple"] != fmt.Sprintf("%d,%d", tuple[0], tuple[1]) || f.Data["columns"] != "8" {
		t.Errorf("exact, k = 8, column 3: view %+v, data %v; want the tuple %v", view, f.Data, tuple)
	}
	h := frameHTML(t, f)
	for _, tc := range []struct {
		in, want PEView
		columns  string
	}{
		{PEView{"exact", 4, 40}, PEView{"exact", 4, 3}, "4"},        // the column is brought into range
		{PEView{"exact", 0, 0}, PEView{"exact", 1, 0}, "1"},         // k at least 1
		{PEView{"exact", 99, 0}, PEView{"exact", 16, 0}, "16"},      // k at most 16
		{PEView{"reference", 2, 1}, PEView{"reference", 2, 0}, "1"}, // m = ⌊√3⌋ = 1: one product v₁ ⊗ v₁
		{PEView{"concat", 4, 7}, PEView{"concat", 4, 7}, "8"},       // p_s ‖ p_v: 2k columns
	} {
		g, got, err := PEFrame(m, spec, tc.in)
		if err != nil || got != tc.want || g.Data["columns"] != tc.columns {
			t.Errorf("PEFrame(%+v) drew %+v with %s columns, %v; want %+v with %s", tc.in, got, g.Data["columns"], err, tc.want, tc.columns)
		}
		if h2 := frameHTML(t, g); svgOf.FindString(h2) == svgOf.FindString(h) {
			t.Errorf("PEFrame(%+v) draws the figure of exact, k = 8, column 3", tc.in)
		}
	}
	if _, _, err := PEFrame(m, spec, PEView{Mode: "laplacian", K: 2}); err == nil {
		t.Error("an unknown PE mode was accepted")
	}
	if got := distinctValues([]float64{1, 1 + 1e-12, 2, -2}); got != 3 {
		t.Errorf("distinctValues = %d, want 3", got)
	}
}

func TestSamplingFrame(t *testing.T) {
	m := builtin(t)
	p, err := product.New(m.Graph, 2)
	if err != nil {
		t.Fatal(err)
	}
	view := SamplingView{Ratio: 0.5, Seed: 7, Draws: 4}
	f, err := SamplingFrame(m, p, view)
	if err != nil {
		t.Fatal(err)
	}
	h := frameHTML(t, f)
	c, sp, err := CountSampling(p, view)
	if err != nil {
		t.Fatal(err)
	}
	roots, _ := SampleDraw(10, 0.5, 7, 0)
	if len(c.Roots) != 5 || !slices.Equal(c.Roots, roots) || c.Nodes != 50 || sp.NumNodes() != 50 || len(c.Draws) != 4 {
		t.Errorf("counts %+v, want draw 0's 5 roots %v and 50 nodes", c, roots)
	}
	for _, name := range []product.Name{product.Internal, product.External, product.Point} {
		e, _ := sp.Connectivity(name)
		if c.Kept[name] != e.Len() || f.Data[name.String()] != fmt.Sprint(e.Len()) {
			t.Errorf("%s: %d kept, data %s; the sampled graph has %d", name, c.Kept[name], f.Data[name.String()], e.Len())
		}
	}
	if c.Covered < 5 || c.Covered > 10 || c.Expected != 10*(1-0.5*0.5*0.5*0.5) {
		t.Errorf("covered %d, expected %g", c.Covered, c.Expected)
	}
	if f.Data["roots"] != joinInts(roots) {
		t.Errorf("data-roots %q, want %v", f.Data["roots"], roots)
	}
	full, err := SamplingFrame(m, p, SamplingView{Ratio: 1, Seed: 7, Draws: 4})
	if err != nil {
		t.Fatal(err)
	}
	if full.Data["nodes"] != "100" || full.Data["covered"] != "10" || full.Data["internal"] != "200" {
		t.Errorf("ratio 1 keeps %v", full.Data)
	}
	if svgOf.FindString(frameHTML(t, full)) == svgOf.FindString(h) {
		t.Error("ratios 0.5 and 1 draw the same figure")
	}
	other, _ := SamplingFrame(m, p, SamplingView{Ratio: 0.5, Seed: 8, Draws: 4})
	if other.Data["roots"] == f.Data["roots"] && other.Data["covered"] == f.Data["covered"] {
		t.Log("seeds 7 and 8 keep the same roots (possible, unlikely)")
	}
	if _, err := SamplingFrame(m, p, SamplingView{Ratio: 0.5, Draws: 0}); err == nil {
		t.Error("zero evaluation draws were accepted")
	}
	if _, err := SamplingFrame(m, p, SamplingView{Ratio: 0, Draws: 1}); err == nil {
		t.Error("ratio 0 was accepted")
	}
}

// Outside a GoNB kernel the explorers report that nothing was displayed, after checking their
// input.
func TestExplorersOutsideKernel(t *testing.T) {
	t.Setenv("SGFORMER_DATA", t.TempDir())
	for name, explore := range map[string]func(string) error{"ExploreProduct": ExploreProduct, "ExplorePE": ExplorePE, "ExploreSampling": ExploreSampling} {
		if err := explore(ZINC5853); !errors.Is(err, ErrNotInKernel) {
			t.Errorf("%s outside a kernel: %v, want ErrNotInKernel", name, err)
		}
		if err := explore("C"); err == nil || !strings.Contains(err.Error(), "at least 2 atoms") {
			t.Errorf("%s of one atom: %v", name, err)
		}
	}
	if frontEnd() {
		t.Error("frontEnd outside a kernel reported a front end")
	}
}

// probe asks until the front end answers, and gives up at its timeout even while an ask hangs.
func TestProbe(t *testing.T) {
	for _, c := range []struct {
		name     string
		answerAt int           // the ask that the front end answers (0: none)
		hang     time.Duration // how long each ask blocks
		want     bool
	}{
		{"first ask answered", 1, 0, true},
		{"third ask answered", 3, 0, true},
		{"never answered", 0, 0, false},
		{"ask hangs past the timeout", 1, time.Second, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			replies := make(chan int, 1)
			var asks atomic.Int32
			ask := func() {
				time.Sleep(c.hang)
				if int(asks.Add(1)) == c.answerAt {
					replies <- 1
				}
			}
			start := time.Now()
			got := probe(ask, replies, 10*time.Millisecond, 300*time.Millisecond)
			took := time.Since(start)
			if got != c.want {
				t.Errorf("probe = %v after %d asks, want %v", got, asks.Load(), c.want)
			}
			if took > 900*time.Millisecond {
				t.Errorf("probe took %v, past its 300 ms timeout", took)
			}
			if c.answerAt > 1 && int(asks.Load()) < c.answerAt {
				t.Errorf("probe asked %d times, want at least %d", asks.Load(), c.answerAt)
			}
		})
	}
}

// The static view of an explorer (headless runs) names its controls, escaped.
func TestStaticNote(t *testing.T) {
	got := staticNote("G□G of <x>", []knob{{label: "root s"}, {label: "a & b"}})
	if !strings.Contains(got, "G□G of &lt;x&gt;: the default state") || !strings.Contains(got, "root s, a &amp; b.") {
		t.Errorf("staticNote = %s", got)
	}
	k := knob{name: "ratio", format: func(v int) string { return fmt.Sprintf("%.2f", float64(v)/100) }}
	s := knob{name: "mode", options: []string{"exact", "concat"}}
	if got := state([]knob{k, s, {name: "seed"}}, []int{50, 1, 7}); got != "ratio=0.50 mode=concat seed=7" {
		t.Errorf("state = %q", got)
	}
	for d, want := range map[time.Duration]string{5 * time.Minute: "5 minutes", time.Minute: "1 minute", 10 * time.Second: "10s", 90 * time.Second: "1m30s"} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestTrainOutcome(t *testing.T) {
	out := t.TempDir()
	sum := &training.Summary{Epochs: 3, Seconds: 12, Metric: "mae", BestValid: 0.5, BestEpoch: 2, TestAtBest: 0.6}
	if got := TrainOutcome(out, sum, nil, ""); !strings.Contains(got, `data-outcome="finished"`) || !strings.Contains(got, "best validation mae 0.5 at epoch 2 (test 0.6)") {
		t.Errorf("finished: %s", got)
	}
	err := fmt.Errorf("%w during epoch 3 of %s (saved after 16 of its 160 graphs)", training.ErrInterrupted, out)
	got := TrainOutcome(out, sum, err, "Stop")
	if !strings.Contains(got, `data-checkpoint-exists="false"`) || !strings.Contains(got, "The checkpoint is missing") {
		t.Errorf("stopped without a checkpoint: %s", got)
	}
	if err := os.Mkdir(filepath.Join(out, training.CheckpointDir), 0o755); err != nil {
		t.Fatal(err)
	}
	got = TrainOutcome(out, sum, err, "Stop")
	for _, want := range []string{`data-outcome="stopped"`, `data-checkpoint-exists="true"`, "<b>Stopped</b> (Stop)", "saved after 16 of its 160 graphs",
		"The checkpoint is saved in " + filepath.Join(out, "checkpoint"), "Resume: true"} {
		if !strings.Contains(got, want) {
			t.Errorf("stopped: lacks %q:\n%s", want, got)
		}
	}
	if got := TrainOutcome(out, nil, errors.New("disk <full>"), ""); !strings.Contains(got, `data-outcome="failed"`) || !strings.Contains(got, "disk &lt;full&gt;") {
		t.Errorf("failed: %s", got)
	}
}

// Train stops at the next step when its caller's Stop channel closes, with the checkpoint
// saved, and every goroutine it started has ended when it returns.
func TestTrainStops(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	tk, ctx, err := Task(task.Source{Dataset: task.Synthetic, SyntheticGraphs: 24},
		map[string]any{training.ParamEpochs: 3, training.ParamBatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stop := make(chan struct{})
	epochs := 0
	summary, err := Train(ctx, tk, training.Options{Out: out, Backend: be, Stop: stop,
		OnEpoch: func(training.Record) {
			if epochs++; epochs == 1 {
				close(stop) // the next step is the first of epoch 2
			}
		}})
	if !errors.Is(err, training.ErrInterrupted) || summary == nil || summary.Epochs != 1 {
		t.Fatalf("Train = %+v, %v; want ErrInterrupted after 1 epoch", summary, err)
	}
	if _, err := os.Stat(filepath.Join(out, training.CheckpointDir)); err != nil {
		t.Errorf("no checkpoint: %v", err)
	}
	if !strings.Contains(TrainOutcome(out, summary, err, "Options.Stop"), `data-checkpoint-exists="true"`) {
		t.Error("the outcome does not see the checkpoint")
	}
}

// A process started by nbconvert (its command line names it) is a headless run; this test's
// own process is not.
func TestHeadlessExecutor(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	if got := headlessExecutor(os.Getpid()); got != "" {
		t.Errorf("this test runs under %q", got)
	}
	cmd := exec.Command("sh", "-c", "sleep 30", "jupyter-nbconvert") // $0 = jupyter-nbconvert
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid)); strings.Contains(string(cmdline), "sleep") {
			break // the child has exec'd sh
		}
	}
	if got := headlessExecutor(cmd.Process.Pid); got != "nbconvert" {
		t.Errorf("headlessExecutor of a process named jupyter-nbconvert = %q", got)
	}
	t.Setenv("SGFORMER_WIDGETS", "static")
	if frontEnd() {
		t.Error("frontEnd with SGFORMER_WIDGETS=static")
	}
}

// A run stopped early shows why instead of the progress bar's last, stale line.
func TestLiveEnded(t *testing.T) {
	live := LiveTraining("mae", 20)
	if _, err := live.Write([]byte("\rtrain 15% |██    | (31/200 steps)")); err != nil {
		t.Fatal(err)
	}
	live.OnEpoch(training.Record{Epoch: 1, Seconds: 2, BestEpoch: 1})
	live.ended("stopped (Stop)")
	if h := live.HTML(); !strings.Contains(h, "stopped (Stop)") || strings.Contains(h, "31/200") || strings.Contains(h, "ETA") {
		t.Errorf("after ended: %s", h)
	}
}

// Paths shown in a notebook name no folder of the machine it ran on.
func TestPath(t *testing.T) {
	t.Setenv("GONB_DIR", "/x/checkout/notebooks")
	t.Setenv("GONB_TMP_DIR", "/tmp/gonb_1234")
	t.Setenv("HOME", "/home/reader")
	for _, tc := range []struct{ path, want string }{
		{"/x/checkout/notebooks/a.ipynb", "a.ipynb"},
		{"/x/checkout/results/runs", "../results/runs"},
		{"/x/shared/data/zinc12k", "../../shared/data/zinc12k"},
		{"/tmp/gonb_1234/run", "$GONB_TMP_DIR/run"},
		{"/home/reader/.cache/sgformer", "~/.cache/sgformer"},
		{"/elsewhere/data", "/elsewhere/data"},
		{"/tmp/gonb_12345", "/tmp/gonb_12345"},
	} {
		if got := Path(tc.path); got != tc.want {
			t.Errorf("Path(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
