// Package ablation collects the results of many training runs (the summaries and
// configurations that package training writes) into the paper's ablation tables: the test
// metric at the best validation epoch, as mean ± standard deviation over seeds, per model,
// sampling ratio and PE size (Table 3 and the appendix tables). Only runs that differ in
// nothing but their seed are averaged; runs with other hyperparameters get tables of their
// own, and runs that have not trained their planned epochs are listed apart, not averaged.
package ablation

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

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
	s.Mean, s.Std = stat.PopMeanStdDev(values, nil)
	return s
}

// Format writes the stat as "mean ± std" with digits decimals; a single run has no spread and
// is written "mean (1 seed)".
func (s Stat) Format(digits int) string {
	if s.N == 1 {
		return fmt.Sprintf("%.*f (1 seed)", digits, s.Mean)
	}
	return fmt.Sprintf("%.*f ± %.*f", digits, s.Mean, digits, s.Std)
}

// Row is one cell of an ablation: the runs that differ only in their seed.
type Row struct {
	Dataset       string  `json:"dataset"`
	Model         string  `json:"model"`
	Metric        string  `json:"metric"`
	SamplingRatio float64 `json:"sampling_ratio"`
	PEK           int     `json:"pe_k"`
	// Hyperparameters is the configuration the runs share (their config.json, the seed left
	// out); nil for runs without one, which are grouped by dataset, model, ratio and k alone.
	Hyperparameters map[string]any `json:"hyperparameters,omitempty"`
	Seeds           []int          `json:"seeds"`
	Epochs          []int          `json:"epochs"` // epochs trained, per seed
	Valid           Stat           `json:"val"`
	Test            Stat           `json:"test"`
	Runs            []string       `json:"runs"`
}

// Unfinished is a run left out of the results: it trained fewer epochs than its config.json
// plans (or none).
type Unfinished struct {
	Run     string `json:"run"`
	Epochs  int    `json:"epochs"`
	Planned int    `json:"planned"` // 0 where unknown
}

// Collection is what CollectAll finds under a directory.
type Collection struct {
	// Rows hold the finished runs, grouped into cells, as Collect returns them.
	Rows []Row `json:"rows"`
	// Unfinished lists the runs left out, by path.
	Unfinished []Unfinished `json:"unfinished,omitempty"`
}

// Collect returns the rows of CollectAll(root). It is an error for root to hold no finished run.
func Collect(root string) ([]Row, error) {
	c, err := CollectAll(root)
	if err != nil {
		return nil, err
	}
	if len(c.Rows) == 0 {
		return nil, fmt.Errorf("ablation: no finished run (%s) under %s; %d unfinished", training.SummaryFile, root, len(c.Unfinished))
	}
	return c.Rows, nil
}

