package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/sgformer/training"
)

// A 2 × 2 × 2 grid on the synthetic task: every cell trained, the table rendered; a second
// call skips finished cells and resumes an interrupted one.
func TestAblateAndTable(t *testing.T) {
	out := t.TempDir()
	args := []string{"ablate", "--out", out, "--ratios", "1,0.5", "--pe-k", "0,4", "--seeds", "0,1", "--epochs", "1",
		"--dataset", "synthetic", "--synthetic-graphs", "24", "--layers", "1", "--hidden", "12", "--batch-size", "12", "--backend", "go"}
	code, stdout, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| sampling ratio | no PE | PE k = 4 |", "| 1 (full bag) |", "| 0.5 |", "| 0, 1 | 1, 1 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	var rows []map[string]any
	raw, _ := os.ReadFile(filepath.Join(out, "table.json"))
	if err := json.Unmarshal(raw, &rows); err != nil || len(rows) != 4 {
		t.Fatalf("table.json: %d rows, %v", len(rows), err)
	}

	// Interrupt one cell (its run was cut after the checkpoint of epoch 1 of 2) and extend the
	// grid to 2 epochs: every cell resumes from its checkpoint.
	cell := cellDir(out, "subgraphormer", 0.5, 4, 1)
	if err := os.Remove(filepath.Join(cell, "summary.json")); err != nil {
		t.Fatal(err)
	}
	args[len(args)-13] = "2" // --epochs
	if args[len(args)-14] != "--epochs" {
		t.Fatalf("args layout: %v", args)
	}
	code, _, stderr = runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	recs, err := os.ReadFile(filepath.Join(cell, "metrics.jsonl"))
	if err != nil || strings.Count(string(recs), "\n") != 2 {
		t.Fatalf("resumed cell: %q, %v", recs, err)
	}
	// A third call has nothing left to do.
	code, _, stderr = runCLI(t, "", args...)
	if code != 0 || strings.Count(stderr, ": done (") != 8 {
		t.Fatalf("third run: exit %d, want 8 cells done: %s", code, stderr)
	}

	// A time limit already over when the grid is extended: nothing starts (within a cell,
	// training stops at the limit as sgformer train does).
	args[len(args)-13] = "3"
	code, _, stderr = runCLI(t, "", append(args, "--time-limit", "1ns")...)
	if code != 0 || !strings.Contains(stderr, "time limit reached") || strings.Contains(stderr, "epoch 3/3") {
		t.Fatalf("time-limited run: exit %d, want a stop before any epoch: %s", code, stderr)
	}

	code, stdout, _ = runCLI(t, "", "table", out)
	if code != 0 || !strings.Contains(stdout, "| 0, 1 | 2, 2 |") {
		t.Fatalf("table: exit %d:\n%s", code, stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"table"}, "want one directory"},
		{[]string{"table", filepath.Join(out, "nothing")}, "no such file"},
		{[]string{"ablate", "--out", out, "--ratios", "1,x"}, `--ratios: "x" is not a number`},
		{[]string{"ablate", "--out", out, "--seeds", "1,1"}, "--seeds lists 1 twice"},
		{[]string{"ablate", "--out", out, "--seed", "1"}, "flag provided but not defined: -seed"},
	} {
		if code, _, stderr := runCLI(t, "", tc.args...); code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("sgformer %v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Three workers on one grid (the same ablate command in three processes): each cell is trained
// once, a cell whose worker is killed (SIGKILL, in the middle of it) is taken over by a worker
// that waited for it and resumed from its checkpoint, and the table holds every cell.
func TestAblateWorkers(t *testing.T) {
	out := t.TempDir()
	args := []string{"ablate", "--out", out, "--ratios", "1,0.5", "--pe-k", "0", "--seeds", "0,1,2", "--epochs", "3",
		"--dataset", "synthetic", "--synthetic-graphs", "24", "--layers", "1", "--hidden", "12", "--batch-size", "12", "--backend", "go"}
	type worker struct {
		cmd   *exec.Cmd
		lines chan string
		log   strings.Builder
	}
	start := func() *worker {
		w := &worker{cmd: exec.Command(os.Args[0], args...), lines: make(chan string, 1000)}
		w.cmd.Env = append(os.Environ(), "SGFORMER_CLI=1")
		stderr, err := w.cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				w.lines <- sc.Text()
			}
			close(w.lines)
		}()
		return w
	}
	// until reads w's lines of stderr into its log up to the first that contains s.
	until := func(w *worker, s string) {
		t.Helper()
		for line := range w.lines {
			w.log.WriteString(line + "\n")
			if strings.Contains(line, s) {
				return
			}
		}
		t.Fatalf("the worker ended without %q:\n%s", s, w.log.String())
	}
	first := start()
	until(first, "epoch 1/3") // in the middle of its first cell
	others := []*worker{start(), start()}
	for _, w := range others {
		until(w, "trained by another worker")
	}
	first.cmd.Process.Kill()
	for line := range first.lines {
		first.log.WriteString(line + "\n")
	}
	first.cmd.Wait()
	for _, w := range others {
		for line := range w.lines {
			w.log.WriteString(line + "\n")
		}
		if err := w.cmd.Wait(); err != nil {
			t.Fatalf("worker: %v\n%s", err, w.log.String())
		}
	}
	// The epochs each worker trained of each cell: the "epoch N/3" lines after the line that
	// starts it ("== cell …: ratio R, k K, seed S (RUN)").
	trained := map[string][]string{} // run → "worker:epoch"
	header := regexp.MustCompile(`^== cell .*seed \d+ \((.*)\)$`)
	for i, w := range append([]*worker{first}, others...) {
		run := ""
		for _, line := range strings.Split(w.log.String(), "\n") {
			if m := header.FindStringSubmatch(line); m != nil {
				run = m[1]
			} else if strings.HasPrefix(line, "==") {
				run = ""
			} else if strings.HasPrefix(line, "epoch ") && run != "" {
				trained[run] = append(trained[run], fmt.Sprintf("%d:%s", i, strings.Fields(line)[1]))
			}
		}
	}
	takenOver := 0
	for _, ratio := range []float64{1, 0.5} {
		for seed := range 3 {
			run := cellDir(out, "subgraphormer", ratio, 0, seed)
			recs, err := training.ReadRecords(filepath.Join(run, training.MetricsFile))
			if err != nil || len(recs) != 3 || recs[0].Epoch != 1 || recs[2].Epoch != 3 {
				t.Fatalf("%s: records %+v, %v; want epochs 1, 2, 3", run, recs, err)
			}
			var epochs []string
			workers := map[byte]bool{}
			for _, e := range trained[run] {
				epochs = append(epochs, e[2:])
				workers[e[0]] = true
			}
			if !slices.Equal(epochs, []string{"1/3", "2/3", "3/3"}) {
				t.Errorf("%s: trained %v, want each epoch once", run, trained[run])
			}
			if len(workers) > 1 {
				takenOver++
			}
		}
	}
	// The killed worker was in the middle of a cell unless it had logged that cell's last epoch.
	log := first.log.String()
	midway := !strings.Contains(log[strings.LastIndex(log, "== cell"):], "epoch 3/3")
	if want := map[bool]int{true: 1, false: 0}[midway]; takenOver != want {
		t.Errorf("%d cells trained by two workers, want %d (the killed worker's, if it was in the middle of one)", takenOver, want)
	}
	if raw, err := os.ReadFile(filepath.Join(out, "table.md")); err != nil || !strings.Contains(string(raw), "| 0, 1, 2 |") {
		t.Fatalf("table.md: %v\n%s", err, raw)
	}
}

