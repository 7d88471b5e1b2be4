package report

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The paper's tables (shared/paper, subgraphormer-icml2024.tex) are data, paper.csv: the rows
// of the models this project implements, a line per cell in the order of the table's columns,
// each value as the LaTeX writes it ("-" for a cell it leaves empty). TestPaperTables reads the
// LaTeX again and compares every row, so that a typo fails.
//
//go:embed paper.csv
var paperCSV string

// A Variant is a row of the paper's tables as this project trains it: the recipe of the cell's
// dataset and sampling ratio (recipe.At, the paper's best hyperparameters for
// Subgraphormer + PE) with changes. The paper gives no hyperparameters for the other rows, so
// they take the recipe's.
type Variant struct {
	name    string // as the paper names the row
	folder  string // the prefix of its runs' folders (scripts/repro.sh)
	changes map[string]any
}

// The rows of the paper's tables that this project implements; SubgraphormerPE's are the
// recipes'.
var (
	gin             = Variant{"GIN", "gin", map[string]any{model.ParamModel: model.GIN, model.ParamPEK: 0, training.ParamSamplingRatio: 1.0}}
	sswlPlus        = Variant{"GNN-SSWL+", "sswlplus", map[string]any{model.ParamModel: model.SSWLPlus, model.ParamPEK: 0}}
	subgraphormer   = Variant{"Subgraphormer", "subgraphormer", map[string]any{model.ParamPEK: 0}}
	SubgraphormerPE = Variant{"Subgraphormer + PE", "subgraphormer-pe", nil}
	concatPE        = Variant{"Subgraphormer + concatenation PE", "subgraphormer-concat", map[string]any{model.ParamPEMode: string(preprocess.Concat)}}

	// variants are the rows paper.csv names by their folder.
	variants = []Variant{gin, sswlPlus, subgraphormer, SubgraphormerPE, concatPE}
)

// benchName is the variant's name in BenchmarkRecipeStep: the recipe's for the rows on product
// graphs but GNN-SSWL+, which it measures apart where the run-time tables compare it.
func (v Variant) benchName() string {
	switch v.folder {
	case gin.folder:
		return model.GIN
	case sswlPlus.folder:
		return model.SSWLPlus
	}
	return "recipe"
}

// cell is the variant's cell on dataset at ratio, without the paper's value.
func (v Variant) cell(dataset string, ratio float64) Cell {
	return Cell{Model: v.name, Folder: v.folder, Dataset: dataset, Ratio: ratio, changes: v.changes, bench: v.benchName()}
}

// A Value is a cell of the paper as its LaTeX writes it: mean and std ("" for a cell the paper
// leaves empty, "-").
type Value struct{ Mean, Std string }

// String is the value as the paper writes it, "mean ± std".
func (v Value) String() string { return v.Mean + " ± " + v.Std }

// dash is an empty cell.
var dash = Value{}

// A Cell is one cell of a table of the paper: a model on a dataset at a sampling ratio, the
// paper's mean ± std.
type Cell struct {
	Model, Folder string // the row's name in the paper, and its runs' folder prefix
	Dataset       string
	Ratio         float64
	Value         Value // as the paper writes it
	Mean, Std     float64
	changes       map[string]any // to the recipe, for the row (Variant.changes)
	bench         string         // the row's name in BenchmarkRecipeStep (Variant.benchName)
}

// dir is the folder of the cell's runs in its table's folder.
func (c Cell) dir() string { return fmt.Sprintf("%s_ratio-%g", c.Folder, c.Ratio) }

// A TableRow is a row of a table: its name in the LaTeX (texRows' key: the first column, and
// "@ R%" when a column gives the sampling ratio), the parameter count the run-time tables give
// ("293k", "" elsewhere), and its cells, one per value column (value dash where it is empty).
type TableRow struct {
	tex, params string
	Cells       []Cell
}

// A Table is a table of the paper: its LaTeX label and the rows of the models this project
// implements.
type Table struct {
	Label string
	rows  []TableRow
}

// Cells returns the table's non-empty cells.
func (t Table) Cells() []Cell {
	var out []Cell
	for _, r := range t.rows {
		for _, c := range r.Cells {
			if c.Value != dash {
				out = append(out, c)
			}
		}
	}
	return out
}

// Cell returns the table's cell of the row v on dataset at ratio; it panics when there is none,
// a mistake in the caller's tables.
func (t Table) Cell(dataset string, v Variant, ratio float64) Cell {
	for _, c := range t.Cells() {
		if c.Dataset == dataset && c.Folder == v.folder && c.Ratio == ratio {
			return c
		}
	}
	panic(fmt.Sprintf("%s has no cell %s on %s at %g", t.Label, v.name, dataset, ratio))
}

// Row is v's row of the table, one with a row per variant (the run-time tables); it panics
// where there is none.
func (t Table) Row(v Variant) TableRow {
	for _, r := range t.rows {
		if r.Cells[0].Folder == v.folder {
			return r
		}
	}
	panic(fmt.Sprintf("%s has no row %s", t.Label, v.name))
}

