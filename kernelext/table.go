package kernelext

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/sgformer/ablation"
)

// ResultsTable returns an HTML table with the given title (a caption; none when empty), header
// row and rows, every text escaped. Rows shorter than the header are padded with empty cells.
// Cells that hold a number, or a MeanStd "mean ± std", are right-aligned.
func ResultsTable(title string, header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<table style="border-collapse:collapse">`)
	if title != "" {
		fmt.Fprintf(&b, `<caption style="font-weight:bold;text-align:left">%s</caption>`, html.EscapeString(title))
	}
	if len(header) > 0 {
		b.WriteString("<thead><tr>")
		for _, h := range header {
			fmt.Fprintf(&b, `<th style="padding:2px 8px;border-bottom:1px solid #888">%s</th>`, html.EscapeString(h))
		}
		b.WriteString("</tr></thead>")
	}
	b.WriteString("<tbody>")
	for _, row := range rows {
		b.WriteString("<tr>")
		for j := range max(len(row), len(header)) {
			text := ""
			if j < len(row) {
				text = row[j]
			}
			align := "left"
			if numeric(text) {
				align = "right"
			}
			fmt.Fprintf(&b, `<td style="padding:2px 8px;text-align:%s">%s</td>`, align, html.EscapeString(text))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

// numeric reports whether s is a number or "mean ± std".
func numeric(s string) bool {
	for part := range strings.SplitSeq(s, "±") {
		if _, err := strconv.ParseFloat(strings.TrimSpace(part), 64); err != nil {
			return false
		}
	}
	return true
}

// MeanStd formats the mean and standard deviation of values over seeds as "0.063 ± 0.002"
// with the given number of digits after the decimal point, with the convention of the
// ablation tables (ablation.NewStat: population standard deviation, NumPy's default). One
// value is printed alone, no values as "n/a".
func MeanStd(values []float64, digits int) string {
	switch len(values) {
	case 0:
		return "n/a"
	case 1:
		return strconv.FormatFloat(values[0], 'f', digits, 64)
	}
	return ablation.NewStat(values).Format(digits)
}
