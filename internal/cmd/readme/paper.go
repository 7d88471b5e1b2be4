package main

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

// A variant is a row of the paper's tables as this project trains it: the recipe of the cell's
// dataset and sampling ratio (recipe.At, the paper's best hyperparameters for
// Subgraphormer + PE) with changes. The paper gives no hyperparameters for the other rows, so
// they take the recipe's.
type variant struct {
	name    string // as the paper names the row
	folder  string // the prefix of its runs' folders (scripts/repro.sh)
	changes map[string]any
}

var (
	gin             = variant{"GIN", "gin", map[string]any{model.ParamModel: model.GIN, model.ParamPEK: 0, training.ParamSamplingRatio: 1.0}}
	sswlPlus        = variant{"GNN-SSWL+", "sswlplus", map[string]any{model.ParamModel: model.SSWLPlus, model.ParamPEK: 0}}
	subgraphormer   = variant{"Subgraphormer", "subgraphormer", map[string]any{model.ParamPEK: 0}}
	subgraphormerPE = variant{"Subgraphormer + PE", "subgraphormer-pe", nil}
	concatPE        = variant{"Subgraphormer + concatenation PE", "subgraphormer-concat", map[string]any{model.ParamPEMode: string(preprocess.Concat)}}

	// variants are the rows paper.csv names by their folder.
	variants = []variant{gin, sswlPlus, subgraphormer, subgraphormerPE, concatPE}
)

// benchName is the variant's name in BenchmarkRecipeStep: the recipe's for the rows on product
// graphs but GNN-SSWL+, which it measures apart where the run-time tables compare it.
func (v variant) benchName() string {
	switch v.folder {
	case gin.folder:
		return model.GIN
	case sswlPlus.folder:
		return model.SSWLPlus
	}
	return "recipe"
}

// cell is the variant's cell on dataset at ratio, without the paper's value.
func (v variant) cell(dataset string, ratio float64) paperCell {
	return paperCell{model: v.name, folder: v.folder, dataset: dataset, ratio: ratio, changes: v.changes, bench: v.benchName()}
}

// A paperValue is a cell of the paper as its LaTeX writes it: mean and std ("" for a cell the
// paper leaves empty, "-").
type paperValue struct{ mean, std string }

// String is the value as the paper writes it, "mean ± std".
func (v paperValue) String() string { return v.mean + " ± " + v.std }

// dash is an empty cell.
var dash = paperValue{}

// A paperRow is a row of a table: its name in the LaTeX (texRows' key: the first column, and
// "@ R%" when a column gives the sampling ratio), the parameter count the run-time tables give
// ("293k", "" elsewhere), and its cells, one per value column (value dash where it is empty).
type paperRow struct {
	tex, params string
	cells       []paperCell
}

// A paperTable is a table of the paper: its LaTeX label and the rows of the models this project
// implements.
type paperTable struct {
	label string
	rows  []paperRow
}

// cells returns the table's non-empty cells.
func (t paperTable) cells() []paperCell {
	var out []paperCell
	for _, r := range t.rows {
		for _, c := range r.cells {
			if c.value != dash {
				out = append(out, c)
			}
		}
	}
	return out
}

// readPaper reads the paper's tables from CSV (paperHeader), in their order; an error names the
// line.
func readPaper(r io.Reader) ([]paperTable, error) {
	lines, err := csv.NewReader(r).ReadAll() // every line with the header's fields
	if err != nil {
		return nil, fmt.Errorf("paper.csv: %w", err)
	}
	if len(lines) == 0 || strings.Join(lines[0], ",") != paperHeader {
		return nil, fmt.Errorf("paper.csv: want the header %s", paperHeader)
	}
	var tables []paperTable
	for i, f := range lines[1:] {
		c, err := readCell(f[3], f[4], f[5], f[6], f[7])
		if err != nil {
			return nil, fmt.Errorf("paper.csv:%d: %w", i+2, err)
		}
		if len(tables) == 0 || tables[len(tables)-1].label != f[0] {
			tables = append(tables, paperTable{label: f[0]})
		}
		t := &tables[len(tables)-1]
		if len(t.rows) == 0 || t.rows[len(t.rows)-1].tex != f[1] {
			t.rows = append(t.rows, paperRow{tex: f[1], params: f[2]})
		}
		t.rows[len(t.rows)-1].cells = append(t.rows[len(t.rows)-1].cells, c)
	}
	for _, t := range tables {
		for _, r := range t.rows {
			if len(r.cells) != len(t.rows[0].cells) {
				return nil, fmt.Errorf("paper.csv: %s, row %q: %d cells, the first row %d", t.label, r.tex, len(r.cells), len(t.rows[0].cells))
			}
		}
	}
	return tables, nil
}