// CollectAll reads every run summary (training.SummaryFile) and configuration
// (training.ConfigFile) under root. A run that trained fewer epochs than its configuration
// plans, or none, goes to Unfinished; the others are grouped into rows by dataset and every
// hyperparameter but the seed, so that runs with another batch size or dropout are never
// averaged together. Rows are ordered by dataset, model, other hyperparameters, sampling ratio
// (descending, as in the paper's tables) and PE size. It is an error for root to hold no run
// at all, or two runs of a row with the same seed.
func CollectAll(root string) (*Collection, error) {
	// A row, and the validation and test metrics of its runs.
	type cell struct {
		row         *Row
		key         string // the hyperparameters but ratio and k, for ordering
		valid, test []float64
	}
	byKey := map[string]*cell{}
	c := &Collection{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != training.SummaryFile {
			return err
		}
		run := filepath.Dir(path)
		s, err := training.ReadSummary(run)
		if err != nil {
			return fmt.Errorf("ablation: %w", err)
		}
		config, err := readConfig(run)
		if err != nil {
			return err
		}
		planned := 0
		if e, ok := config["epochs"].(float64); ok {
			planned = int(e)
		}
		if s.BestEpoch == 0 || s.Epochs < planned {
			c.Unfinished = append(c.Unfinished, Unfinished{Run: run, Epochs: s.Epochs, Planned: planned})
			return nil
		}
		delete(config, "seed")
		key := fmt.Sprintf("%s\x00%s\x00%g\x00%d\x00%s", s.Dataset, s.Model, s.SamplingRatio, s.PEK, canonical(config))
		cl := byKey[key]
		if cl == nil {
			cl = &cell{row: &Row{Dataset: s.Dataset, Model: s.Model, Metric: s.Metric, SamplingRatio: s.SamplingRatio, PEK: s.PEK, Hyperparameters: config},
				key: settingsKey(config)}
			byKey[key] = cl
		}
		r := cl.row
		if i := slices.Index(r.Seeds, s.Seed); i >= 0 {
			return fmt.Errorf("ablation: %s and %s are the same cell (%s, %s, ratio %g, k %d, same hyperparameters) with the same seed %d",
				r.Runs[i], run, s.Dataset, s.Model, s.SamplingRatio, s.PEK, s.Seed)
		}
		r.Seeds = append(r.Seeds, s.Seed)
		r.Epochs = append(r.Epochs, s.Epochs)
		r.Runs = append(r.Runs, run)
		cl.valid, cl.test = append(cl.valid, s.BestValid), append(cl.test, s.TestAtBest)
		return nil
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("ablation: %w", err)
		}
		return nil, err
	}
	if len(byKey) == 0 && len(c.Unfinished) == 0 {
		return nil, fmt.Errorf("ablation: no finished run (%s) under %s", training.SummaryFile, root)
	}
	cells := make([]*cell, 0, len(byKey))
	for _, cl := range byKey {
		cl.row.Valid, cl.row.Test = NewStat(cl.valid), NewStat(cl.test)
		cells = append(cells, cl)
	}
	slices.SortFunc(cells, func(x, y *cell) int {
		a, b := x.row, y.row
		if c := cmp.Or(strings.Compare(a.Dataset, b.Dataset), strings.Compare(a.Model, b.Model), strings.Compare(x.key, y.key)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(b.SamplingRatio, a.SamplingRatio), cmp.Compare(a.PEK, b.PEK))
	})
	for _, cl := range cells {
		c.Rows = append(c.Rows, *cl.row)
	}
	return c, nil
}

// readConfig reads a run's training.ConfigFile, or nil if it has none. Runs written before it
// was JSON hold GoMLX's settings listing, one `"/name": (type) value` per line, read as the
// JSON would be (numbers as float64).
func readConfig(run string) (map[string]any, error) {
	path := filepath.Join(run, training.ConfigFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ablation: %w", err)
	}
	var config map[string]any
	if err := json.Unmarshal(raw, &config); err == nil {
		return config, nil
	} else if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"/`)) {
		return nil, fmt.Errorf("ablation: %s: %w", path, err)
	}
	config = map[string]any{}
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ": (")
		typ, value, ok2 := strings.Cut(rest, ") ")
		name, ok3 := strings.CutPrefix(strings.Trim(name, `"`), "/")
		if !ok || !ok2 || !ok3 {
			return nil, fmt.Errorf("ablation: %s:%d: want JSON or `\"/name\": (type) value`", path, i+1)
		}
		var v any = value
		switch typ {
		case "int", "float64", "float32":
			v, err = strconv.ParseFloat(value, 64)
		case "bool":
			v, err = strconv.ParseBool(value)
		}
		if err != nil {
			return nil, fmt.Errorf("ablation: %s:%d: %s value %q: %w", path, i+1, typ, value, err)
		}
		config[name] = v
	}
	return config, nil
}

// axes are the hyperparameters a table lays out (or is named after), not among its settings.
var axes = []string{"model", "sampling_ratio", "pe_k", "seed"}

// canonical encodes a configuration with its keys sorted (encoding/json sorts map keys), or
// "-" for none.
func canonical(config map[string]any) string {
	if config == nil {
		return "-"
	}
	raw, _ := json.Marshal(config) // decoded from JSON: always encodable
	return string(raw)
}

