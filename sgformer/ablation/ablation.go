// Package ablation collects the results of many training runs (the summaries that package
// training writes) into the paper's ablation tables: the test metric at the best validation
// epoch, as mean ± standard deviation over seeds, per model, sampling ratio and PE size
// (Table 3 and the appendix tables).
package ablation

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sgformer/sgformer/sgformer/training"
)

// Stat is a mean and standard deviation over N runs. Std is the population standard
// deviation (NumPy's default, ddof = 0), zero for a single run.
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	N    int     `json:"n"`
}

// NewStat summarises values.
func NewStat(values []float64) Stat {
	s := Stat{N: len(values)}
	if s.N == 0 {
		return Stat{Mean: math.NaN(), Std: math.NaN()}
	}
	for _, v := range values {
		s.Mean += v / float64(s.N)
	}
	for _, v := range values {
		s.Std += (v - s.Mean) * (v - s.Mean) / float64(s.N)
	}
	s.Std = math.Sqrt(s.Std)
	return s
}

// Format writes the stat as "mean ± std" with digits decimals.
func (s Stat) Format(digits int) string {
	return fmt.Sprintf("%.*f ± %.*f", digits, s.Mean, digits, s.Std)
}

// Row is one cell of an ablation: the runs that differ only in their seed.
type Row struct {
	Dataset       string   `json:"dataset"`
	Model         string   `json:"model"`
	Metric        string   `json:"metric"`
	SamplingRatio float64  `json:"sampling_ratio"`
	PEK           int      `json:"pe_k"`
	Seeds         []int    `json:"seeds"`
	Epochs        []int    `json:"epochs"` // epochs trained, per seed
	Valid         Stat     `json:"val"`
	Test          Stat     `json:"test"`
	Runs          []string `json:"runs"`
}

// Collect reads every run summary (training.SummaryFile) under root and groups the runs into
// rows by dataset, model, sampling ratio and PE size, ordered by those (ratios descending, as
// in the paper's tables). It is an error for root to hold no run, or two runs of a row with
// the same seed.
func Collect(root string) ([]Row, error) {
	// A row, and the validation and test metrics of its runs.
	type cell struct {
		row         *Row
		valid, test []float64
	}
	byKey := map[string]*cell{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != training.SummaryFile {
			return err
		}
		s, err := training.ReadSummary(filepath.Dir(path))
		if err != nil {
			return fmt.Errorf("ablation: %w", err)
		}
		if s.BestEpoch == 0 {
			return nil // no epoch finished yet
		}
		key := fmt.Sprintf("%s\x00%s\x00%g\x00%d", s.Dataset, s.Model, s.SamplingRatio, s.PEK)
		c := byKey[key]
		if c == nil {
			c = &cell{row: &Row{Dataset: s.Dataset, Model: s.Model, Metric: s.Metric, SamplingRatio: s.SamplingRatio, PEK: s.PEK}}
			byKey[key] = c
		}
		r := c.row
		run := filepath.Dir(path)
		if i := slices.Index(r.Seeds, s.Seed); i >= 0 {
			return fmt.Errorf("ablation: %s and %s are the same cell (%s, %s, ratio %g, k %d) with the same seed %d",
				r.Runs[i], run, s.Dataset, s.Model, s.SamplingRatio, s.PEK, s.Seed)
		}
		r.Seeds = append(r.Seeds, s.Seed)
		r.Epochs = append(r.Epochs, s.Epochs)
		r.Runs = append(r.Runs, run)
		c.valid, c.test = append(c.valid, s.BestValid), append(c.test, s.TestAtBest)
		return nil
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("ablation: %w", err)
		}
		return nil, err
	}
	if len(byKey) == 0 {
		return nil, fmt.Errorf("ablation: no finished run (%s) under %s", training.SummaryFile, root)
	}
	rows := make([]Row, 0, len(byKey))
	for _, c := range byKey {
		c.row.Valid, c.row.Test = NewStat(c.valid), NewStat(c.test)
		rows = append(rows, *c.row)
	}
	slices.SortFunc(rows, func(a, b Row) int {
		if c := strings.Compare(a.Dataset, b.Dataset); c != 0 {
			return c
		}
		if c := strings.Compare(a.Model, b.Model); c != 0 {
			return c
		}
		if a.SamplingRatio != b.SamplingRatio {
			if a.SamplingRatio > b.SamplingRatio {
				return -1
			}
			return 1
		}
		return a.PEK - b.PEK
	})
	return rows, nil
}

