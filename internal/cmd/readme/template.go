package main

import (
	"embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
)

// templateFiles are the layouts of the sections: templates/NAME.md.tmpl renders the section
// NAME, and templates/_NAME.md.tmpl is a layout several sections share.
//
//go:embed templates/*.md.tmpl
var templateFiles embed.FS

// templates are templateFiles parsed once into one set, so that a {{define}} of one file serves
// every other. A template's dot is what the Go side computes for it (nil for a layout of records
// alone); its functions are recordFuncs' over the section's records, and rowFuncs'.
var templates = template.Must(template.New("").Option("missingkey=error").Funcs(rowFuncs).Funcs(recordFuncs("", nil)).
	ParseFS(templateFiles, "templates/*.md.tmpl"))

// templateSection is the section name, rendered by templates/NAME.md.tmpl from the records of
// files (paths under the project root; a folder stands for its *.jsonl files), read in order
// into one set; the template's function file is the first.
func templateSection(name string, files ...string) func(root string) (string, error) {
	return func(root string) (string, error) {
		var recs record.Set
		for _, f := range files {
			path := filepath.Join(root, f)
			paths := []string{path}
			if info, err := os.Stat(path); err == nil && info.IsDir() {
				paths, _ = filepath.Glob(filepath.Join(path, "*.jsonl")) // the pattern is valid
				if len(paths) == 0 {
					return "", fmt.Errorf("no records (*.jsonl) in %s", f)
				}
			}
			for _, path := range paths {
				s, err := record.Read(path)
				if err != nil {
					return "", err
				}
				recs = append(recs, s...)
			}
		}
		return renderTemplate(name, files[0], recs, nil)
	}
}

// renderTemplate renders templates/NAME.md.tmpl (name "_paper" for _paper.md.tmpl) with data as
// its dot and the functions of recordFuncs over recs, the records of file (a file or a folder of
// them; none for a layout of what the Go side computes alone).
func renderTemplate(name, file string, recs record.Set, data any) (string, error) {
	t, err := templates.Clone()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = t.Funcs(recordFuncs(file, recs)).ExecuteTemplate(&b, name+".md.tmpl", data)
	return b.String(), err
}

// rowFuncs are the functions of the templates over what the Go side computes, beside
// recordFuncs' (which are over records):
//
//	metric NAME          how the documents write a metric ("rmse" is "RMSE")
//	duration S           S seconds in minutes, or hours and minutes from an hour on
//	commas N             the integer N with commas between groups of three digits
//	joinStrings XS SEP   the strings XS separated by SEP
var rowFuncs = template.FuncMap{"metric": metricName, "duration": duration, "commas": thousands, "joinStrings": strings.Join}

