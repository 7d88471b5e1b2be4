package report

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// paperTeX is the paper's LaTeX, beside the project (shared/paper).
const paperTeX = "../../../shared/paper/subgraphormer-icml2024.tex"

// texRow is a row of a table as its LaTeX writes it: its parameter count where it gives one
// ("293k"), and its value cells in order (dash for "-").
type texRow struct {
	params string
	values []Value
}

var (
	texComment = regexp.MustCompile(`(?m)^\s*%.*$`)
	texRule    = regexp.MustCompile(`\\(?:toprule|midrule|bottomrule|hline)|\\cmidrule(?:\([a-z]*\))?\{[^}]*\}|\\specialrule\{[^}]*\}\{[^}]*\}\{[^}]*\}`)
	texWrapper = regexp.MustCompile(`\\(?:multicolumn|multirow)\{[^}]*\}\{[^}]*\}\{(.*)\}\s*$`)
	texCommand = regexp.MustCompile(`\\(?:texttt|textsc|revision)\{([^{}]*)\}`)
	texColor   = regexp.MustCompile(`\\rowcolor\{[^}]*\}`)
	texCite    = regexp.MustCompile(`~?\\cite\{[^}]*\}`)
	texRatio   = regexp.MustCompile(`^(\d+)\\%$`)
	texParams  = regexp.MustCompile(`^\$(\d+)k\$$`)
	texNumber  = regexp.MustCompile(`\d+(?:\.\d+)?`)
)

// texRows returns the rows of the table labelled label in tex, by name: the first column's text
// without its LaTeX (a row that leaves it empty continues the last one's, as under \multirow),
// and " @ R%" where a column gives a sampling ratio.
func texRows(tex, label string) (map[string]texRow, error) {
	tex = texComment.ReplaceAllString(tex, "")
	at := strings.Index(tex, `\label{`+label+`}`)
	if at < 0 {
		return nil, fmt.Errorf("no table labelled %q", label)
	}
	begin := strings.LastIndex(tex[:at], `\begin{tabular}`)
	if after := strings.Index(tex[at:], `\begin{tabular}`); begin < strings.LastIndex(tex[:at], `\begin{table`) && after >= 0 {
		begin = at + after // the label comes before its tabular
	}
	end := strings.Index(tex[begin:], `\end{tabular}`)
	if begin < 0 || end < 0 {
		return nil, fmt.Errorf("table %q has no tabular", label)
	}
	rows := map[string]texRow{}
	name := ""
	for _, line := range strings.Split(tex[begin:begin+end], `\\`) {
		line = texRule.ReplaceAllString(line, "")
		fields := strings.Split(line, "&")
		if len(fields) < 2 {
			continue
		}
		if first := texName(fields[0]); first != "" {
			name = first
		}
		key, row := name, texRow{}
		for _, f := range fields[1:] {
			f = strings.TrimSpace(f)
			switch {
			case f == "-":
				row.values = append(row.values, dash)
			case texRatio.MatchString(f):
				key += " @ " + texRatio.FindStringSubmatch(f)[1] + "%"
			case texParams.MatchString(f):
				row.params = texParams.FindStringSubmatch(f)[1] + "k"
			case strings.Contains(f, `\pm`):
				mean, std, _ := strings.Cut(f, `\pm`)
				m, s := texNumber.FindAllString(mean, -1), texNumber.FindString(std)
				if len(m) != 1 {
					return nil, fmt.Errorf("table %q, row %q: cell %q has %d numbers before ±", label, key, f, len(m))
				}
				row.values = append(row.values, pv(m[0], s))
			}
		}
		if len(row.values) > 0 {
			rows[key] = row
		}
	}
	return rows, nil
}

// texName is a row's first column without its LaTeX: "\rowcolor{…} \multicolumn{2}{l|}{GIN~\cite{…}}"
// is "GIN", "\texttt{Subgraphormer + PE}" "Subgraphormer + PE", "GNN-SSWL$+$" "GNN-SSWL+".
func texName(s string) string {
	s = texColor.ReplaceAllString(s, "")
	s = strings.TrimSpace(texCite.ReplaceAllString(s, ""))
	for {
		t := texWrapper.ReplaceAllString(s, "$1")
		t = texCommand.ReplaceAllString(t, "$1")
		if t == s {
			break
		}
		s = t
	}
	return strings.TrimSpace(strings.ReplaceAll(s, "$+$", "+"))
}

// Every row of the paper's tables transcribed in paper.csv is the LaTeX's: the same values, as
// written, in the same columns, and the same parameter counts.
func TestPaperTables(t *testing.T) {
	raw, err := os.ReadFile(paperTeX)
	if err != nil {
		t.Skipf("the paper's LaTeX is not beside the project: %v", err)
	}
	for _, table := range paperTables {
		rows, err := texRows(string(raw), table.Label)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, r := range table.rows {
			got, ok := rows[r.tex]
			if !ok {
				t.Errorf("%s: no row %q in the LaTeX (rows: %q)", table.Label, r.tex, keys(rows))
				continue
			}
			if !slices.Equal(got.values, r.values()) || got.params != r.params {
				t.Errorf("%s, row %q: the LaTeX has %v (parameters %q), paper.csv %v (%q)", table.Label, r.tex, got.values, got.params, r.values(), r.params)
			}
		}
	}
}