// readPaper reads the paper's tables from CSV (paperHeader), in their order; an error names the
// line.
func readPaper(r io.Reader) ([]Table, error) {
	lines, err := csv.NewReader(r).ReadAll() // every line with the header's fields
	if err != nil {
		return nil, fmt.Errorf("paper.csv: %w", err)
	}
	if len(lines) == 0 || strings.Join(lines[0], ",") != paperHeader {
		return nil, fmt.Errorf("paper.csv: want the header %s", paperHeader)
	}
	var tables []Table
	for i, f := range lines[1:] {
		c, err := readCell(f[3], f[4], f[5], f[6], f[7])
		if err != nil {
			return nil, fmt.Errorf("paper.csv:%d: %w", i+2, err)
		}
		if len(tables) == 0 || tables[len(tables)-1].Label != f[0] {
			tables = append(tables, Table{Label: f[0]})
		}
		t := &tables[len(tables)-1]
		if len(t.rows) == 0 || t.rows[len(t.rows)-1].tex != f[1] {
			t.rows = append(t.rows, TableRow{tex: f[1], params: f[2]})
		}
		t.rows[len(t.rows)-1].Cells = append(t.rows[len(t.rows)-1].Cells, c)
	}
	for _, t := range tables {
		for _, r := range t.rows {
			if len(r.Cells) != len(t.rows[0].Cells) {
				return nil, fmt.Errorf("paper.csv: %s, row %q: %d cells, the first row %d", t.Label, r.tex, len(r.Cells), len(t.rows[0].Cells))
			}
		}
	}
	return tables, nil
}

// paperHeader is paper.csv's first line: its columns.
const paperHeader = "table,row,params,model,dataset,ratio,mean,std"

// readCell is the cell of the variant named folder on dataset at ratio, mean and std as the
// paper writes them ("-" for an empty cell); an error names the column.
func readCell(folder, dataset, ratio, mean, std string) (Cell, error) {
	i := slices.IndexFunc(variants, func(v Variant) bool { return v.folder == folder })
	if i < 0 {
		return Cell{}, fmt.Errorf("no model %q", folder)
	}
	if dataset == "" {
		return Cell{}, fmt.Errorf("no dataset")
	}
	r, err := strconv.ParseFloat(ratio, 64)
	if err != nil {
		return Cell{}, fmt.Errorf("ratio: %w", err)
	}
	c := variants[i].cell(dataset, r)
	if mean == "-" {
		return c, nil
	}
	c.Value = Value{mean, std}
	if c.Mean, err = strconv.ParseFloat(mean, 64); err != nil {
		return c, fmt.Errorf("mean: %w", err)
	}
	if c.Std, err = strconv.ParseFloat(std, 64); err != nil {
		return c, fmt.Errorf("std: %w", err)
	}
	return c, nil
}

// paperTables are the paper's tables, read from paper.csv.
var paperTables = func() []Table {
	ts, err := readPaper(strings.NewReader(paperCSV))
	if err != nil {
		panic(err) // the embedded file, which the tests read
	}
	return ts
}()

// table returns the paper's table labelled label.
func table(label string) Table {
	i := slices.IndexFunc(paperTables, func(t Table) bool { return t.Label == label })
	if i < 0 {
		panic(fmt.Sprintf("paper.csv has no table %q", label)) // a label of this file's
	}
	return paperTables[i]
}

// The names of the OGB datasets whose cells scripts/repro.sh runs apart (RunFolder).
const (
	Molbace = "ogbg-molbace"
	Molesol = "ogbg-molesol"
)

// The paper's tables, in the order of docs/reproduction.md.
var (
	// ZINCTable is Table "tab: ZINC" (Sec. 6): MAE.
	ZINCTable = table("tab: ZINC")
	// OGBTable is Table "tab: ogbg" (Sec. 6): ROC-AUC (%) of molhiv and molbace, RMSE of molesol.
	OGBTable = table("tab: ogbg")
	// PEAblationTable is Table "tab:transposed_sampling_ablation_study" (Sec. 6): per dataset,
	// Subgraphormer and Subgraphormer + PE at each sampling ratio.
	PEAblationTable = table("tab:transposed_sampling_ablation_study")
	// PeptidesTable is Table "tab: LRGB" (Sec. 6): AP of Peptides-func, MAE of Peptides-struct;
	// the subgraph models at 30 %, GIN on the whole graphs.
	PeptidesTable = table("tab: LRGB")
	// AlchemyTable is Table "tab: alchemy" (App. "Additional Results"): MAE.
	AlchemyTable = table("tab: alchemy")
	// ZINCSamplingTable is Table "tab: zinc-sampling" (App. "Additional Results"): MAE of
	// ZINC-12k per sampling ratio (its DSS-GNN rows are a model this project does not have).
	ZINCSamplingTable = table("tab: zinc-sampling")
	// MolbaceSamplingTable is Table "tab: molbace-sampling" (App. "Additional Results"):
	// ROC-AUC (%) of ogbg-molbace per sampling ratio.
	MolbaceSamplingTable = table("tab: molbace-sampling")
	// MolesolSamplingTable is Table "tab: molesol-sampling" (App. "Additional Results"): RMSE
	// of ogbg-molesol per sampling ratio.
	MolesolSamplingTable = table("tab: molesol-sampling")
	// ConcatTable is Table "tab: product vs concatenation" (App. "Product Graph PE vs
	// Concatenation PE"): MAE of ZINC-12k.
	ConcatTable = table("tab: product vs concatenation")
	// RunTimeZINCTable and RunTimeMolhivTable are Tables "tab: run-time zinc" and "tab:
	// run-time molhiv" (App. "Runtime Comparison", on an NVIDIA A100): for GIN, GNN-SSWL+ and
	// Subgraphormer + PE (their GPS row is a model this project does not have), the parameters,
	// and the columns seconds of one training epoch, seconds of inference on the test set, and
	// the test metric.
	RunTimeZINCTable   = table("tab: run-time zinc")
	RunTimeMolhivTable = table("tab: run-time molhiv")
)
