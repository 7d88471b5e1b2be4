package main

import (
	"fmt"
	"strconv"

	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The paper's tables (shared/paper, subgraphormer-icml2024.tex), transcribed here and nowhere
// else: the rows of the models this project implements, each value as the LaTeX writes it.
// TestPaperTables reads the LaTeX again and compares every row, so that a typo fails.

// A variant is a row of the paper's tables as this project trains it: the recipe of the cell's
// dataset and sampling ratio (training.RecipeAt, the paper's best hyperparameters for
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

// A paperValue is a cell of the paper as its LaTeX writes it: mean and std ("" for a cell the
// paper leaves empty, "-").
type paperValue struct{ mean, std string }

// pv is a paper value; dash is an empty cell.
func pv(mean, std string) paperValue { return paperValue{mean, std} }

var dash = paperValue{}

// float returns s as a number; the strings are this file's, checked by TestPaperTables.
func float(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(fmt.Sprintf("paper value %q: %v", s, err))
	}
	return f
}

// cellPart is what a row or a column of a table says of its cells: the model, the dataset, the
// sampling ratio (0 when it does not say).
type cellPart struct {
	variant *variant
	dataset string
	ratio   float64
}

// A paperRow is a row of a table: its name in the LaTeX (texRows' key: the first column, and
// "@ R%" when a column gives the sampling ratio), what it says of its cells, and its values,
// one per value column.
type paperRow struct {
	tex string
	cellPart
	// params is the parameter count the run-time tables give ("293k"), "" elsewhere.
	params string
	values []paperValue
}

// A paperTable is a table of the paper: its LaTeX label, what each value column says of its
// cells, and the rows of the models this project implements.
type paperTable struct {
	label   string
	columns []cellPart
	rows    []paperRow
}

// cells returns the table's non-empty cells, the full bag where neither row nor column gives a
// ratio.
func (t paperTable) cells() []paperCell {
	var out []paperCell
	for _, r := range t.rows {
		for j, v := range r.values {
			if v == dash {
				continue
			}
			c := paperCell{dataset: r.dataset, ratio: r.ratio, value: v, mean: float(v.mean), std: float(v.std)}
			col := t.columns[j]
			v := r.variant
			if v == nil {
				v = col.variant
			}
			if c.dataset == "" {
				c.dataset = col.dataset
			}
			if c.ratio == 0 {
				c.ratio = col.ratio
			}
			if c.ratio == 0 {
				c.ratio = 1
			}
			c.model, c.folder, c.changes = v.name, v.folder, v.changes
			c.bench = v.benchName()
			out = append(out, c)
		}
	}
	return out
}

// The OGB datasets' names.
const (
	molhiv  = "ogbg-molhiv"
	molbace = "ogbg-molbace"
	molesol = "ogbg-molesol"
)

// ratios are the sampling ratios of the paper's stochastic tables, in their order.
var ratios = []float64{1, 0.5, 0.2, 0.05}

