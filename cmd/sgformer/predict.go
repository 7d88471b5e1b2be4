package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/internal/csvfile"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

const predictUsage = `usage: sgformer predict --run RUN (--graph FILE | --smiles SMILES | --input FILE.csv [--smiles-column C] [--output FILE] [--format csv|jsonl])

Predicts the targets of graphs with the best epoch of a trained run, deterministically.

  --graph FILE      one graph in JSON, features in the run's encoding: prints {"prediction": [...]}
  --smiles SMILES   one molecule: the same, for a run trained on OGB-featurised molecules
                    (ogbg-mol*, peptides-*, csv:FILE)
  --input FILE.csv  a table of molecules (plain or gzipped CSV with a header; - for standard input):
                    writes every row with its columns kept, one column per task (pred_ and the
                    dataset's task name where it names them, as an identifier, else pred_0,
                    pred_1, ...) and an error
                    column, as CSV or as JSON lines (one object per row: the row's fields, the
                    predictions as numbers, "error"), to --output (written to a temporary file and
                    renamed into place) or standard output. A row whose SMILES does not parse keeps
                    its fields, with empty predictions and the reason in its error column; each is
                    reported on standard error as FILE:LINE. The whole output is written either
                    way; then the exit status is 1 when no row could be predicted (with --strict:
                    when any row failed), with a count of the rows that failed.
`

// predictChunk is how many rows of a table are featurised, preprocessed and predicted at a time.
const predictChunk = 256

// tableProgressInterval is the least time between two progress lines of predict --input.
var tableProgressInterval = 10 * time.Second

// tableProgress reports on w how far predict --input got, at most every interval: the rows done,
// their rate, and with the table's rows known (total > 0; not on standard input) the ETA.
type tableProgress struct {
	w           io.Writer
	total       int
	began, last time.Time
}

func (t *tableProgress) done(rows int) {
	now := time.Now()
	if now.Sub(t.last) < tableProgressInterval {
		return
	}
	t.last = now
	rate := float64(rows) / max(now.Sub(t.began).Seconds(), 1e-9)
	if t.total <= 0 {
		fmt.Fprintf(t.w, "predict: %d rows, %.3g rows/s\n", rows, rate)
		return
	}
	eta := time.Duration(float64(t.total-rows) / rate * float64(time.Second)).Round(time.Second)
	fmt.Fprintf(t.w, "predict: %d/%d rows, %.3g rows/s, eta %v\n", rows, t.total, rate, eta)
}

// countRows returns the number of rows of the CSV table path (a first pass, for the ETA), or 0
// when it cannot say.
func countRows(path string) int {
	r, err := csvfile.Open(path)
	if err != nil {
		return 0
	}
	defer r.Close()
	n := 0
	for {
		_, _, err := r.Read()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil && !errors.As(err, new(*csvfile.WidthError)) {
			return 0
		}
		n++
	}
}

func predictCmd(args []string, io stdio) error {
	fs := newFlagSet("predict")
	run := fs.String("run", "", "run directory written by sgformer train")
	path := fs.String("graph", "", `graph JSON with "node_features" and "edge_features" in the dataset's encoding, or - for standard input`)
	smilesFlag := fs.String("smiles", "", "a molecule as a SMILES string, for a run trained on OGB-featurised molecules")
	input := fs.String("input", "", "a CSV table of molecules to predict (- for standard input)")
	column := fs.String("smiles-column", "smiles", "the --input column holding the SMILES")
	output := fs.String("output", "", "where --input's predictions go (default: standard output)")
	strict := fs.Bool("strict", false, "--input: fail (exit status 1) when a row cannot be predicted, not only when none can")
	format := fs.String("format", "", `--input's output format: "csv" or "jsonl" (default: jsonl for an --output ending in .jsonl or .json, else csv)`)
	backendName := fs.String("backend", "", "GoMLX backend (default $GOMLX_BACKEND, else xla:cpu if installed, else go)")
	devices := devicesFlag(fs)
	describe(fs, predictUsage)
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *run == "" {
		return usagef("--run RUN is required")
	}
	given := 0
	for _, v := range []string{*path, *smilesFlag, *input} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return usagef("give one of --graph FILE, --smiles SMILES and --input FILE.csv")
	}
	if *input == "" && (*output != "" || *format != "" || isSet(fs, "smiles-column")) {
		return usagef("--output, --format and --smiles-column go with --input")
	}
	outFormat, err := tableFormat(*format, *output)
	if err != nil {
		return err
	}
	src, err := training.ReadSource(*run)
	if err != nil {
		return err
	}
	if (*smilesFlag != "" || *input != "") && !src.Molecules() {
		return usagef("%s was trained on %s, whose graphs have %d node and %d edge feature(s): SMILES need a run trained on molecules featurised as OGB does (9 atom and 3 bond features: ogbg-mol*, peptides-*, csv:FILE)",
			*run, src.Dataset, len(src.Spec.NodeVocab), len(src.Spec.EdgeVocab))
	}
	var g *graph.Graph
	switch {
	case *path != "":
		g, err = readGraph(*path, io)
	case *smilesFlag != "":
		g, err = smilesGraph(*smilesFlag)
	}
	if err != nil {
		return err
	}
	r, err := loadRun(*run, *backendName, *devices, io)
	if err != nil {
		return err
	}
	p := r.pred
	if *input != "" {
		return predictTable(p, src, *input, *column, *output, outFormat, *strict, io)
	}
	pred, err := p.PredictGraph(g)
	if err != nil {
		return err
	}
	result := map[string]any{"prediction": pred}
	if src.LabelNames != nil {
		result["tasks"] = src.LabelNames
	}
	return writeJSON(io.out, result)
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// tableFormat is the output format of predict --input: --format, else from --output's name.
func tableFormat(format, output string) (string, error) {
	switch format {
	case "csv", "jsonl":
		return format, nil
	case "":
		if strings.HasSuffix(output, ".jsonl") || strings.HasSuffix(output, ".json") {
			return "jsonl", nil
		}
		return "csv", nil
	}
	return "", usagef("--format %q: want csv or jsonl", format)
}

