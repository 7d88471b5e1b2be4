package main

import (
	"embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/internal/report"
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
//	thousands X          X's integer part (X an int or a float64) with commas between groups
//	                     of three digits
//	join FORMAT XS       XS (strings or numbers) each written with FORMAT, separated by ", "
//	last XS              the last element of the list XS; an error where XS is empty
var rowFuncs = template.FuncMap{"metric": report.MetricName, "duration": duration, "thousands": thousandsOf, "join": join, "last": last}

// recordFuncs are the functions of the templates, over recs, the records of file. A PART
// argument, and the WHAT of records and values, names a part or a quantity, or, ending in "*",
// every one that begins with what precedes it ("before *", "BenchmarkMatMul/*"); latest, need
// and maybe take WHAT as it is. Beyond them, the templates use text/template's builtins
// (printf, index, slice, len, eq, and, or, not).
//
// The records:
//
//	file                  the path of the records
//	provenance [PART]     the commands that measured them (PART's), as the documents cite them
//	parts                 the names of the parts, in order
//	records PART WHAT     the records of PART's WHAT, with their labels
//	values PART WHAT UNIT the values of PART's WHAT in UNIT, in order (none is false in an if)
//	value PART WHAT UNIT  the first of them; an error where there is none
//	latest PART WHAT      the records of PART's WHAT that the latest command measuring it
//	                      measured (none where there are none)
//	need R WHAT           the record of WHAT that R's command measured in R's part; an
//	                      error where there is none
//	maybe R WHAT          the same, or nil (false in an if or with) where there is none:
//	                      {{with maybe R WHAT}}…{{.Value}}…{{end}} writes an absent record's
//	                      nothing and a present one's value, 0 too
//	measured R WHATS      the records of those of WHATS (a list) that R's command measured in
//	                      R's part, the first of each, in WHATS' order
//	unmeasured R WHATS    those of WHATS that it did not measure
//	fail FORMAT ARGS…     an error, naming the file, that stops the render
//
// Numbers (XS a list of them):
//
//	add X Y, sub X Y      X+Y, X−Y
//	mul X Y, div X Y      X·Y, X/Y
//	divAll XS Y           each of XS divided by Y
//	sum XS                the sum of XS, 0 for none
//	min XS, max XS        the smallest of XS, the largest; an error where XS is empty
//	median XS             the median of XS; an error where XS is empty
//	gib KB                kilobytes in GiB
//
// Text:
//
//	list STRINGS…         the strings, to range over
//	fields S              S's words
//	trimPrefix PREFIX S   S without PREFIX
//	minSec S              S seconds in minutes and seconds ("3 min 05 s")
//	medianRange FORMAT XS the median of XS and, for more than one, their range in brackets
//	columns FORMAT XS…    the rows of the columns XS: the row's number from 1, then each
//	                      column's value written with FORMAT, "—" past its end
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
		"parts": recs.Parts,
		"records": func(part, what string) record.Set {
			return recs.Where(func(r record.Record) bool { return matches(r.Part, part) && matches(r.What, what) })
		},
		"values": values,
		"value": func(part, what, unit string) (float64, error) {
			xs := values(part, what, unit)
			if len(xs) == 0 {
				return 0, fmt.Errorf("%s: part %q has no %q in %q", file, part, what, unit)
			}
			return xs[0], nil
		},
		"latest": func(part, what string) record.Set {
			return recs.Latest(func(r record.Record) bool { return matches(r.Part, part) && r.What == what })
		},
		"need": func(r record.Record, what string) (record.Record, error) {
			if x, ok := beside(recs, r, what); ok {
				return x, nil
			}
			return record.Record{}, fmt.Errorf("%s: %s of %s has no %q", file, r.Part, r.Date, what)
		},
		"maybe": func(r record.Record, what string) *record.Record {
			if x, ok := beside(recs, r, what); ok {
				return &x
			}
			return nil
		},
		"measured": func(r record.Record, whats []string) record.Set {
			var found record.Set
			for _, what := range whats {
				if x, ok := beside(recs, r, what); ok {
					found = append(found, x)
				}
			}
			return found
		},
		"unmeasured": func(r record.Record, whats []string) []string {
			var missing []string
			for _, what := range whats {
				if _, ok := beside(recs, r, what); !ok {
					missing = append(missing, what)
				}
			}
			return missing
		},
		"fail": func(format string, args ...any) (string, error) {
			return "", fmt.Errorf("%s: %s", file, fmt.Sprintf(format, args...))
		},
		"add": func(x, y float64) float64 { return x + y },
		"sub": func(x, y float64) float64 { return x - y },
		"mul": func(x, y float64) float64 { return x * y },
		"div": func(x, y float64) float64 { return x / y },
		"divAll": func(xs []float64, y float64) []float64 {
			var q []float64
			for _, x := range xs {
				q = append(q, x/y)
			}
			return q
		},
		"sum": func(xs []float64) float64 {
			total := 0.0
			for _, x := range xs {
				total += x
			}
			return total
		},
		"min":        nonempty("smallest", slices.Min[[]float64]),
		"max":        nonempty("largest", slices.Max[[]float64]),
		"median":     nonempty("median", gpuresult.Median),
		"gib":        func(kb float64) float64 { return kb / (1 << 20) },
		"list":       func(s ...string) []string { return s },
		"fields":     strings.Fields,
		"trimPrefix": func(prefix, s string) string { return strings.TrimPrefix(s, prefix) },
		"minSec":     minSec,
		"medianRange": func(f string, xs []float64) (string, error) {
			if len(xs) == 0 {
				return "", fmt.Errorf("%s: the median and range of no values", file)
			}
			return medianRange(f, xs), nil
		},
		"columns": columns,
	}
}