// paperHeader is paper.csv's first line: its columns.
const paperHeader = "table,row,params,model,dataset,ratio,mean,std"

// readCell is the cell of the variant named folder on dataset at ratio, mean and std as the
// paper writes them ("-" for an empty cell); an error names the column.
func readCell(folder, dataset, ratio, mean, std string) (paperCell, error) {
	i := slices.IndexFunc(variants, func(v variant) bool { return v.folder == folder })
	if i < 0 {
		return paperCell{}, fmt.Errorf("no model %q", folder)
	}
	if dataset == "" {
		return paperCell{}, fmt.Errorf("no dataset")
	}
	r, err := strconv.ParseFloat(ratio, 64)
	if err != nil {
		return paperCell{}, fmt.Errorf("ratio: %w", err)
	}
	c := variants[i].cell(dataset, r)
	if mean == "-" {
		return c, nil
	}
	c.value = paperValue{mean, std}
	if c.mean, err = strconv.ParseFloat(mean, 64); err != nil {
		return c, fmt.Errorf("mean: %w", err)
	}
	if c.std, err = strconv.ParseFloat(std, 64); err != nil {
		return c, fmt.Errorf("std: %w", err)
	}
	return c, nil
}

// paperTables are the paper's tables, read from paper.csv.
var paperTables = func() []paperTable {
	ts, err := readPaper(strings.NewReader(paperCSV))
	if err != nil {
		panic(err) // the embedded file, which the tests read
	}
	return ts
}()

// table returns the paper's table labelled label.
func table(label string) paperTable {
	i := slices.IndexFunc(paperTables, func(t paperTable) bool { return t.label == label })
	if i < 0 {
		panic(fmt.Sprintf("paper.csv has no table %q", label)) // a label of this file's
	}
	return paperTables[i]
}

// The OGB datasets' names.
const (
	molhiv  = "ogbg-molhiv"
	molbace = "ogbg-molbace"
	molesol = "ogbg-molesol"
)

// The paper's tables, in the order of docs/reproduction.md.
var (
	// zincTable is Table "tab: ZINC" (Sec. 6): MAE.
	zincTable = table("tab: ZINC")
	// ogbTable is Table "tab: ogbg" (Sec. 6): ROC-AUC (%) of molhiv and molbace, RMSE of molesol.
	ogbTable = table("tab: ogbg")
	// peAblationTable is Table "tab:transposed_sampling_ablation_study" (Sec. 6): per dataset,
	// Subgraphormer and Subgraphormer + PE at each sampling ratio.
	peAblationTable = table("tab:transposed_sampling_ablation_study")
	// peptidesTable is Table "tab: LRGB" (Sec. 6): AP of Peptides-func, MAE of Peptides-struct;
	// the subgraph models at 30 %, GIN on the whole graphs.
	peptidesTable = table("tab: LRGB")
	// alchemyTable is Table "tab: alchemy" (App. "Additional Results"): MAE.
	alchemyTable = table("tab: alchemy")
	// zincSamplingTable is Table "tab: zinc-sampling" (App. "Additional Results"): MAE of
	// ZINC-12k per sampling ratio (its DSS-GNN rows are a model this project does not have).
	zincSamplingTable = table("tab: zinc-sampling")
	// molbaceSamplingTable is Table "tab: molbace-sampling" (App. "Additional Results"):
	// ROC-AUC (%) of ogbg-molbace per sampling ratio.
	molbaceSamplingTable = table("tab: molbace-sampling")
	// molesolSamplingTable is Table "tab: molesol-sampling" (App. "Additional Results"): RMSE
	// of ogbg-molesol per sampling ratio.
	molesolSamplingTable = table("tab: molesol-sampling")
	// concatTable is Table "tab: product vs concatenation" (App. "Product Graph PE vs
	// Concatenation PE"): MAE of ZINC-12k.
	concatTable = table("tab: product vs concatenation")
	// runTimeZINCTable and runTimeMolhivTable are Tables "tab: run-time zinc" and "tab:
	// run-time molhiv" (App. "Runtime Comparison", on an NVIDIA A100): for GIN, GNN-SSWL+ and
	// Subgraphormer + PE (their GPS row is a model this project does not have), the parameters,
	// and the columns seconds of one training epoch, seconds of inference on the test set, and
	// the test metric.
	runTimeZINCTable   = table("tab: run-time zinc")
	runTimeMolhivTable = table("tab: run-time molhiv")
)