// predictionColumns names the prediction columns of a table: "pred_" and the run's task name
// as an identifier (columnName), else pred_0, pred_1, ...; and the error column. A name the
// input already has gets a further "pred_" prefix until it is new.
func predictionColumns(header, names []string, tasks int) (preds []string, errCol string) {
	taken := map[string]bool{}
	for _, h := range header {
		taken[h] = true
	}
	fresh := func(name string) string {
		for taken[name] {
			name = "pred_" + name
		}
		taken[name] = true
		return name
	}
	for t := range tasks {
		name := "pred_" + strconv.Itoa(t)
		if len(names) == tasks && columnName(names[t]) != "" {
			name = "pred_" + columnName(names[t])
		}
		preds = append(preds, fresh(name))
	}
	return preds, fresh("error")
}

// columnName is a task's name as an identifier that a data frame, SQL or a shell takes without
// quoting: each run of characters other than letters, digits and '_' becomes one '_', and
// the ends are trimmed of '_' (OGB's "measured log solubility in mols per litre" is
// measured_log_solubility_in_mols_per_litre; "logS" stays logS).
func columnName(task string) string {
	var b strings.Builder
	gap := false
	for _, r := range task {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
		} else {
			gap = true
		}
	}
	return strings.Trim(b.String(), "_")
}

// tableWriter writes the rows of predict --input as CSV or JSON lines.
type tableWriter struct {
	format  string
	columns []string // the input's, then the predictions', then the error column
	inputs  int      // how many of the columns are the input's
	csv     *csv.Writer
	w       *bufio.Writer
}

func newTableWriter(w io.Writer, format string, columns []string, inputs int) (*tableWriter, error) {
	t := &tableWriter{format: format, columns: columns, inputs: inputs, w: bufio.NewWriterSize(w, 1<<16)}
	if format == "csv" {
		t.csv = csv.NewWriter(t.w)
		return t, t.csv.Write(columns)
	}
	return t, nil
}

// row writes one row: the input's fields, the predictions (nil when there are none) and the
// error ("" when none).
func (t *tableWriter) row(fields []string, pred []float64, failure string) error {
	preds := len(t.columns) - t.inputs - 1
	if t.format == "csv" {
		rec := slices.Clone(fields)
		for i := range preds {
			cell := ""
			if pred != nil {
				cell = strconv.FormatFloat(pred[i], 'g', -1, 64)
			}
			rec = append(rec, cell)
		}
		return t.csv.Write(append(rec, failure))
	}
	line := []byte{'{'}
	add := func(key string, value any) {
		if len(line) > 1 {
			line = append(line, ',')
		}
		k, _ := json.Marshal(key)
		v, _ := json.Marshal(value)
		line = append(append(append(line, k...), ':'), v...)
	}
	for i, f := range fields {
		add(t.columns[i], f)
	}
	for i := range preds {
		var v any // null without a prediction (or for a value JSON cannot hold)
		if pred != nil && !math.IsNaN(pred[i]) && !math.IsInf(pred[i], 0) {
			v = pred[i]
		}
		add(t.columns[t.inputs+i], v)
	}
	var e any
	if failure != "" {
		e = failure
	}
	add(t.columns[len(t.columns)-1], e)
	_, err := t.w.Write(append(line, '}', '\n'))
	return err
}