// Table is one of the paper's ablation tables: for one dataset and model, a line per sampling
// ratio and a column per PE size.
type Table struct {
	Dataset, Model, Metric string
	Ratios                 []float64 // in the rows' order
	PEKs                   []int     // ascending
	// Cells[i][j] is the row of Ratios[i] and PEKs[j], nil where the grid has no run.
	Cells [][]*Row
}

// Tables groups rows, as Collect orders them, into one Table per dataset and model.
func Tables(rows []Row) []Table {
	var tables []Table
	for start := 0; start < len(rows); {
		end := start
		for end < len(rows) && rows[end].Dataset == rows[start].Dataset && rows[end].Model == rows[start].Model {
			end++
		}
		group := rows[start:end]
		t := Table{Dataset: group[0].Dataset, Model: group[0].Model, Metric: group[0].Metric}
		for _, r := range group {
			if !slices.Contains(t.PEKs, r.PEK) {
				t.PEKs = append(t.PEKs, r.PEK)
			}
			if !slices.Contains(t.Ratios, r.SamplingRatio) {
				t.Ratios = append(t.Ratios, r.SamplingRatio)
			}
		}
		slices.Sort(t.PEKs)
		t.Cells = make([][]*Row, len(t.Ratios))
		for i := range t.Cells {
			t.Cells[i] = make([]*Row, len(t.PEKs))
		}
		for i := range group {
			r := &group[i]
			t.Cells[slices.Index(t.Ratios, r.SamplingRatio)][slices.Index(t.PEKs, r.PEK)] = r
		}
		tables = append(tables, t)
		start = end
	}
	return tables
}

// PEName names a PE size as the paper's tables do: "no PE" for k = 0, else "PE k = K".
func PEName(k int) string {
	if k == 0 {
		return "no PE"
	}
	return fmt.Sprintf("PE k = %d", k)
}

// RatioName names a sampling ratio: "1 (full bag)" or the ratio.
func RatioName(p float64) string {
	if p == 1 {
		return "1 (full bag)"
	}
	return fmt.Sprintf("%g", p)
}

// Markdown renders rows as the paper's tables (see Tables), each cell the test metric at the
// best validation epoch as mean ± std over seeds; then the full list with validation metrics,
// seeds and epochs.
func Markdown(rows []Row, digits int) string {
	var b strings.Builder
	for _, t := range Tables(rows) {
		fmt.Fprintf(&b, "**%s, %s** — test %s at the best validation epoch (mean ± std over seeds)\n\n| sampling ratio |", t.Dataset, t.Model, t.Metric)
		for _, k := range t.PEKs {
			fmt.Fprintf(&b, " %s |", PEName(k))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(t.PEKs)) + "\n")
		for i, p := range t.Ratios {
			fmt.Fprintf(&b, "| %s |", RatioName(p))
			for _, r := range t.Cells[i] {
				if r != nil {
					fmt.Fprintf(&b, " %s |", r.Test.Format(digits))
				} else {
					b.WriteString(" — |")
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("| dataset | model | sampling ratio | PE k | val | test | seeds | epochs |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", r.Dataset, r.Model, RatioName(r.SamplingRatio), r.PEK,
			r.Valid.Format(digits), r.Test.Format(digits), joinInts(r.Seeds), joinInts(r.Epochs))
	}
	return b.String()
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