// same reports whether two configuration values, decoded from JSON, are equal.
func same(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// settingsKey is the configuration without the table's axes.
func settingsKey(config map[string]any) string {
	if config == nil {
		return "-"
	}
	rest := maps.Clone(config)
	for _, k := range axes {
		delete(rest, k)
	}
	return canonical(rest)
}

// Setting is a hyperparameter and its value.
type Setting struct {
	Name  string
	Value any // nil where a run's configuration lacks it
}

func (s Setting) String() string {
	if s.Value == nil {
		return s.Name + " unset"
	}
	return fmt.Sprintf("%s = %v", s.Name, s.Value)
}

// Table is one of the paper's ablation tables: for one dataset, model and setting of the
// other hyperparameters, a line per sampling ratio and a column per PE size.
type Table struct {
	Dataset, Model, Metric string
	// Settings are the hyperparameters (other than the ratio, k and seed) whose values differ
	// between the tables of this dataset and model, with this table's values; empty when all
	// runs of the dataset and model share them. NoConfig marks a table of runs without a
	// config.json beside others that have one.
	Settings []Setting
	NoConfig bool
	Ratios   []float64 // in the rows' order
	PEKs     []int     // ascending
	// Cells[i][j] is the row of Ratios[i] and PEKs[j], nil where the grid has no run.
	Cells [][]*Row
}

// Title names the table: dataset, model and settings.
func (t Table) Title() string {
	parts := []string{t.Dataset, t.Model}
	for _, s := range t.Settings {
		parts = append(parts, s.String())
	}
	if t.NoConfig {
		parts = append(parts, "runs without "+training.ConfigFile)
	}
	return strings.Join(parts, ", ")
}

// Tables groups rows, as Collect orders them, into one Table per dataset, model and setting of
// the hyperparameters that differ between rows of that dataset and model.
func Tables(rows []Row) []Table {
	var tables []Table
	for start := 0; start < len(rows); {
		end := start
		for end < len(rows) && rows[end].Dataset == rows[start].Dataset && rows[end].Model == rows[start].Model {
			end++
		}
		family := rows[start:end]
		differ := differing(family)
		first := len(tables)
		var members [][]*Row // the rows of tables[first+i]
		at := map[string]int{}
		for i := range family {
			r := &family[i]
			var settings []Setting
			if r.Hyperparameters != nil {
				for _, name := range differ {
					settings = append(settings, Setting{name, r.Hyperparameters[name]})
				}
			}
			key := fmt.Sprint(r.Hyperparameters == nil, settings)
			j, ok := at[key]
			if !ok {
				j = len(members)
				at[key] = j
				members = append(members, nil)
				tables = append(tables, Table{Dataset: r.Dataset, Model: r.Model, Metric: r.Metric, Settings: settings,
					NoConfig: r.Hyperparameters == nil && len(differ) > 0})
			}
			members[j] = append(members[j], r)
		}
		for j, group := range members {
			t := &tables[first+j]
			for _, r := range group {
				if !slices.Contains(t.PEKs, r.PEK) {
					t.PEKs = append(t.PEKs, r.PEK)
				}
				if !slices.Contains(t.Ratios, r.SamplingRatio) {
					t.Ratios = append(t.Ratios, r.SamplingRatio)
				}
			}
			slices.Sort(t.PEKs)
			slices.SortFunc(t.Ratios, func(a, b float64) int { return cmp.Compare(b, a) })
			t.Cells = make([][]*Row, len(t.Ratios))
			for i := range t.Cells {
				t.Cells[i] = make([]*Row, len(t.PEKs))
			}
			for _, r := range group {
				t.Cells[slices.Index(t.Ratios, r.SamplingRatio)][slices.Index(t.PEKs, r.PEK)] = r
			}
		}
		start = end
	}
	return tables
}

// differing returns, sorted, the hyperparameters other than the axes whose values are not the
// same in every row that has a configuration.
func differing(rows []Row) []string {
	var names []string
	var first map[string]any
	for _, r := range rows {
		if r.Hyperparameters == nil {
			continue
		}
		if first == nil {
			first = r.Hyperparameters
			continue
		}
		for _, m := range []map[string]any{first, r.Hyperparameters} {
			for name := range m {
				if !slices.Contains(axes, name) && !slices.Contains(names, name) && !same(first[name], r.Hyperparameters[name]) {
					names = append(names, name)
				}
			}
		}
	}
	slices.Sort(names)
	return names
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
// best validation epoch as mean ± std over its seeds (a single seed is marked so, and the
// number of seeds is given); then the full list with validation metrics, seeds and epochs.
func Markdown(rows []Row, digits int) string {
	var b strings.Builder
	tables := Tables(rows)
	settings := map[*Row]string{}
	for _, t := range tables {
		seeds := map[int]bool{}
		for _, line := range t.Cells {
			for _, r := range line {
				if r != nil {
					seeds[r.Test.N] = true
					settings[r] = strings.TrimPrefix(t.Title(), t.Dataset+", "+t.Model)
				}
			}
		}
		spread := "mean ± std over each cell's n seeds"
		if len(seeds) == 1 {
			for n := range seeds {
				spread = fmt.Sprintf("mean ± std over %d seeds", n)
				if n == 1 {
					spread = "one seed: no spread"
				}
			}
		}
		fmt.Fprintf(&b, "**%s** — test %s at the best validation epoch (%s)\n\n| sampling ratio |", t.Title(), t.Metric, spread)
		for _, k := range t.PEKs {
			fmt.Fprintf(&b, " %s |", PEName(k))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(t.PEKs)) + "\n")
		for i, p := range t.Ratios {
			fmt.Fprintf(&b, "| %s |", RatioName(p))
			for _, r := range t.Cells[i] {
				switch {
				case r == nil:
					b.WriteString(" — |")
				case len(seeds) > 1 && r.Test.N > 1:
					fmt.Fprintf(&b, " %s (n = %d) |", r.Test.Format(digits), r.Test.N)
				default:
					fmt.Fprintf(&b, " %s |", r.Test.Format(digits))
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	withSettings := false
	for _, t := range tables {
		withSettings = withSettings || len(t.Settings) > 0 || t.NoConfig
	}
	if withSettings {
		b.WriteString("| dataset | model | settings | sampling ratio | PE k | val | test | seeds | epochs |\n|---|---|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| dataset | model | sampling ratio | PE k | val | test | seeds | epochs |\n|---|---|---|---|---|---|---|---|\n")
	}
	for i := range rows {
		r := &rows[i]
		fmt.Fprintf(&b, "| %s | %s |", r.Dataset, r.Model)
		if withSettings {
			fmt.Fprintf(&b, " %s |", strings.TrimPrefix(settings[r], ", "))
		}
		fmt.Fprintf(&b, " %s | %d | %s | %s | %s | %s |\n", RatioName(r.SamplingRatio), r.PEK,
			r.Valid.Format(digits), r.Test.Format(digits), joinInts(r.Seeds), joinInts(r.Epochs))
	}
	return b.String()
}

// Markdown renders the rows as the function Markdown does, then lists the runs left out as
// unfinished ("run X: 42 of 100 epochs, not included").
func (c *Collection) Markdown(digits int) string {
	var b strings.Builder
	if len(c.Rows) > 0 {
		b.WriteString(Markdown(c.Rows, digits))
	} else {
		b.WriteString("No finished run.\n")
	}
	if len(c.Unfinished) > 0 {
		b.WriteString("\nUnfinished runs, not in the tables:\n\n")
		for _, u := range c.Unfinished {
			planned := "?"
			if u.Planned > 0 {
				planned = strconv.Itoa(u.Planned)
			}
			fmt.Fprintf(&b, "- run %s: %d of %s epochs, not included\n", u.Run, u.Epochs, planned)
		}
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