func (t *tableWriter) flush() error {
	if t.csv != nil {
		t.csv.Flush()
		if err := t.csv.Error(); err != nil {
			return err
		}
	}
	return t.w.Flush()
}

// predictTable predicts every row of the CSV table input and writes them to output (standard
// output if empty) in format. Rows that cannot be predicted (a SMILES that does not parse, a
// row of another width than the header) are written with their error and reported on
// sio.err; it is an error (exit status 1) when no row could be, or with strict when one could
// not.
func predictTable(p *training.Predictor, src task.Source, input, column, output, format string, strict bool, sio stdio) error {
	var r *csvfile.Reader
	var err error
	if input == "-" {
		r, err = csvfile.New(sio.in, "<stdin>")
	} else {
		r, err = csvfile.Open(input)
	}
	if err != nil {
		return err
	}
	defer r.Close()
	col, err := r.Column(column)
	if err != nil {
		return err
	}
	preds, errCol := predictionColumns(r.Header, src.LabelNames, src.Spec.Tasks)
	columns := slices.Concat(r.Header, preds, []string{errCol})

	var dst io.Writer = sio.out
	if output != "" {
		f, err := atomicfile.Create(output)
		if err != nil {
			return err
		}
		defer f.Abort() // a no-op once committed
		dst = f
	}
	w, err := newTableWriter(dst, format, columns, len(r.Header))
	if err != nil {
		return err
	}
	rows, failed := 0, 0
	progress := &tableProgress{w: sio.err, began: time.Now(), last: time.Now()}
	if input != "-" {
		progress.total = countRows(input)
	}
	var firstFailure string
	var records [][]string
	var lines []int
	var bad []error // per record: a width other than the header's
	flushChunk := func() error {
		ss := make([]string, len(records))
		for i, rec := range records {
			ss[i] = rec[col]
		}
		gs, parseErrs := data.MoleculeGraphs(ss, 0)
		var ok []*graph.Graph
		var at []int
		for i, g := range gs {
			if g != nil {
				ok, at = append(ok, g), append(at, i)
			}
		}
		out, predErrs, err := p.PredictGraphs(ok, 0)
		if err != nil {
			return err
		}
		rowPred := make([][]float64, len(records))
		rowErr := make([]error, len(records))
		if parseErrs != nil {
			copy(rowErr, parseErrs)
		}
		for j, i := range at {
			rowPred[i] = out[j]
			if predErrs != nil {
				rowErr[i] = predErrs[j]
			}
		}
		for i, e := range bad {
			if e != nil {
				rowPred[i], rowErr[i] = nil, e
			}
		}
		for i, rec := range records {
			failure := ""
			if e := rowErr[i]; e != nil {
				failure = fmt.Sprintf("line %d: %v", lines[i], e)
				report := fmt.Sprintf("%s:%d: column %q: %v", r.Name, lines[i], column, e)
				if failed++; failed == 1 {
					firstFailure = report
				}
				if failed <= 10 {
					fmt.Fprintln(sio.err, report)
				}
			}
			if err := w.row(rec, rowPred[i], failure); err != nil {
				return err
			}
		}
		rows += len(records)
		progress.done(rows)
		records, lines, bad = records[:0], lines[:0], bad[:0]
		return nil
	}
	for {
		rec, line, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var width *csvfile.WidthError
		switch {
		case errors.As(err, &width): // written with its fields, as many as the header's, and why
			rec = slices.Concat(width.Record, make([]string, max(0, width.Want-len(width.Record))))[:width.Want]
			bad = append(bad, fmt.Errorf("%d fields, the header has %d", len(width.Record), width.Want))
		case err != nil:
			return err
		default:
			bad = append(bad, nil)
		}
		records, lines = append(records, rec), append(lines, line)
		if len(records) == predictChunk {
			if err := flushChunk(); err != nil {
				return err
			}
		}
	}
	if err := flushChunk(); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	if f, ok := dst.(*atomicfile.File); ok {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	if failed > 0 {
		where := "standard output"
		if output != "" {
			where = output
		}
		msg := fmt.Sprintf("%d of %d rows have no prediction (the %q column of %s says why; the first: %s)", failed, rows, errCol, where, firstFailure)
		if strict || failed == rows {
			return errors.New(msg)
		}
		fmt.Fprintln(sio.err, msg)
	}
	return nil
}
