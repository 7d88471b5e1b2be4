package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/internal/report"
)

// runPiece is one of scripts/bench-runs.sh's pieces: what it runs, on what, and the paper cell
// whose recipe it is (for the plan's estimate, which scripts/bench-recipes.sh measured on
// xla:cpu).
type runPiece struct {
	Name, Run, Runner string
	epochs            int
	cell              *report.Cell // nil: no estimate (another runner than xla:cpu)
}

// runPieces are scripts/bench-runs.sh's pieces, in the table's order.
var runPieces = func() []runPiece {
	molesol := report.OGBTable.Cell(report.Molesol, report.SubgraphormerPE, 1)
	zinc := report.ZINCTable.Cell("zinc12k", report.SubgraphormerPE, 1)
	peptides := report.PeptidesTable.Cell("peptides-func", report.SubgraphormerPE, 0.3)
	const m, z, p = "ogbg-molesol, 100 epochs", "ZINC-12k, 1 epoch", "Peptides-func, 1 epoch"
	return []runPiece{
		{"molesol-xla", m, "`xla:cpu`", 100, &molesol},
		{"molesol-go", m, "`go`", 100, nil},
		{"molesol-authors", m, "the authors' code, 2 threads", 100, nil},
		{"zinc-xla", z, "`xla:cpu`", 1, &zinc},
		{"zinc-go", z, "`go`", 1, nil},
		{"zinc-pyg", z, "PyTorch Geometric (test set only)", 1, nil},
		{"peptides-xla", p, "`xla:cpu`", 1, &peptides},
		{"peptides-go", p, "`go`", 1, nil},
	}
}()

// runRow is a row of the whole-runs table: a piece, the file of its records ("" where it has not
// run) and the CPU hours the reproduction plan estimates for it ("—" where it has none).
type runRow struct {
	runPiece
	File, Estimate string
}

// runsSection renders scripts/bench-runs.sh's pieces (dir/PIECE.jsonl, records, the part PIECE)
// by templates/whole-runs.md.tmpl, beside the CPU hours the reproduction plan estimates for the
// same run from one step (results/benchmarks/recipes.jsonl).
func runsSection(dir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		rp, err := report.New(root)
		if err != nil {
			return "", err
		}
		var rows []runRow
		var recs record.Set
		for _, pc := range runPieces {
			row := runRow{runPiece: pc, Estimate: "—"}
			if pc.cell != nil {
				if epoch, ok := rp.Epoch(*pc.cell); ok {
					row.Estimate = strconv.FormatFloat(epoch*float64(pc.epochs)/3600, 'f', 2, 64)
				}
			}
			file := filepath.Join(dir, pc.Name+".jsonl")
			s, err := record.Read(filepath.Join(root, file))
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				return "", err
			case len(s.Parts()) != 1 || s.Parts()[0] != pc.Name:
				return "", fmt.Errorf("%s: want one part, %q", file, pc.Name)
			default:
				row.File, recs = file, append(recs, s...)
			}
			rows = append(rows, row)
		}
		return renderTemplate("whole-runs", dir, recs, rows)
	}
}
