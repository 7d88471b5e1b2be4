package main

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/csvfile"
	"github.com/sgformer/sgformer/internal/shareddata"
	"github.com/sgformer/sgformer/sgformer/graph"
)

const smallCSV = "../../data/testdata/molecules/small.csv"

// sgformer molecule prints the graph smiles.OGBGraph builds, in the JSON that graph.ReadJSON
// (and so product, pe and predict --graph) reads back identically; molecules without bonds
// included.
func TestMoleculeCommand(t *testing.T) {
	for _, s := range []string{
		"Cn1cnc2c1c(=O)n(C)c(=O)n2C", // caffeine
		"CC(C)C[C@H](N)C(=O)N[C@@H](C)C(=O)O",
		"CCO",
		"[Na+].[Cl-]", // a salt: two atoms, no bond
		"[Na+]",       // a single atom
	} {
		code, stdout, stderr := runCLI(t, "", "molecule", "--smiles", s)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, stderr)
		}
		want, err := data.MoleculeGraph(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := graph.ReadJSON(strings.NewReader(stdout), "stdout")
		if err != nil {
			t.Fatalf("%s: %v in %s", s, err, stdout)
		}
		if got.N() != want.N() || !slices.Equal(got.Edges(), want.Edges()) || got.NodeFeatures.Width != 9 || !slices.Equal(got.NodeFeatures.Ints, want.NodeFeatures.Ints) ||
			!slices.Equal(got.EdgeFeatures.Ints, want.EdgeFeatures.Ints) || want.NumEdges() > 0 && got.EdgeFeatures.Width != 3 {
			t.Errorf("%s: read back %+v, want %+v", s, got, want)
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(stdout), &raw); err != nil || raw["num_nodes"] != float64(want.N()) {
			t.Errorf("%s: %s", s, stdout)
		}
		for _, key := range []string{"edges", "node_features", "edge_features"} { // the same keys for every molecule
			if _, ok := raw[key].([]any); !ok {
				t.Errorf("%s: no list %q in %s", s, key, stdout)
			}
		}
		if code, _, stderr := runCLI(t, stdout, "pe", "--graph", "-", "--k", "1"); code != 0 {
			t.Errorf("%s: pe of the output: exit %d: %s", s, code, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"molecule", "--smiles", "CC(C"}, 1, "sgformer molecule: --smiles \"CC(C\": smiles: syntax error at byte 2: unmatched '('\n  CC(C\n    ^\n"},
		{[]string{"molecule", "--smiles", "C(F)(F)(F)(F)F"}, 1, "chemistry error"},
		{[]string{"molecule", "--smiles", "C~C"}, 1, "unsupported"},
		{[]string{"molecule"}, 2, "--smiles SMILES is required"},
		{[]string{"molecule", "--smiles", "C", "extra"}, 2, `unexpected argument "extra"`},
		// A 40 kB SMILES is not echoed whole, and the limit has its number.
		{[]string{"molecule", "--smiles", strings.Repeat("C", 40000)}, 1, `…(39880 bytes)…`},
		{[]string{"molecule", "--smiles", strings.Repeat("C", 40000)}, 1, "a SMILES of 40000 bytes, longer than the 32768 accepted"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || len(stderr) > 1000 {
			t.Errorf("sgformer %q: exit %d, %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// csvRun trains a small run on the table of molecules testdata/molecules/small.csv (regression
// on its logS column) for the predict tests.
func csvRun(t *testing.T) string {
	t.Helper()
	run := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runCLI(t, "", trainCSVArgs(run)...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	return run
}

func trainCSVArgs(out string) []string {
	return []string{"train", "--dataset", "csv:" + smallCSV, "--label-columns", "logS", "--task", "regression",
		"--cache-dir", filepath.Dir(out), "--epochs", "1", "--layers", "1", "--hidden", "12", "--pe-k", "2", "--out", out, "--backend", "go"}
}

// readTable reads a CSV written by predict --input.
func readTable(t *testing.T, text string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("%v in %q", err, text)
	}
	return recs
}

// predict --smiles and --input on a run trained on a table of molecules: the same predictions
// for the same molecule, rows that do not parse kept with their error and reported, exit 1.
func TestPredictMolecules(t *testing.T) {
	run := csvRun(t)
	var single = map[string]float64{}
	for _, s := range []string{"c1ccccc1O", "[Na+].[Cl-]", "[Na+]"} {
		code, stdout, stderr := runCLI(t, "", "predict", "--run", run, "--smiles", s, "--backend", "go")
		var got struct {
			Prediction []float64
			Tasks      []string
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil || len(got.Prediction) != 1 || !slices.Equal(got.Tasks, []string{"logS"}) {
			t.Fatalf("predict --smiles %s: exit %d, %q, %s", s, code, stdout, stderr)
		}
		single[s] = got.Prediction[0]
	}

	dir := t.TempDir()
	input := filepath.Join(dir, "in.csv")
	os.WriteFile(input, []byte("name,smiles,logS\nphenol,c1ccccc1O,0.1\nbroken,C1CC,\n\"salt, two ions\",[Na+].[Cl-],\nempty,,\nsodium,[Na+],\nshort\n"), 0o644)
	out := filepath.Join(dir, "out.csv")
	os.WriteFile(out, []byte("old"), 0o644)
	// Rows that cannot be predicted are reported, and the others predicted (exit 0); with
	// --strict, the same output and exit status 1. Progress lines (here after every chunk) count
	// the rows, with the ETA.
	defer func(interval time.Duration) { tableProgressInterval = interval }(tableProgressInterval)
	tableProgressInterval = 0
	for _, strict := range []bool{false, true} {
		args := []string{"predict", "--run", run, "--input", input, "--output", out, "--backend", "go"}
		wantCode, prefix := 0, ""
		if strict {
			args, wantCode, prefix = append(args, "--strict"), 1, "sgformer predict: "
		}
		code, stdout, stderr := runCLI(t, "", args...)
		for _, want := range []string{
			input + `:3: column "smiles": smiles: syntax error at byte 1: unclosed ring 1`,
			input + `:5: column "smiles": an empty SMILES (no atoms)`,
			input + `:7: column "smiles": 1 fields, the header has 3`,
			prefix + `3 of 6 rows have no prediction (the "error" column of ` + out + ` says why; the first: ` + input + ":3:",
			"\npredict: 6/6 rows, ",
		} {
			if code != wantCode || stdout != "" || !strings.Contains(stderr, want) {
				t.Errorf("predict --input (strict %v): exit %d, stdout %q, stderr %q; want exit %d and %q", strict, code, stdout, stderr, wantCode, want)
			}
		}
	}
	raw, _ := os.ReadFile(out)
	recs := readTable(t, string(raw))
	if !slices.Equal(recs[0], []string{"name", "smiles", "logS", "pred_logS", "error"}) || len(recs) != 7 {
		t.Fatalf("output %q", raw)
	}
	for i, want := range []struct {
		name, smiles string
		failed       string
	}{{"phenol", "c1ccccc1O", ""}, {"broken", "C1CC", "line 3: smiles: syntax error at byte 1: unclosed ring 1"}, {"salt, two ions", "[Na+].[Cl-]", ""},
		{"empty", "", "line 5: an empty SMILES (no atoms)"}, {"sodium", "[Na+]", ""}, {"short", "", "line 7: 1 fields, the header has 3"}} {
		rec := recs[i+1]
		if rec[0] != want.name || rec[1] != want.smiles || rec[4] != want.failed {
			t.Errorf("row %d: %q", i+1, rec)
		}
		if want.failed != "" {
			if rec[3] != "" {
				t.Errorf("row %d: prediction %q for a failed row", i+1, rec[3])
			}
			continue
		}
		if y, err := strconv.ParseFloat(rec[3], 64); err != nil || y != single[want.smiles] {
			t.Errorf("row %d: %q, predict --smiles gave %v", i+1, rec[3], single[want.smiles])
		}
	}

	// JSON lines, by --output's name, from standard input: the same rows with typed values.
	jsonl := filepath.Join(dir, "out.jsonl")
	in, _ := os.ReadFile(input)
	code, _, stderr := runCLI(t, string(in), "predict", "--run", run, "--input", "-", "--output", jsonl, "--backend", "go")
	if code != 0 || !strings.Contains(stderr, `<stdin>:3: column "smiles"`) {
		t.Errorf("--input -: exit %d, %q", code, stderr)
	}
	f, _ := os.Open(jsonl)
	defer f.Close()
	var lines []map[string]any
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		lines = append(lines, m)
	}
	if len(lines) != 6 || lines[0]["pred_logS"] != single["c1ccccc1O"] || lines[0]["error"] != nil || lines[0]["logS"] != "0.1" ||
		lines[1]["pred_logS"] != nil || lines[1]["error"] != "line 3: smiles: syntax error at byte 1: unclosed ring 1" || lines[2]["name"] != "salt, two ions" {
		t.Errorf("JSON lines %v", lines)
	}

	// Every row parses: exit 0, to standard output, gzipped input, another SMILES column.
	var gz strings.Builder
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("mol\nCCO\nc1ccccc1O\n"))
	zw.Close()
	gzPath := filepath.Join(dir, "in.csv.gz")
	os.WriteFile(gzPath, []byte(gz.String()), 0o644)
	code, stdout, stderr := runCLI(t, "", "predict", "--run", run, "--input", gzPath, "--smiles-column", "mol", "--backend", "go")
	if recs := readTable(t, stdout); code != 0 || len(recs) != 3 || !slices.Equal(recs[0], []string{"mol", "pred_logS", "error"}) || recs[2][1] != strconv.FormatFloat(single["c1ccccc1O"], 'g', -1, 64) {
		t.Errorf("gzipped input: exit %d, %q, %s", code, stdout, stderr)
	}

	// No row predicted: exit 1.
	none := filepath.Join(dir, "none.csv")
	os.WriteFile(none, []byte("smiles\nC1CC\n\n"), 0o644)
	if code, _, stderr := runCLI(t, "", "predict", "--run", run, "--input", none, "--backend", "go"); code != 1 || !strings.Contains(stderr, "sgformer predict: 1 of 1 rows have no prediction") {
		t.Errorf("no row predicted: exit %d, %q", code, stderr)
	}

	// A failure before any row leaves an existing output as it was.
	code, _, stderr = runCLI(t, "", "predict", "--run", run, "--input", input, "--smiles-column", "SMILES", "--output", out, "--backend", "go")
	if got, _ := os.ReadFile(out); code != 1 || !strings.Contains(stderr, `in.csv:1: no column "SMILES" (the header has: name, smiles, logS)`) || string(got) != string(raw) {
		t.Errorf("missing column: exit %d, %q; output now %q", code, stderr, got)
	}
}

// Mistakes on predict's command line are usage errors, and so is SMILES for a run whose data
// are not OGB-featurised molecules.
func TestPredictUsage(t *testing.T) {
	run := csvRun(t)
	synthetic := filepath.Join(t.TempDir(), "synthetic")
	if code, _, stderr := runCLI(t, "", "train", "--dataset", "synthetic", "--synthetic-graphs", "20", "--epochs", "1", "--layers", "1", "--hidden", "12",
		"--out", synthetic, "--backend", "go"); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--run", synthetic, "--smiles", "CCO"}, 2, synthetic + " was trained on synthetic, whose graphs have 1 node and 1 edge feature(s): SMILES need a run trained on molecules featurised as OGB does"},
		{[]string{"--run", synthetic, "--input", smallCSV}, 2, "SMILES need a run trained on molecules"},
		{[]string{"--run", run, "--smiles", "CCO", "--graph", "-"}, 2, "give one of --graph FILE, --smiles SMILES and --input FILE.csv"},
		{[]string{"--run", run}, 2, "give one of"},
		{[]string{"--run", run, "--smiles", "CCO", "--output", "x.csv"}, 2, "--output, --format and --smiles-column go with --input"},
		{[]string{"--run", run, "--input", smallCSV, "--format", "xml"}, 2, `--format "xml": want csv or jsonl`},
		{[]string{"--run", run, "--smiles", "C1CC"}, 1, "--smiles \"C1CC\": smiles: syntax error at byte 1: unclosed ring 1\n  C1CC\n   ^"},
		{[]string{"--smiles", "C"}, 2, "--run RUN is required"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"predict", "--backend", "go"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("predict %q: exit %d, %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// Training on a table of molecules: the CSV options recorded and reused by eval and --resume;
// the options' mistakes are usage errors.
func TestTrainCSV(t *testing.T) {
	run := csvRun(t)
	code, stdout, stderr := runCLI(t, "", "eval", "--run", run, "--cache-dir", t.TempDir(), "--backend", "go")
	var ev map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &ev) != nil || ev["metric"] != "mae" || ev["dataset"] != "csv:"+smallCSV {
		t.Fatalf("eval: exit %d, %q, %s", code, stdout, stderr)
	}
	resumed := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runCLI(t, "", trainCSVArgs(resumed)...); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	code, _, stderr = runCLI(t, "", "train", "--out", resumed, "--resume", "--epochs", "2", "--backend", "go")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	classify := filepath.Join(t.TempDir(), "classify")
	code, stdout, stderr = runCLI(t, "", "train", "--dataset", "csv:"+smallCSV, "--label-columns", "active", "--task", "classification", "--split", "random", "--seed", "2",
		"--epochs", "1", "--layers", "1", "--hidden", "12", "--pe-k", "2", "--out", classify, "--cache-dir", t.TempDir(), "--backend", "go")
	if code != 0 || !strings.Contains(stdout, `"metric":"rocauc"`) {
		t.Fatalf("classification: exit %d, %q, %s", code, stdout, stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(classify, "run.json"))
	if !strings.Contains(string(raw), `"split": "random"`) || !strings.Contains(string(raw), `"seed": 2`) || !strings.Contains(string(raw), `"task": "classification"`) {
		t.Errorf("run.json %s", raw)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset", "csv:" + smallCSV, "--label-columns", "logS"}, "needs --task regression or --task classification"},
		{[]string{"--dataset", "csv:" + smallCSV, "--task", "regression"}, "needs --label-columns A,B,..."},
		{[]string{"--dataset", "csv:" + smallCSV, "--task", "ranking", "--label-columns", "logS"}, `task "ranking": want regression or classification`},
		{[]string{"--dataset", "csv:", "--task", "regression", "--label-columns", "logS"}, "name the file"},
		{[]string{"--dataset", "synthetic", "--label-columns", "logS"}, "--label-columns is for --dataset csv:FILE"},
		{[]string{"--out", resumed, "--resume", "--task", "classification"}, "--task classification contradicts the run's task regression"},
	} {
		args := append([]string{"train", "--epochs", "1", "--backend", "go"}, tc.args...)
		if !slices.Contains(tc.args, "--out") {
			args = append(args, "--out", filepath.Join(t.TempDir(), "x"))
		}
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("train %q: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// A table whose SMILES do not parse: exit 1, naming the file, line and column.
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("smiles,y\nCCO,1\nC1CC,2\n"), 0o644)
	code, _, stderr = runCLI(t, "", "train", "--dataset", "csv:"+bad, "--label-columns", "y", "--task", "regression", "--out", filepath.Join(t.TempDir(), "x"), "--backend", "go")
	if code != 1 || !strings.Contains(stderr, bad+`:3: column "smiles": smiles: syntax error at byte 1: unclosed ring 1`) {
		t.Errorf("bad SMILES: exit %d, %q", code, stderr)
	}
}

// sgformer train --dataset peptides-func end to end, on a miniature copy of the shared data (its
// first 12 peptides; --no-verify, since it is not the published dataset): an epoch of the whole
// dataset takes hours on a CPU (see the README).
func TestTrainPeptidesFunc(t *testing.T) {
	shared := shareddata.Dir(t, "peptides_func")
	r, err := csvfile.Open(filepath.Join(shared, "peptide_multi_class_dataset.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "peptide_multi_class_dataset.csv.gz"))
	zw := gzip.NewWriter(f)
	w := csv.NewWriter(zw)
	w.Write(r.Header)
	for range 12 {
		rec, _, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		w.Write(rec)
	}
	w.Flush()
	zw.Close()
	f.Close()
	os.WriteFile(filepath.Join(dir, "splits_random_stratified_peptide.json"), []byte(`{"train": [0, 1, 2, 3, 4, 5, 6, 7], "val": [8, 9], "test": [10, 11]}`), 0o644)
	run := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, "", "train", "--dataset", "peptides-func", "--data-dir", dir, "--no-verify", "--cache-dir", t.TempDir(),
		"--epochs", "2", "-set", "warmup_epochs=1", "--layers", "1", "--hidden", "24", "--batch-size", "4", "--out", run, "--backend", "go")
	var sum map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &sum) != nil || sum["metric"] != "ap" || sum["epochs"] != 2.0 {
		t.Fatalf("train: exit %d, %q, %s", code, stdout, stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(run, "run.json"))
	if !strings.Contains(string(raw), `"antifungal"`) {
		t.Errorf("run.json without the class names: %s", raw)
	}
	code, stdout, stderr = runCLI(t, "", "predict", "--run", run, "--smiles", "CC(N)C(=O)NCC(=O)O", "--backend", "go")
	if code != 0 || !strings.Contains(stdout, `"tasks":["antifungal","cell_cell_communication"`) {
		t.Errorf("predict: exit %d, %q, %s", code, stdout, stderr)
	}
}
