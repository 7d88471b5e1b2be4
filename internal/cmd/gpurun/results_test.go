package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

func TestSummarizeSMI(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name, csv string
		want      gpuresult.SMI
	}{
		{"none", "", gpuresult.SMI{}},
		{"idle", "2026/12/01 10:00:00.000, 0, 500, 81559\n", gpuresult.SMI{UtilMean: f(0), UtilMax: f(0), MemMax: f(500)}},
		{"busy", "t, 0, 500, 81559\nt, 40, 2500, 81559\nt, 80, 2000, 81559\nt, [N/A], 9999, 81559\n",
			gpuresult.SMI{UtilMean: f(60), UtilMax: f(80), MemMax: f(2500)}},
	} {
		got := summarizeSMI(strings.NewReader(tc.csv))
		if fmt.Sprint(deref(got.UtilMean), deref(got.UtilMax), deref(got.MemMax)) != fmt.Sprint(deref(tc.want.UtilMean), deref(tc.want.UtilMax), deref(tc.want.MemMax)) {
			t.Errorf("%s: %v %v %v", tc.name, deref(got.UtilMean), deref(got.UtilMax), deref(got.MemMax))
		}
	}
}

// deref shows a *float64 ("nil" for nil).
func deref(v *float64) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprint(*v)
}

func TestReadPyG(t *testing.T) {
	out := `loading
{"product": "onthefly", "gat": "pyg", "parameters": 291471}
{"epoch": 1, "train_seconds": 20.0, "test_seconds": 1.5, "peak_mem_mib": 3000.5}
{"epoch": 2, "train_seconds": 16.3, "test_seconds": 1.1, "peak_mem_mib": 4000}
{"summary": true, "product": "onthefly", "gat": "pyg", "train_seconds_median": 16.3, "test_seconds_median": 1.1}
`
	var m gpuresult.PyGMode
	if err := readPyG([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Summary) != 1 || m.Summary[0].Train != 16.3 || m.Summary[0].Test != 1.1 || m.Summary[0].Product != "onthefly" || deref(m.PeakMem) != "4000" {
		t.Errorf("got %+v, peak %s", m, deref(m.PeakMem))
	}
	if err := readPyG([]byte("{broken\n"), &m); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("broken line: %v", err)
	}
}

func TestGlibcOK(t *testing.T) {
	for _, tc := range []struct {
		ldd, need, have, err string
	}{
		{"ldd (Debian GLIBC 2.36-9+deb12u14) 2.36", "GLIBC_2.34", "2.36", ""},
		{"ldd (Ubuntu GLIBC 2.39-0ubuntu8) 2.39", "GLIBC_2.34", "2.39", ""},
		{"ldd (GNU libc) 2.34", "GLIBC_2.34", "2.34", ""},
		{"ldd (GNU libc) 2.9", "GLIBC_2.34", "2.9", "glibc 2.9 is older than the 2.34"},
		{"ldd (GNU libc) 2.28", "GLIBC_2.34", "2.28", "glibc 2.28 is older than the 2.34"},
		{"musl libc", "GLIBC_2.34", "", "no glibc version"},
		{"ldd (GNU libc) 2.36", "unknown", "", "build/gpu/GLIBC holds"},
	} {
		have, err := glibcOK(tc.ldd, tc.need)
		if have != tc.have || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("glibcOK(%q, %q) = %q, %v; want %q, %q", tc.ldd, tc.need, have, err, tc.have, tc.err)
		}
	}
}

