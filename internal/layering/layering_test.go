// Package layering holds the test that the library's packages import one another in one
// direction: graph → product → pe → preprocess → batch → model → task → training → recipe →
// pytorch → ablation (the README's order), each only from those before it, with the dataset
// readers (data) and the WL oracles (wl) after graph and the BREC benchmark (brec) last; that the library imports of
// internal/ only its toolbox, which imports nothing else of the module; and that data/smiles
// imports only the standard library.
package layering

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers are the library's packages, by their folder in the module, each of which may import
// only those before it and its own sub-packages (metrics and backend sit beside the layers: they
// import none of them, and model on may import them). The dataset readers (data) come after
// graph, whose graphs they build, and before the packages that load datasets.
var layers = []string{"sgformer/graph", "data", "sgformer/wl", "sgformer/product", "sgformer/pe", "sgformer/preprocess", "sgformer/batch",
	"sgformer/metrics", "sgformer/backend", "sgformer/model", "sgformer/task", "sgformer/training", "sgformer/recipe", "sgformer/pytorch", "sgformer/ablation", "sgformer/brec"}

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

// module prefixes the import paths of this module's packages.
const module = "github.com/sgformer/sgformer/"

// imports returns the import paths of the Go file path.
func imports(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		paths = append(paths, p)
	}
	return paths
}

func TestLayering(t *testing.T) {
	for i, pkg := range layers {
		files, err := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no files (%v)", pkg, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue // tests may use later layers to build their inputs
			}
			for _, path := range imports(t, file) {
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

// toolbox are the packages of internal/ that the library imports: small tools of their own
// (atomic writes, CSV records, memory checks, a parallel loop, terminal detection, PyTorch's
// pickles), which import nothing else of the module. The rest of internal/, lab, is what
// measures, tests and documents the library: the docs' renderer and the GPU plan's runner
// (cmd/), their records (gpuresult), the reproduction report (report), the notebooks' checker
// (nbcheck) and the tests' helpers; the library imports none of it.
var (
	toolbox = []string{"internal/atomicfile", "internal/csvfile", "internal/memory", "internal/parallel", "internal/term", "internal/torchpickle"}
	lab     = []string{"internal/cmd", "internal/gpuresult", "internal/gpuscripts", "internal/layering", "internal/nbcheck", "internal/record", "internal/report", "internal/scaling", "internal/shareddata", "internal/xlatest"}
)

// library are the folders whose packages make the library, besides layers: the notebooks'
// helpers and the figures.
var library = []string{"kernelext", "plots"}

// Every folder of internal/ is in toolbox or lab; a toolbox package imports no other package of
// the module outside the toolbox; the library's packages (layers, library and the folders
// under them) import of internal/ the toolbox only.
func TestToolbox(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", "..", "internal"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if dir := "internal/" + e.Name(); e.IsDir() && !slices.Contains(toolbox, dir) && !slices.Contains(lab, dir) {
			t.Errorf("%s is in neither the toolbox nor the lab: add it to one of them", dir)
		}
	}
	check := func(root string, allowed func(dep string) bool, rule string) {
		err := filepath.WalkDir(filepath.Join("..", "..", root), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
				return err
			}
			for _, ip := range imports(t, path) {
				if dep, ok := strings.CutPrefix(ip, module); ok && !allowed(dep) {
					t.Errorf("%s imports %s: %s", path, ip, rule)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	inToolbox := func(dep string) bool { return slices.Contains(toolbox, dep) }
	for _, dir := range toolbox {
		check(dir, inToolbox, "the toolbox imports nothing else of the module")
	}
	for _, dir := range slices.Concat(layers, library) {
		check(dir, func(dep string) bool { return !strings.HasPrefix(dep, "internal/") || inToolbox(dep) }, "the library imports of internal/ the toolbox only ("+strings.Join(toolbox, ", ")+")")
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
		for _, path := range imports(t, file) {
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: data/smiles imports only the standard library", file, path)
			}
		}
	}
}
