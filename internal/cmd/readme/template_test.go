package main

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/sgformer/sgformer/internal/record"
)

// writeRecords writes the records of a script's output, the parts of body under a header, to path.
func writeRecords(t *testing.T, path, body string) {
	t.Helper()
	s, err := record.Parse(strings.NewReader("# command: scripts/x.sh\n# commit: abc1234\n# date: 2026-11-28T16:00Z\n# machine: 2 cores\n# load: 0.1 0.2 0.3\n" + body))
	if err != nil {
		t.Fatal(err)
	}
	if err := record.Write(path, s); err != nil {
		t.Fatal(err)
	}
}

// The plugins' table gives each plugin's median over the rounds with their range, in the order of
// the parity records (the first is the one install-xla installs); a part that names no plugin of
// the parity records, or a plugin with a round missing, is an error rather than a row left out.
func TestPluginsSection(t *testing.T) {
	const file = "p.jsonl"
	good := `== parity
{"package":"a-cpu","version":"1.0","parity":true}
{"package":"b-cpu","version":"2.0","parity":false}
== a-cpu 1.0
BenchmarkZINCTrainStep/sparse-2 8 2000000000 ns/op 2000 host_ms/op 1900 median_ms/op
BenchmarkZINCInference/sparse-2 8 400000000 ns/op 400 host_ms/op 410 median_ms/op
BenchmarkMatMul/2048-2 5 1 ns/op 170 GFLOP/s
== b-cpu 2.0
BenchmarkZINCTrainStep/sparse-2 8 2000000000 ns/op 2000 host_ms/op 2100 median_ms/op
BenchmarkZINCInference/sparse-2 8 400000000 ns/op 400 host_ms/op 350 median_ms/op
BenchmarkMatMul/2048-2 5 1 ns/op 160 GFLOP/s
== a-cpu 1.0
BenchmarkZINCTrainStep/sparse-2 8 2000000000 ns/op 2000 host_ms/op 1700 median_ms/op
BenchmarkZINCInference/sparse-2 8 400000000 ns/op 400 host_ms/op 390 median_ms/op
BenchmarkMatMul/2048-2 5 1 ns/op 180 GFLOP/s
== b-cpu 2.0
BenchmarkZINCTrainStep/sparse-2 8 2000000000 ns/op 2000 host_ms/op 2000 median_ms/op
BenchmarkZINCInference/sparse-2 8 400000000 ns/op 400 host_ms/op 360 median_ms/op
BenchmarkMatMul/2048-2 5 1 ns/op 150 GFLOP/s
`
	root := t.TempDir()
	render := func(s string) (string, error) {
		writeRecords(t, filepath.Join(root, file), s)
		return templateSection("xla-cpu-plugins", file)(root)
	}
	got, err := render(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| `a-cpu` 1.0 (what `sgformer install-xla` installs) | pass | 1.80 (1.70–1.90) s | 0.40 (0.39–0.41) s | 175 (170–180) GFLOP/s |",
		"| `b-cpu` 2.0 | fail | 2.05 (2.00–2.10) s | 0.35 (0.35–0.36) s | 155 (150–160) GFLOP/s |",
		"the median of 2 rounds",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	for name, bad := range map[string]string{
		"unknown plugin": strings.Replace(good, "== b-cpu 2.0\nBenchmarkZINCTrainStep/sparse-2 8 2000000000 ns/op 2000 host_ms/op 2000", "== c-cpu 3.0\nBenchmarkZINCTrainStep/sparse-2 8 2000000000 ns/op 2000 host_ms/op 2000", 1),
		"round missing":  strings.Replace(good, "BenchmarkMatMul/2048-2 5 1 ns/op 150 GFLOP/s\n", "", 1),
		"no parity":      strings.ReplaceAll(good, "parity", "x"),
	} {
		if _, err := render(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A record a template asks for and the file lacks stops the render with an error that names the
// file, the part, the quantity and the unit.
func TestTemplateMissingRecord(t *testing.T) {
	const file = "t.jsonl"
	root := t.TempDir()
	body := `== TupleOrder
BenchmarkTupleOrder/K=2/train-2 1 1 ns/op 1612 nodes/batch 0.6488 s/graph
BenchmarkTupleOrder/K=2/inference-2 1 1 ns/op 0.1935 s/graph
BenchmarkTupleOrder/K=3/train-2 1 1 ns/op 46121 nodes/batch 13.73 s/graph
BenchmarkTupleOrder/K=3/inference-2 1 1 ns/op 4.378 s/graph
`
	writeRecords(t, filepath.Join(root, file), body+"peak RSS 7608812 kB, wall 95.62 s, CPU 118%\n")
	got, err := templateSection("tuple-order", file)(root)
	if err != nil || !strings.Contains(got, "| 3 | 46,121 | 13.73 | 4.38 |") || !strings.Contains(got, "(both K): 7.3 GiB.") {
		t.Errorf("section = %q, %v", got, err)
	}
	writeRecords(t, filepath.Join(root, file), body)
	_, err = templateSection("tuple-order", file)(root)
	if err == nil || !strings.Contains(err.Error(), `t.jsonl: part "TupleOrder" has no "peak RSS" in "kB"`) {
		t.Errorf("without the peak RSS: %v", err)
	}
}

// Every template renders a section of the documents, or is a layout several share (_NAME), and
// a section without its template is an error.
func TestTemplatesAreSections(t *testing.T) {
	files, err := fs.Glob(templateFiles, "templates/*.md.tmpl")
	if err != nil || len(files) == 0 {
		t.Fatalf("templates %q, %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".md.tmpl")
		if !strings.HasPrefix(name, "_") && sections[name] == nil {
			t.Errorf("%s: no section %q (a layout several sections share is named _NAME)", f, name)
		}
	}
	if _, err := renderTemplate("no-such-section", "", nil, nil); err == nil {
		t.Error("a section without its template rendered")
	}
}

// No two template files define the same name: parsed into one set, the later {{define}} would
// replace the earlier without a word.
func TestTemplateNamesUnique(t *testing.T) {
	files, err := fs.Glob(templateFiles, "templates/*.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]string{} // a template's name → the file that defines it
	for _, f := range files {
		text, err := fs.ReadFile(templateFiles, f)
		if err != nil {
			t.Fatal(err)
		}
		one, err := template.New(path.Base(f)).Funcs(rowFuncs).Funcs(recordFuncs("", nil)).Parse(string(text))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, d := range one.Templates() {
			if other, ok := defined[d.Name()]; ok {
				t.Errorf("%s and %s both define %q", other, f, d.Name())
			}
			defined[d.Name()] = f
		}
	}
}

// thousands takes an int (a count the Go side computes) or a float64 (a record's value); join
// writes strings or numbers; last takes the last of strings or numbers, and fails on none;
// medianRange of no values names the file.
func TestTemplateFuncs(t *testing.T) {
	funcs := template.New("").Funcs(rowFuncs).Funcs(recordFuncs("f.jsonl", nil))
	tmpl := template.Must(funcs.Parse("{{thousands 1234567}} {{thousands 1234.9}}; {{join \"`%s/`\" .S}}; {{join \"%.1f\" .F}}; {{last .S}} {{last .F}}"))
	var b strings.Builder
	if err := tmpl.Execute(&b, map[string]any{"S": []string{"a", "b"}, "F": []float64{1, 2.5}}); err != nil {
		t.Fatal(err)
	}
	if want := "1,234,567 1,234; `a/`, `b/`; 1.0, 2.5; b 2.5"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
	if err := template.Must(funcs.Parse(`{{last .}}`)).Execute(&b, []float64(nil)); err == nil {
		t.Error("last of none: no error")
	}
	err := template.Must(funcs.Parse(`{{medianRange "%.1f" .}}`)).Execute(&b, []float64(nil))
	if err == nil || !strings.Contains(err.Error(), "f.jsonl: the median and range of no values") {
		t.Errorf("medianRange of none: %v", err)
	}
}
