// Package layering holds the test that the library's packages import one another in one
// direction: graph → product → pe → preprocess → batch → model → training → pytorch → ablation (the
// README's order), each only from those before it, with the dataset readers (data) and the WL
// oracles (wl) after graph and the BREC benchmark (brec) last; and that data/smiles imports only
// the standard library.
package layering

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers are the library's packages, by their folder in the module, each of which may import
// only those before it and its own sub-packages (metrics and backend sit beside the layers: they
// import none of them, and model on may import them). The dataset readers (data) come after
// graph, whose graphs they build, and before the packages that load datasets.
var layers = []string{"sgformer/graph", "data", "sgformer/wl", "sgformer/product", "sgformer/pe", "sgformer/preprocess", "sgformer/batch",
	"sgformer/metrics", "sgformer/backend", "sgformer/model", "sgformer/training", "sgformer/pytorch", "sgformer/ablation", "sgformer/brec"}

// layerOf returns the index of the layer that the package at path (in the module) is or lies
// under, or -1.
func layerOf(path string) int {
	for i, l := range layers {
		if path == l || strings.HasPrefix(path, l+"/") {
			return i
		}
	}
	return -1
}

func TestLayering(t *testing.T) {
	const module = "github.com/sgformer/sgformer/"
	for i, pkg := range layers {
		files, err := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no files (%v)", pkg, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue // tests may use later layers to build their inputs
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				dep, ok := strings.CutPrefix(path, module)
				if !ok || strings.HasPrefix(dep, pkg+"/") {
					continue // outside the module, or a sub-package of its own (data/smiles)
				}
				if j := layerOf(dep); j >= i {
					t.Errorf("%s imports %s: a package may import only the layers before it (%s)", file, path, strings.Join(layers[:i], ", "))
				}
			}
		}
	}
}

// TestSMILESStandsAlone checks that data/smiles imports nothing but Go's standard library, so
// that it can be used without the rest of this module (its README says so).
func TestSMILESStandsAlone(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "data", "smiles", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("data/smiles: no files (%v)", err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue // its oracle tests find the shared datasets with internal/shareddata
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: data/smiles imports only the standard library", file, path)
			}
		}
	}
}