// recordFuncs are the functions of the templates, over recs, the records of file. A PART or
// WHAT argument names a part or a quantity, or, ending in "*", every one that begins with what
// precedes it ("before *", "BenchmarkMatMul/*").
//
//	file                  the path of the records
//	provenance [PART]     the commands that measured them (PART's), as the documents cite them
//	parts                 the names of the parts, in order
//	records PART WHAT     the records of PART's WHAT, with their labels
//	value PART WHAT UNIT  the first value of PART's WHAT in UNIT; an error where there is none
//	values PART WHAT UNIT its values, in order
//	has PART WHAT UNIT    whether it has one
//	sum PART WHAT UNIT    the sum of its values, 0 where there is none (counts that leave out zeros)
//	fail FORMAT ARGS…     an error, naming the file, that stops the render
//	list STRINGS…         the strings, to range over
//	trimPrefix PREFIX S   S without PREFIX
//	add X Y, sub X Y      X+Y, X−Y
//	div X Y, mul X Y      X/Y, X·Y
//	min XS, max XS        the smallest of XS, the largest; an error where XS is empty
//	median XS             the median of XS; an error where XS is empty
//	divAll XS Y           each of XS divided by Y
//	gib KB                kilobytes in GiB
//	int X                 X's integer part
//	thousands X           X's integer part with commas between groups of three digits
//	minutes S             S seconds in minutes, or hours from 100 minutes on ("5.0 min", "1.7 h")
//	minSec S              S seconds in minutes and seconds ("3 min 05 s")
//	fields S              S's words
//	join FORMAT XS        XS each written with FORMAT, separated by ", "
//	medianRange FORMAT XS the median of XS and, for more than one, their range in brackets
//	cell FORMAT XS N      the Nth of XS (from 1) written with FORMAT, or "—" where XS is shorter
//	seq N                 1, 2, …, N
//	longest XS…           the length of the longest of XS
//	latest PART WHAT      the records of PART's WHAT that the latest command measuring it
//	                      measured (none where there are none)
//	need R WHAT           the record of WHAT that R's command measured in R's part; an
//	                      error where there is none
//	maybe R WHAT          the same, or a zero record where there is none
func recordFuncs(file string, recs record.Set) template.FuncMap {
	values := func(part, what, unit string) []float64 {
		var xs []float64
		for _, r := range recs {
			if matches(r.Part, part) && matches(r.What, what) && r.Unit == unit {
				xs = append(xs, r.Value)
			}
		}
		return xs
	}
	// nonempty is f, the quantity name of values, failing on none.
	nonempty := func(name string, f func([]float64) float64) func([]float64) (float64, error) {
		return func(xs []float64) (float64, error) {
			if len(xs) == 0 {
				return 0, fmt.Errorf("%s: the %s of no values", file, name)
			}
			return f(xs), nil
		}
	}
	return template.FuncMap{
		"file": func() string { return file },
		"provenance": func(part ...string) string {
			if len(part) == 0 {
				return provenance(recs)
			}
			return provenance(recs.Where(func(r record.Record) bool { return matches(r.Part, part[0]) }))
		},
		"parts":  recs.Parts,
		"latest": func(part, what string) record.Set { return latest(recs, part, what) },
		"need": func(r record.Record, what string) (record.Record, error) {
			if x, ok := beside(recs, r, what); ok {
				return x, nil
			}
			return record.Record{}, fmt.Errorf("%s: %s of %s has no %q", file, r.Part, r.Date, what)
		},
		"maybe": func(r record.Record, what string) record.Record {
			x, _ := beside(recs, r, what)
			return x
		},
		"records": func(part, what string) record.Set {
			return recs.Where(func(r record.Record) bool { return matches(r.Part, part) && matches(r.What, what) })
		},
		"value": func(part, what, unit string) (float64, error) {
			xs := values(part, what, unit)
			if len(xs) == 0 {
				return 0, fmt.Errorf("%s: part %q has no %q in %q", file, part, what, unit)
			}
			return xs[0], nil
		},
		"values": values,
		"has":    func(part, what, unit string) bool { return len(values(part, what, unit)) > 0 },
		"sum": func(part, what, unit string) float64 {
			total := 0.0
			for _, x := range values(part, what, unit) {
				total += x
			}
			return total
		},
		"fail": func(format string, args ...any) (string, error) {
			return "", fmt.Errorf("%s: %s", file, fmt.Sprintf(format, args...))
		},
		"list":       func(s ...string) []string { return s },
		"trimPrefix": func(prefix, s string) string { return strings.TrimPrefix(s, prefix) },
		"add":        func(x, y float64) float64 { return x + y },
		"sub":        func(x, y float64) float64 { return x - y },
		"div":        func(x, y float64) float64 { return x / y },
		"mul":        func(x, y float64) float64 { return x * y },
		"min":        nonempty("smallest", slices.Min[[]float64]),
		"max":        nonempty("largest", slices.Max[[]float64]),
		"median":     nonempty("median", gpuresult.Median),
		"divAll": func(xs []float64, y float64) []float64 {
			var q []float64
			for _, x := range xs {
				q = append(q, x/y)
			}
			return q
		},
		"gib":       func(kb float64) float64 { return kb / (1 << 20) },
		"int":       func(x float64) int { return int(x) },
		"thousands": func(x float64) string { return thousands(int(x)) },
		"minutes":   minutes,
		"minSec":    minSec,
		"fields":    strings.Fields,
		"join": func(format string, xs []float64) string {
			var s []string
			for _, x := range xs {
				s = append(s, fmt.Sprintf(format, x))
			}
			return strings.Join(s, ", ")
		},
		"medianRange": medianRange,
		"cell": func(format string, xs []float64, n int) string {
			if n < 1 || n > len(xs) {
				return "—"
			}
			return fmt.Sprintf(format, xs[n-1])
		},
		"seq": func(n int) []int {
			var s []int
			for i := 1; i <= n; i++ {
				s = append(s, i)
			}
			return s
		},
		"longest": func(xss ...[]float64) int {
			n := 0
			for _, xs := range xss {
				n = max(n, len(xs))
			}
			return n
		},
	}
}

// matches says whether name is pattern, or, where pattern ends in "*", begins with what
// precedes it.
func matches(name, pattern string) bool {
	prefix, ok := strings.CutSuffix(pattern, "*")
	return name == pattern || (ok && strings.HasPrefix(name, prefix))
}

// latest is the records of part's what (as matches reads part) that the latest command measuring
// it measured, in order.
func latest(recs record.Set, part, what string) record.Set {
	of := recs.Where(func(r record.Record) bool { return matches(r.Part, part) && r.What == what })
	if len(of) == 0 {
		return nil
	}
	last := of[len(of)-1].Context
	return of.Where(func(r record.Record) bool { return r.Context == last })
}

// beside is the first record of what that r's command measured in r's part, if there is one.
func beside(recs record.Set, r record.Record, what string) (record.Record, bool) {
	for _, x := range recs {
		if x.Part == r.Part && x.Context == r.Context && x.What == what {
			return x, true
		}
	}
	return record.Record{}, false
}

// medianRange writes the median of xs and, for more than one, their range in brackets, each with
// format f; no xs is an error.
func medianRange(f string, xs []float64) (string, error) {
	switch len(xs) {
	case 0:
		return "", fmt.Errorf("no values")
	case 1:
		return fmt.Sprintf(f, xs[0]), nil
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", gpuresult.Median(xs), slices.Min(xs), slices.Max(xs)), nil
}

// provenance is the contexts of the commands that measured recs, as the documents cite them.
func provenance(recs record.Set) string {
	var cs []string
	for _, c := range recs.Contexts() {
		cs = append(cs, c.String())
	}
	return strings.Join(cs, "; ")
}

// minutes writes seconds as minutes, or hours from 100 minutes on.
func minutes(s float64) string {
	if s >= 6000 {
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.1f min", s/60)
}

// minSec writes seconds as minutes and seconds.
func minSec(s float64) string {
	r := int(math.Round(s))
	return fmt.Sprintf("%d min %02d s", r/60, r%60)
}