// matches says whether name is pattern, or, where pattern ends in "*", begins with what
// precedes it.
func matches(name, pattern string) bool {
	prefix, ok := strings.CutSuffix(pattern, "*")
	return name == pattern || (ok && strings.HasPrefix(name, prefix))
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

// medianRange writes the median of xs (at least one) and, for more than one, their range in
// brackets, each with format f.
func medianRange(f string, xs []float64) string {
	if len(xs) == 1 {
		return fmt.Sprintf(f, xs[0])
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", gpuresult.Median(xs), slices.Min(xs), slices.Max(xs))
}

// thousandsOf is thousands of x's integer part, x an int or a float64 (a count the Go side
// computes, or a record's value).
func thousandsOf(x any) (string, error) {
	switch x := x.(type) {
	case int:
		return report.Thousands(x), nil
	case float64:
		return report.Thousands(int(x)), nil
	}
	return "", fmt.Errorf("thousands of %T, not an int or a float64", x)
}

// join writes each element of the slice xs with format f, separated by ", ".
func join(f string, xs any) (string, error) {
	v := reflect.ValueOf(xs)
	if v.Kind() != reflect.Slice {
		return "", fmt.Errorf("join of %T, not a slice", xs)
	}
	s := make([]string, v.Len())
	for i := range s {
		s[i] = fmt.Sprintf(f, v.Index(i).Interface())
	}
	return strings.Join(s, ", "), nil
}

// last is the last element of the slice xs.
func last(xs any) (any, error) {
	v := reflect.ValueOf(xs)
	if v.Kind() != reflect.Slice || v.Len() == 0 {
		return nil, fmt.Errorf("last of %T %v, not a slice with elements", xs, xs)
	}
	return v.Index(v.Len() - 1).Interface(), nil
}

// provenance is the contexts of the commands that measured recs, as the documents cite them.
func provenance(recs record.Set) string {
	var cs []string
	for _, c := range recs.Contexts() {
		cs = append(cs, c.String())
	}
	return strings.Join(cs, "; ")
}

// minSec writes seconds as minutes and seconds.
func minSec(s float64) string {
	r := int(math.Round(s))
	return fmt.Sprintf("%d min %02d s", r/60, r%60)
}

// columns lays the columns cols out in rows: each the row's number from 1, then each column's
// value written with format f, "—" where the column is shorter.
func columns(f string, cols ...[]float64) [][]string {
	var rows [][]string
	for i := 0; slices.ContainsFunc(cols, func(c []float64) bool { return i < len(c) }); i++ {
		row := []string{strconv.Itoa(i + 1)}
		for _, c := range cols {
			if i < len(c) {
				row = append(row, fmt.Sprintf(f, c[i]))
			} else {
				row = append(row, "—")
			}
		}
		rows = append(rows, row)
	}
	return rows
}