// texRows reads the LaTeX's forms of a table: a value with colour and bold, \phantom, a cell
// "-", rows under \multirow with a ratio column, a parameter count, a cited row name in
// \multicolumn, and comments, which are not the table.
func TestTexRows(t *testing.T) {
	tex := `
% \label{tab: x}
\begin{table}
\caption{x}
\label{tab: x}
\begin{tabular}{l|c|c}
\toprule
Model & A & B \\
\midrule
\rowcolor{Gray} \multicolumn{2}{l|}{GIN~\cite{xu2018powerful}} & $\textcolor{blue}{\mathbf{0.070}}$\tiny $\pm 0.005$ & - \\
GNN-SSWL$+$~\cite{z} & $500k$ & $82.70$\tiny $\pm1.80\phantom{0}$ & $ 0.200$\tiny $\pm0.017$ \\
% GIN & $9$\tiny $\pm 9$ & - \\
\multirow{2}{*}{\texttt{Subgraphormer}} & 100\%  & $0.067$\tiny $\pm0.007$  \\
 & 50\%  & $9.60 \pm 0.10$ \\
\bottomrule
\end{tabular}
\end{table}`
	rows, err := texRows(tex, "tab: x")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]texRow{
		"GIN":                  {values: []Value{pv("0.070", "0.005"), dash}},
		"GNN-SSWL+":            {params: "500k", values: []Value{pv("82.70", "1.80"), pv("0.200", "0.017")}},
		"Subgraphormer @ 100%": {values: []Value{pv("0.067", "0.007")}},
		"Subgraphormer @ 50%":  {values: []Value{pv("9.60", "0.10")}},
	}
	if len(rows) != len(want) {
		t.Errorf("rows %q, want %q", keys(rows), keys(want))
	}
	for k, w := range want {
		if g := rows[k]; g.params != w.params || !slices.Equal(g.values, w.values) {
			t.Errorf("row %q: %+v, want %+v", k, g, w)
		}
	}
	if _, err := texRows(tex, "tab: y"); err == nil {
		t.Error("no error for a missing label")
	}
}

// pv is a paper value.
func pv(mean, std string) Value { return Value{mean, std} }

// values returns the row's values, as the LaTeX writes them.
func (r TableRow) values() []Value {
	var vs []Value
	for _, c := range r.Cells {
		vs = append(vs, c.Value)
	}
	return vs
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// readPaper refuses a line it cannot place, naming it: an unknown model, a ratio or a value that
// is not a number, a row with fewer cells than the table's first.
func TestReadPaper(t *testing.T) {
	const header = "table,row,params,model,dataset,ratio,mean,std\n"
	good := "tab: x,GIN,,gin,zinc12k,1,0.163,0.004\ntab: x,GIN,,gin,zinc-full,1,-,-\n"
	ts, err := readPaper(strings.NewReader(header + good))
	if err != nil {
		t.Fatal(err)
	}
	if c := ts[0].Cells(); len(ts) != 1 || len(c) != 1 || c[0].Mean != 0.163 || c[0].Model != "GIN" || c[0].Dataset != "zinc12k" {
		t.Errorf("read %+v", ts)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"unknown model":  {good + "tab: x,GPS,,gps,zinc12k,1,0.1,0.1\n", "paper.csv:4"},
		"no dataset":     {good + "tab: x,SSWL,,sswlplus,,1,0.1,0.1\n", "paper.csv:4: no dataset"},
		"ratio":          {good + "tab: x,SSWL,,sswlplus,zinc12k,all,0.1,0.1\n", `paper.csv:4: ratio: strconv.ParseFloat: parsing "all"`},
		"mean":           {good + "tab: x,SSWL,,sswlplus,zinc12k,1,0.1x,0.1\n", `paper.csv:4: mean: strconv.ParseFloat: parsing "0.1x"`},
		"std":            {good + "tab: x,SSWL,,sswlplus,zinc12k,1,0.1,\n", `paper.csv:4: std: strconv.ParseFloat: parsing ""`},
		"a cell short":   {good + "tab: x,SSWL,,sswlplus,zinc12k,1,0.1,0.1\n", `row "SSWL": 1 cells, the first row 2`},
		"another header": {"tab: x,GIN,,gin,zinc12k,1,0.1,0.1\n", "want the header"},
	} {
		text := header + tc.text
		if name == "another header" {
			text = tc.text
		}
		if _, err := readPaper(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", name, err, tc.want)
		}
	}
}