// The paper's tables, in the order of docs/reproduction.md.
var (
	// zincTable is Table "tab: ZINC" (Sec. 6): MAE.
	zincTable = paperTable{
		label:   "tab: ZINC",
		columns: []cellPart{{dataset: "zinc12k"}, {dataset: "zinc-full"}},
		rows: []paperRow{
			{tex: "GIN", cellPart: cellPart{variant: &gin}, params: "500k", values: []paperValue{pv("0.163", "0.004"), dash}},
			{tex: "GNN-SSWL+", cellPart: cellPart{variant: &sswlPlus}, params: "387k", values: []paperValue{pv("0.070", "0.005"), pv("0.022", "0.001")}},
			{tex: "Subgraphormer", cellPart: cellPart{variant: &subgraphormer}, params: "293k", values: []paperValue{pv("0.067", "0.007"), pv("0.020", "0.002")}},
			{tex: "Subgraphormer + PE", cellPart: cellPart{variant: &subgraphormerPE}, params: "293k", values: []paperValue{pv("0.063", "0.001"), pv("0.023", "0.001")}},
		},
	}
	// ogbTable is Table "tab: ogbg" (Sec. 6): ROC-AUC (%) of molhiv and molbace, RMSE of molesol.
	ogbTable = paperTable{
		label:   "tab: ogbg",
		columns: []cellPart{{dataset: molhiv}, {dataset: molbace}, {dataset: molesol}},
		rows: []paperRow{
			{tex: "GIN", cellPart: cellPart{variant: &gin}, values: []paperValue{pv("75.58", "1.40"), pv("72.97", "4.00"), pv("1.173", "0.057")}},
			{tex: "GNN-SSWL+", cellPart: cellPart{variant: &sswlPlus}, values: []paperValue{pv("79.58", "0.35"), pv("82.70", "1.80"), pv("0.837", "0.019")}},
			{tex: "Subgraphormer", cellPart: cellPart{variant: &subgraphormer}, values: []paperValue{pv("80.38", "1.92"), pv("81.62", "3.55"), pv("0.832", "0.043")}},
			{tex: "Subgraphormer + PE", cellPart: cellPart{variant: &subgraphormerPE}, values: []paperValue{pv("79.48", "1.28"), pv("84.35", "0.65"), pv("0.826", "0.010")}},
		},
	}
	// peAblationTable is Table "tab:transposed_sampling_ablation_study" (Sec. 6): per dataset,
	// Subgraphormer and Subgraphormer + PE at each sampling ratio.
	peAblationTable = paperTable{
		label: "tab:transposed_sampling_ablation_study",
		columns: []cellPart{
			{variant: &subgraphormer, ratio: 1}, {variant: &subgraphormerPE, ratio: 1},
			{variant: &subgraphormer, ratio: 0.5}, {variant: &subgraphormerPE, ratio: 0.5},
			{variant: &subgraphormer, ratio: 0.2}, {variant: &subgraphormerPE, ratio: 0.2},
			{variant: &subgraphormer, ratio: 0.05}, {variant: &subgraphormerPE, ratio: 0.05},
		},
		rows: []paperRow{
			{tex: "ZINC-12k", cellPart: cellPart{dataset: "zinc12k"}, values: []paperValue{
				pv("0.067", "0.007"), pv("0.063", "0.001"), pv("0.084", "0.002"), pv("0.084", "0.002"),
				pv("0.121", "0.007"), pv("0.120", "0.002"), pv("0.200", "0.017"), pv("0.175", "0.006")}},
			{tex: "molhiv", cellPart: cellPart{dataset: molhiv}, values: []paperValue{
				pv("80.38", "1.92"), pv("79.48", "1.28"), pv("79.66", "0.79"), pv("79.61", "1.30"),
				pv("76.48", "2.38"), pv("76.68", "1.07"), pv("70.87", "0.90"), pv("71.02", "0.79")}},
			{tex: "molbace", cellPart: cellPart{dataset: molbace}, values: []paperValue{
				pv("81.62", "3.55"), pv("84.35", "0.65"), pv("79.49", "2.38"), pv("83.82", "2.62"),
				pv("75.27", "5.63"), pv("78.77", "4.10"), pv("63.05", "8.70"), pv("67.73", "5.50")}},
			{tex: "molesol", cellPart: cellPart{dataset: molesol}, values: []paperValue{
				pv("0.832", "0.043"), pv("0.826", "0.010"), pv("0.829", "0.013"), pv("0.812", "0.001"),
				pv("1.093", "0.009"), pv("1.041", "0.030"), pv("1.266", "0.019"), pv("1.270", "0.007")}},
		},
	}
	// peptidesTable is Table "tab: LRGB" (Sec. 6): AP of Peptides-func, MAE of Peptides-struct;
	// the subgraph models at 30 %, GIN on the whole graphs.
	peptidesTable = paperTable{
		label:   "tab: LRGB",
		columns: []cellPart{{dataset: "peptides-func"}, {dataset: "peptides-struct"}},
		rows: []paperRow{
			{tex: "GIN", cellPart: cellPart{variant: &gin}, values: []paperValue{pv("0.5498", "0.0079"), pv("0.3547", "0.0045")}},
			{tex: "GNN-SSWL+ @ 30%", cellPart: cellPart{variant: &sswlPlus, ratio: 0.3}, values: []paperValue{pv("0.5847", "0.0050"), pv("0.2570", "0.0006")}},
			{tex: "Subgraphormer @ 30%", cellPart: cellPart{variant: &subgraphormer, ratio: 0.3}, values: []paperValue{pv("0.6415", "0.0052"), pv("0.2494", "0.0020")}},
			{tex: "Subgraphormer + PE @ 30%", cellPart: cellPart{variant: &subgraphormerPE, ratio: 0.3}, values: []paperValue{pv("0.6373", "0.0110"), pv("0.2475", "0.0007")}},
		},
	}
	// alchemyTable is Table "tab: alchemy" (App. "Additional Results"): MAE.
	alchemyTable = paperTable{
		label:   "tab: alchemy",
		columns: []cellPart{{dataset: "alchemy12k"}},
		rows: []paperRow{
			{tex: "GIN", cellPart: cellPart{variant: &gin}, values: []paperValue{pv("0.180", "0.006")}},
			{tex: "GNN-SSWL+", cellPart: cellPart{variant: &sswlPlus}, values: []paperValue{pv("0.116", "0.002")}},
			{tex: "Subgraphormer", cellPart: cellPart{variant: &subgraphormer}, values: []paperValue{pv("0.114", "0.001")}},
			{tex: "Subgraphormer + PE", cellPart: cellPart{variant: &subgraphormerPE}, values: []paperValue{pv("0.113", "0.002")}},
		},
	}
	// zincSamplingTable is Table "tab: zinc-sampling" (App. "Additional Results"): MAE of
	// ZINC-12k per sampling ratio (its DSS-GNN rows are a model this project does not have).
	zincSamplingTable = samplingTable("tab: zinc-sampling", "zinc12k", map[*variant][4]paperValue{
		&subgraphormer:   {pv("0.067", "0.007"), pv("0.084", "0.002"), pv("0.121", "0.007"), pv("0.200", "0.017")},
		&subgraphormerPE: {pv("0.063", "0.0003"), pv("0.084", "0.002"), pv("0.120", "0.002"), pv("0.175", "0.006")},
	})
	// molbaceSamplingTable is Table "tab: molbace-sampling" (App. "Additional Results"):
	// ROC-AUC (%) of ogbg-molbace per sampling ratio.
	molbaceSamplingTable = samplingTable("tab: molbace-sampling", molbace, map[*variant][4]paperValue{
		&sswlPlus:        {pv("82.70", "1.80"), pv("79.99", "0.58"), pv("78.04", "5.98"), pv("68.52", "5.73")},
		&subgraphormer:   {pv("81.62", "3.55"), pv("79.49", "2.38"), pv("75.27", "5.63"), pv("63.05", "8.70")},
		&subgraphormerPE: {pv("84.35", "0.65"), pv("83.82", "2.62"), pv("78.77", "4.10"), pv("67.73", "5.50")},
	})
	// molesolSamplingTable is Table "tab: molesol-sampling" (App. "Additional Results"): RMSE
	// of ogbg-molesol per sampling ratio.
	molesolSamplingTable = samplingTable("tab: molesol-sampling", molesol, map[*variant][4]paperValue{
		&sswlPlus:        {pv("0.837", "0.019"), pv("0.886", "0.026"), pv("1.180", "0.036"), pv("1.299", "0.044")},
		&subgraphormer:   {pv("0.832", "0.043"), pv("0.829", "0.013"), pv("1.093", "0.009"), pv("1.266", "0.019")},
		&subgraphormerPE: {pv("0.826", "0.010"), pv("0.812", "0.001"), pv("1.041", "0.030"), pv("1.270", "0.007")},
	})
	// concatTable is Table "tab: product vs concatenation" (App. "Product Graph PE vs
	// Concatenation PE"): MAE of ZINC-12k.
	concatTable = paperTable{
		label:   "tab: product vs concatenation",
		columns: []cellPart{{dataset: "zinc12k"}},
		rows: []paperRow{
			{tex: "Subgraphormer", cellPart: cellPart{variant: &subgraphormer}, values: []paperValue{pv("0.067", "0.007")}},
			{tex: "Subgraphormer + concatenation PE", cellPart: cellPart{variant: &concatPE}, values: []paperValue{pv("0.071", "0.003")}},
			{tex: "Subgraphormer + product graph PE", cellPart: cellPart{variant: &subgraphormerPE}, values: []paperValue{pv("0.063", "0.0003")}},
		},
	}
	// runTimeZINCTable and runTimeMolhivTable are Tables "tab: run-time zinc" and "tab:
	// run-time molhiv" (App. "Runtime Comparison", on an NVIDIA A100): parameters, seconds of
	// one training epoch, seconds of inference on the test set, and the test metric.
	runTimeZINCTable = runTimeTable("tab: run-time zinc", "zinc12k", [3]runTimeRow{
		{"500", pv("1.41", "0.22"), pv("0.36", "0.02"), pv("0.163", "0.004")},
		{"387", pv("9.65", "0.19"), pv("1.04", "0.03"), pv("0.070", "0.005")},
		{"293", pv("9.60", "0.10"), pv("0.95", "0.03"), pv("0.063", "0.001")},
	})
	runTimeMolhivTable = runTimeTable("tab: run-time molhiv", molhiv, [3]runTimeRow{
		{"1800", pv("12.65", "0.21"), pv("1.05", "0.08"), pv("75.58", "1.40")},
		{"46", pv("51.02", "0.25"), pv("3.073", "0.03"), pv("79.58", "0.35")},
		{"30", pv("64.62", "0.16"), pv("3.200", "0.1"), pv("80.38", "1.92")},
	})
)