func TestCompareBackends(t *testing.T) {
	for _, tc := range []struct {
		name            string
		val, pred       float64 // the other backend's validation MAE and prediction of graph 7
		maxDiff         float64
		pass            bool
		err             string
		missingOtherVal bool
	}{
		{name: "equal", val: 0.5, pred: 2, maxDiff: 0, pass: true},
		{name: "within", val: 0.50025, pred: 2, maxDiff: 5e-4, pass: true},
		{name: "prediction over", val: 0.5, pred: 2.006, maxDiff: 2e-3, pass: false}, // 0.006 / (1 + 2)
		{name: "no val", missingOtherVal: true, err: "no val or test"},
	} {
		dir := t.TempDir()
		write := func(name, text string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("eval-go.json", `{"val": 0.5, "test": 0.25}`)
		if tc.missingOtherVal {
			write("eval-xla-cuda.json", `{"test": 0.25}`)
		} else {
			write("eval-xla-cuda.json", fmt.Sprintf(`{"val": %v, "test": 0.25}`, tc.val))
		}
		write("predict-go-7.json", `{"prediction": [2]}`)
		write("predict-xla-cuda-7.json", fmt.Sprintf(`{"prediction": [%v]}`, tc.pred))
		r, err := compareBackends(dir, []string{"go", "xla:cuda"}, []int{7}, 1e-3)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := r.MaxRelDiff - tc.maxDiff; d > 1e-12 || d < -1e-12 || r.Pass != tc.pass || len(r.Rows) != 3 || r.Rows["graph 7"].Other != tc.pred {
			t.Errorf("%s: %+v, want largest difference %g, pass %v", tc.name, r, tc.maxDiff, tc.pass)
		}
	}
}

func TestExitStatus(t *testing.T) {
	live := context.Background()
	expired, cancel := context.WithTimeout(live, 0)
	defer cancel()
	<-expired.Done()
	exit := exec.Command("sh", "-c", "exit 3").Run()
	killed := exec.Command("sh", "-c", "kill -KILL $$").Run()
	for _, tc := range []struct {
		name string
		err  error
		ctx  context.Context
		want int
	}{
		{"success", nil, live, 0},
		{"command", fmt.Errorf("sgformer train: %w", exit), live, 3},
		{"killed", fmt.Errorf("training.test: %w", killed), live, 137},
		{"other", errors.New("no time left for training"), live, 1},
		{"budget", fmt.Errorf("sgformer train: %w", exit), expired, 124},
	} {
		if got := exitStatus(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// testRunner is a runner of a call that began now, writing into temporary folders.
func testRunner(t *testing.T, budget time.Duration) (*runner, *strings.Builder) {
	t.Helper()
	var out strings.Builder
	cfg := config{out: t.TempDir(), work: t.TempDir(), results: t.TempDir(), budget: budget}
	start := time.Now()
	return &runner{cfg: cfg, stdout: &lockedWriter{w: &out}, start: start, call: start.UTC().Format(time.RFC3339), gpu: "none", build: "abc1234"}, &out
}

// fakePiece adds a kind of piece that runs f, for the test.
func fakePiece(t *testing.T, kind string, f func(ctx context.Context, j *job, p piece) error) piece {
	t.Helper()
	pieces[kind] = f
	t.Cleanup(func() { delete(pieces, kind) })
	return piece{arg: kind + ":1,2", kind: kind}
}

// The pieces of a call each leave a tarball of their folder and a line of pieces.jsonl, with
// the exit status of the first failure for the call; a piece stopped at the call's budget gets
// SIGTERM (which a training run answers by saving) and exit status 124; pieces left with too
// little of the budget are skipped and recorded so.
func TestRunPieces(t *testing.T) {
	r, _ := testRunner(t, time.Hour)
	ok := fakePiece(t, "ok", func(ctx context.Context, j *job, p piece) error {
		return j.writeJSON("result.json", gpuresult.Check{Backend: "go", Seconds: 1.5})
	})
	failing := fakePiece(t, "failing", func(ctx context.Context, j *job, p piece) error {
		if err := os.WriteFile(j.path("result.json"), []byte("{half"), 0o644); err != nil {
			return err
		}
		return j.run(ctx, files{stderr: "cmd.log"}, "sh", "-c", "echo trouble >&2; exit 3")
	})
	slow := fakePiece(t, "slow", func(ctx context.Context, j *job, p piece) error {
		// As sgformer train on SIGTERM: save, then exit.
		return j.run(ctx, files{}, "bash", "-c", `trap 'kill $!; echo saved >`+j.path("saved.txt")+`; exit 0' TERM; echo started; sleep 60 & wait`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if got := r.runAll(ctx, []piece{ok, failing, ok, slow}); got != 3 {
		t.Errorf("exit status %d, want the first failure's, 3", got)
	}
	r.cfg.budget, r.start = 59*time.Second, time.Now()
	if got := r.runAll(context.Background(), []piece{ok}); got != 0 {
		t.Errorf("exit status %d of a skipped piece, want 0", got)
	}

	recs, err := gpuresult.ReadPieces(filepath.Join(r.cfg.out, "pieces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		piece, result, err string
		rc                 int
	}{
		{"ok:1,2", `{"backend":"go","glibc":"","seconds":1.5,"epoch_seconds":null}`, "", 0},
		{"failing:1,2", "null", "sh -c: exit status 3 (see cmd.log)", 3},
		{"ok:1,2", `{"backend":"go","glibc":"","seconds":1.5,"epoch_seconds":null}`, "", 0},
		{"slow:1,2", "null", "stopped at the call's budget", 124},
		{"ok:1,2", `{"skipped":"59s left of the call's budget"}`, "", 0},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(want), recs)
	}
	for i, w := range want {
		g := recs[i]
		if g.Piece != w.piece || string(g.Result) != w.result || g.RC != w.rc || !strings.Contains(g.Error, w.err) || (w.err == "") != (g.Error == "") ||
			g.Call != r.call || g.GPU != "none" || g.Build != "abc1234" || g.Date == "" {
			t.Errorf("record %d = %+v\nwant %+v", i, g, w)
		}
	}
	if saved := readFile(t, filepath.Join(r.cfg.work, "slow-1-2", "saved.txt")); saved != "saved\n" {
		t.Errorf("the slow piece's command did not save on SIGTERM: saved.txt %q", saved)
	}
	if log := readFile(t, filepath.Join(r.cfg.work, "failing-1-2", "output.txt")); !strings.Contains(log, "gpu-run: failing:1,2: sh -c: exit status 3") {
		t.Errorf("output.txt of the failing piece: %q", log)
	}
	for _, name := range []string{"ok-1-2", "failing-1-2", "slow-1-2"} {
		dest := t.TempDir()
		if err := untarGz(filepath.Join(r.cfg.out, name+".tar.gz"), dest, name); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dest, name, "output.txt")); err != nil {
			t.Errorf("%s.tar.gz lacks output.txt: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(r.cfg.out); len(entries) != 4 {
		t.Errorf("OUT holds %d files, want 3 tarballs and pieces.jsonl (none for the skipped piece)", len(entries))
	}
}

// A zinc piece packs each seed's run into its own tarball, runs/seed-S inside.
func TestRunPieceSeeds(t *testing.T) {
	r, _ := testRunner(t, time.Hour)
	p := fakePiece(t, "seeds", func(ctx context.Context, j *job, p piece) error {
		return os.MkdirAll(filepath.Join(j.cfg.work, "runs", "seed-4"), 0o755)
	})
	p.seeds = []int{4, 5} // seed 5's run never started
	if rc := r.runPiece(context.Background(), p); rc != 0 {
		t.Fatalf("exit status %d", rc)
	}
	for name, want := range map[string]bool{"seeds-1-2": true, "runs-seed-4": true, "runs-seed-5": false} {
		_, err := os.Stat(filepath.Join(r.cfg.out, name+".tar.gz"))
		if (err == nil) != want {
			t.Errorf("%s.tar.gz: %v, want it there: %v", name, err, want)
		}
	}
	if err := untarGz(filepath.Join(r.cfg.out, "runs-seed-4.tar.gz"), t.TempDir(), "runs/seed-4"); err != nil {
		t.Error(err)
	}
}

// readFile returns the text of a file, or "missing".
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "missing"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A command's output file is written anew (parity runs eval with the same backend twice in a
// dry run), its log appended to.
func TestRunFiles(t *testing.T) {
	var console strings.Builder
	j := &job{dir: t.TempDir(), out: &lockedWriter{w: &console}}
	for _, word := range []string{"first", "second"} {
		if err := j.run(context.Background(), files{stdout: "out.json", stderr: "log"}, "sh", "-c", "echo "+word+"; echo "+word+" >&2"); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.run(context.Background(), files{stderr: "tee.log", tee: true}, "sh", "-c", "echo shown; echo both >&2"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"out.json": "second\n", "log": "first\nsecond\n", "tee.log": "both\n"} {
		if got := readFile(t, j.path(name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if c := console.String(); c != "shown\nboth\n" && c != "both\nshown\n" { // two pipes: either order
		t.Errorf("console %q, want what was not redirected and the teed log", console.String())
	}
}
