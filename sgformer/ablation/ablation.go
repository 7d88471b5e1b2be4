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

// Markdown renders rows as the paper's tables: for each dataset and model, one line per
// sampling ratio and one column per PE size (k = 0 is "no PE"), each cell the test metric at
// the best validation epoch as mean ± std over seeds; then the full list with validation
// metrics, seeds and epochs.
func Markdown(rows []Row, digits int) string {
	var b strings.Builder
	for start := 0; start < len(rows); {
		end := start
		for end < len(rows) && rows[end].Dataset == rows[start].Dataset && rows[end].Model == rows[start].Model {
			end++
		}
		group := rows[start:end]
		var ks []int
		var ratios []float64
		cell := map[string]Stat{}
		for _, r := range group {
			if !slices.Contains(ks, r.PEK) {
				ks = append(ks, r.PEK)
			}
			if !slices.Contains(ratios, r.SamplingRatio) {
				ratios = append(ratios, r.SamplingRatio)
			}
			cell[fmt.Sprintf("%g/%d", r.SamplingRatio, r.PEK)] = r.Test
		}
		slices.Sort(ks)
		fmt.Fprintf(&b, "**%s, %s** — test %s at the best validation epoch (mean ± std over seeds)\n\n| sampling ratio |", group[0].Dataset, group[0].Model, group[0].Metric)
		for _, k := range ks {
			if k == 0 {
				b.WriteString(" no PE |")
			} else {
				fmt.Fprintf(&b, " PE k = %d |", k)
			}
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(ks)) + "\n")
		for _, p := range ratios {
			fmt.Fprintf(&b, "| %s |", ratioLabel(p))
			for _, k := range ks {
				if s, ok := cell[fmt.Sprintf("%g/%d", p, k)]; ok {
					fmt.Fprintf(&b, " %s |", s.Format(digits))
				} else {
					b.WriteString(" — |")
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		start = end
	}
	b.WriteString("| dataset | model | sampling ratio | PE k | val | test | seeds | epochs |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", r.Dataset, r.Model, ratioLabel(r.SamplingRatio), r.PEK,
			r.Valid.Format(digits), r.Test.Format(digits), joinInts(r.Seeds), joinInts(r.Epochs))
	}
	return b.String()
}

func ratioLabel(p float64) string {
	if p == 1 {
		return "1 (full bag)"
	}
	return fmt.Sprintf("%g", p)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
