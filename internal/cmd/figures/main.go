// Command figures draws the README's figure of the product-graph positional encoding: the
// paper's Sec. 4.2 figure (plots.EigenvectorFigure) for one molecule, as SVG and PNG. It is
// run by scripts/figures.sh, which also draws the README's training curves with
// "sgformer plot".
//
//	go run ./internal/cmd/figures [-zinc DIR] [-molecule I] [-out DIR]
//
// With -zinc it draws molecule I of ZINC-12k read from DIR; without, a built-in molecule
// skeleton (2-ethylnaphthalene), so that the figure can be made without the dataset.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/graph"
)

func main() {
	zinc := flag.String("zinc", "", "ZINC-12k directory (default: draw the built-in molecule)")
	molecule := flag.Int("molecule", 4034, "index of the ZINC-12k molecule to draw")
	out := flag.String("out", "docs/figures", "directory to write pe-eigenvector.svg and .png into")
	flag.Parse()
	if err := run(*zinc, *molecule, *out); err != nil {
		fmt.Fprintln(os.Stderr, "figures:", err)
		os.Exit(1)
	}
}

func run(zinc string, molecule int, out string) error {
	g, name, err := pick(zinc, molecule)
	if err != nil {
		return err
	}
	fig, err := plots.EigenvectorFigure(g)
	if err != nil {
		return err
	}
	fig.Title = "First non-trivial eigenvector on G and on the product graph G□G: " + name
	fig.DPI = 120 // 1320 pixels wide: sharp in a README, and a PNG under 200 KB
	for _, ext := range []string{".svg", ".png"} {
		path := filepath.Join(out, "pe-eigenvector"+ext)
		if err := fig.Save(path); err != nil {
			return err
		}
		fmt.Println(path)
	}
	return nil
}

// pick returns the molecule to draw and its name.
func pick(zinc string, molecule int) (*graph.Graph, string, error) {
	if zinc == "" {
		// Naphthalene (rings 0–5 and 3,4,6–9, fused at the bond 3–4) with an ethyl group
		// (10, 11) on atom 8.
		g, err := graph.New(12, []graph.Edge{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0},
			{4, 6}, {6, 7}, {7, 8}, {8, 9}, {9, 3}, {8, 10}, {10, 11}}, graph.Features{}, graph.Features{})
		return g, "2-ethylnaphthalene", err
	}
	ds, err := data.ZINC(zinc)
	if err != nil {
		return nil, "", err
	}
	if molecule < 0 || molecule >= len(ds.Graphs) {
		return nil, "", fmt.Errorf("-molecule %d: ZINC-12k has molecules 0 to %d", molecule, len(ds.Graphs)-1)
	}
	return ds.Graphs[molecule], fmt.Sprintf("ZINC-12k molecule %d", molecule), nil
}