// samplingTable is a table of the appendix's stochastic variants: one column, the dataset, and
// a row per model and sampling ratio (ratios).
func samplingTable(label, dataset string, values map[*variant][4]paperValue) paperTable {
	t := paperTable{label: label, columns: []cellPart{{dataset: dataset}}}
	for _, v := range []*variant{&sswlPlus, &subgraphormer, &subgraphormerPE} {
		vs, ok := values[v]
		if !ok {
			continue
		}
		for i, r := range ratios {
			t.rows = append(t.rows, paperRow{tex: fmt.Sprintf("%s @ %g%%", v.name, 100*r), cellPart: cellPart{variant: v, ratio: r}, values: []paperValue{vs[i]}})
		}
	}
	return t
}

// runTimeRow is a row of a run-time table: thousands of parameters, training and test seconds,
// the test metric.
type runTimeRow struct {
	params           string
	train, test, val paperValue
}

// runTimeTable is a run-time table's rows GIN, GNN-SSWL+ and Subgraphormer + PE (its GPS row
// is a model this project does not have); the columns are training seconds, test seconds and
// the metric.
func runTimeTable(label, dataset string, rows [3]runTimeRow) paperTable {
	t := paperTable{label: label, columns: []cellPart{{dataset: dataset}, {dataset: dataset}, {dataset: dataset}}}
	for i, v := range []*variant{&gin, &sswlPlus, &subgraphormerPE} {
		r := rows[i]
		t.rows = append(t.rows, paperRow{tex: v.name, cellPart: cellPart{variant: v}, params: r.params + "k", values: []paperValue{r.train, r.test, r.val}})
	}
	return t
}

// paperTables are the tables TestPaperTables checks against the LaTeX.
var paperTables = []paperTable{zincTable, ogbTable, peAblationTable, peptidesTable, alchemyTable, zincSamplingTable,
	molbaceSamplingTable, molesolSamplingTable, concatTable, runTimeZINCTable, runTimeMolhivTable}