// --list numbers the grid's cells with their state; --cell N trains exactly that cell (resumes
// it when interrupted, leaves it when done), as a Slurm array task does; an index outside the
// grid and flags that change the grid since it was made are usage errors that change nothing.
func TestAblateCells(t *testing.T) {
	out := t.TempDir()
	args := []string{"ablate", "--out", out, "--ratios", "1,0.5", "--pe-k", "0,4", "--seeds", "0", "--epochs", "1",
		"--dataset", "synthetic", "--synthetic-graphs", "24", "--layers", "1", "--hidden", "12", "--batch-size", "12", "--backend", "go"}
	list := func() []map[string]any {
		t.Helper()
		code, stdout, stderr := runCLI(t, "", append(args, "--list")...)
		if code != 0 {
			t.Fatalf("--list: exit %d: %s", code, stderr)
		}
		var cells []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var c map[string]any
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatalf("--list line %q: %v", line, err)
			}
			cells = append(cells, c)
		}
		return cells
	}
	cells := list()
	if len(cells) != 4 || cells[2]["pe_k"] != 4.0 || cells[2]["sampling_ratio"] != 1.0 || cells[2]["state"] != "new" || cells[3]["index"] != 3.0 {
		t.Fatalf("--list: %v", cells)
	}
	if code, _, stderr := runCLI(t, "", append(args, "--cell", "2")...); code != 0 {
		t.Fatalf("--cell 2: exit %d: %s", code, stderr)
	}
	states := func() (s []any) {
		for _, c := range list() {
			s = append(s, c["state"])
		}
		return s
	}
	if got := fmt.Sprint(states()); got != "[new new done new]" {
		t.Errorf("after --cell 2: states %s", got)
	}
	// Interrupted (its summary gone, its checkpoint kept) and extended to 2 epochs: resumed.
	run := cellDir(out, "subgraphormer", 1, 4, 0)
	os.Remove(filepath.Join(run, training.SummaryFile))
	args[10] = "2" // --epochs
	if got := fmt.Sprint(states()); got != "[new new resumable new]" {
		t.Errorf("interrupted: states %s", got)
	}
	code, _, stderr := runCLI(t, "", append(args, "--cell", "2")...)
	recs, _ := os.ReadFile(filepath.Join(run, training.MetricsFile))
	if code != 0 || !strings.Contains(stderr, "epoch 2/2") || strings.Contains(stderr, "epoch 1/2") || strings.Count(string(recs), "\n") != 2 {
		t.Errorf("--cell 2 resumed: exit %d, records %q: %s", code, recs, stderr)
	}
	if code, _, stderr := runCLI(t, "", append(args, "--cell", "2")...); code != 0 || !strings.Contains(stderr, ": done (") {
		t.Errorf("--cell 2 once more: exit %d: %s", code, stderr)
	}
	grid, _ := os.ReadFile(filepath.Join(out, gridFile))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cell", "4"}, "--cell 4: the grid has 4 cells, 0 to 3"},
		{[]string{"--cell", "-2"}, "--cell -2: the grid has 4 cells, 0 to 3"},
		{[]string{"--lr", "0.01", "--cell", "0"}, "cell 0 was subgraphormer ratio 1, k 0, seed 0 (learning_rate 0.002), these flags make it subgraphormer ratio 1, k 0, seed 0 (learning_rate 0.01)"},
		{[]string{"--seeds", "0,1", "--list"}, "cell 1 was subgraphormer ratio 0.5, k 0, seed 0, these flags make it subgraphormer ratio 1, k 0, seed 1:"},
		{[]string{"--pe-k", "0,4,8", "--list"}, "holds a grid of 4 cells, these flags make 6"},
	} {
		code, _, stderr := runCLI(t, "", append(slices.Clone(args), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(out, gridFile)); string(after) != string(grid) {
		t.Error("a refused call rewrote grid.json")
	}
}
