package kernelext

import (
	stdcontext "context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/data/smiles"
	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// The helpers of this file are what the notebooks' first cells used to define, each in a
// line: Must and Show stop a cell on an error (a panic is how a GoNB cell fails, and the
// project's notebook checker reports it), LoadMolecule reads a molecule from SMILES or from a
// dataset, DataDir finds the shared datasets, and Task loads a dataset with the paper's recipe.

// Must panics with err if it is not nil: in a notebook cell, a failed step stops the cell.
func Must(err error) {
	if err != nil {
		panic(err)
	}
}

// Must1 returns v, or panics with err if it is not nil (see Must): m := kernelext.Must1(kernelext.LoadMolecule(s)).
func Must1[T any](v T, err error) T {
	Must(err)
	return v
}

// Must2 returns a and b, or panics with err if it is not nil (see Must).
func Must2[A, B any](a A, b B, err error) (A, B) {
	Must(err)
	return a, b
}

// Show displays the figure f made by a constructor of package plots, or panics with the
// constructor's error or the display's (see Must): kernelext.Show(plots.Graph(g, values, title)).
// Outside a GoNB kernel it does nothing.
func Show(f *plots.Figure, err error) {
	Must(err)
	if err := Figure(f); err != nil && !errors.Is(err, ErrNotInKernel) {
		panic(err)
	}
}

// DataDir returns the directory that holds the files of the dataset name (e.g. "zinc12k",
// "ogbg-molesol"), or "" when none exists: $SGFORMER_DATA/FOLDER when SGFORMER_DATA is set,
// else ../shared/data/FOLDER beside the repository of the notebook (GoNB's $GONB_DIR is the
// notebook's directory, notebooks/), else where data.DefaultDir looks. FOLDER is the
// dataset's folder name (data.SourceOf; "ogbg_molesol" for ogbg-molesol).
func DataDir(name string) string {
	folder := name
	if src, err := data.SourceOf(name); err == nil && src.Folder != "" {
		folder = src.Folder
	}
	var candidates []string
	if root := os.Getenv("SGFORMER_DATA"); root != "" {
		candidates = append(candidates, filepath.Join(root, folder))
	} else {
		if nb := os.Getenv("GONB_DIR"); nb != "" {
			candidates = append(candidates, filepath.Join(nb, "..", "..", "shared", "data", folder))
		}
		if dir, err := data.DefaultDir(name); err == nil {
			candidates = append(candidates, dir)
		}
	}
	for _, dir := range candidates {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			return filepath.Clean(dir)
		}
	}
	return ""
}

// Dataset returns the directory of the dataset name's files: DataDir's where it finds them,
// else the user cache's, where the canonical files are downloaded on first use (data.Ensure,
// pinned checksums, a progress line every 30 s in the cell; interrupting the kernel stops it,
// and the next call resumes). Offline, the error says what to fetch by hand.
func Dataset(name string) (string, error) {
	if dir := DataDir(name); dir != "" {
		return dir, nil
	}
	ctx, stop := signal.NotifyContext(stdcontext.Background(), os.Interrupt)
	defer stop()
	return data.Ensure(ctx, name, os.Stderr)
}

// Path returns path as a notebook shows it, naming no folder of the machine it ran on: relative
// to the notebook's folder ($GONB_DIR) when it lies beside the repository (the repository and
// ../shared), under $GONB_TMP_DIR (GoNB's build folder of the session) or ~ (the home folder)
// when it lies there, else as it is.
func Path(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if nb := os.Getenv("GONB_DIR"); nb != "" {
		if rel, err := filepath.Rel(nb, abs); err == nil && !strings.HasPrefix(rel, filepath.Join("..", "..", "..")) {
			return rel
		}
	}
	for _, dir := range []struct{ name, path string }{{"$GONB_TMP_DIR", os.Getenv("GONB_TMP_DIR")}, {"~", os.Getenv("HOME")}} {
		if dir.path == "" || dir.path == "/" {
			continue
		}
		if rel, err := filepath.Rel(dir.path, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join(dir.name, rel)
		}
	}
	return path
}

// Molecule is a molecule of a notebook: its graph and where it came from.
type Molecule struct {
	Graph *graph.Graph
	// Name says which molecule it is: "zinc12k molecule 5853", or the SMILES.
	Name string
	// Source says where it was read from.
	Source string
	// Labels are the dataset's labels of the molecule (nil for a SMILES).
	Labels []float64
	// Elements holds the element symbol of every atom where the features give it (SMILES and
	// the OGB datasets), nil otherwise (ZINC's atom types are not elements).
	Elements []string
}

// String describes the molecule in a line: its name, source and size.
func (m *Molecule) String() string {
	return fmt.Sprintf("%s (%s): n = %d atoms, |E| = %d bonds", m.Name, m.Source, m.Graph.N(), m.Graph.NumEdges())
}

// AtomTypes returns the first node feature of every atom, for colouring a drawing: ZINC's
// atom type, or for molecules featurised as OGB does (SMILES, OGB datasets) the atomic
// number. A graph without node features gives zeros.
func (m *Molecule) AtomTypes() []float64 {
	g := m.Graph
	out := make([]float64, g.N())
	if w := g.NodeFeatures.Width; w > 0 && len(g.NodeFeatures.Ints) >= w*g.N() {
		for v := range out {
			out[v] = float64(g.NodeFeatures.Ints[v*w])
		}
		if w == smiles.NumAtomFeatures {
			for v := range out {
				out[v]++ // OGB's feature 0 is the atomic number − 1
			}
		}
	}
	return out
}

// ZINC5853 names the molecule of notebooks 1 and 2: ZINC-12k's molecule 5853, ten heavy atoms
// (a five-membered ring with a sulfonyl group on one side and a bromine on the other).
const ZINC5853 = "zinc12k:5853"

// builtinZINC5853 is a copy of ZINC-12k's molecule 5853 (atom and bond types as in ZINC), for
// machines without the dataset; TestBuiltinMolecule checks it against the data where present.
func builtinZINC5853() (*graph.Graph, error) {
	return graph.New(10,
		[]graph.Edge{{0, 1}, {1, 2}, {1, 3}, {1, 4}, {4, 5}, {4, 8}, {5, 6}, {8, 7}, {8, 9}, {6, 7}},
		graph.Features{Width: 1, Ints: []int32{2, 5, 1, 1, 0, 0, 5, 0, 0, 9}},
		graph.Features{Width: 1, Ints: []int32{1, 2, 2, 1, 2, 1, 1, 2, 1, 1}})
}

// LoadMolecule reads a molecule given as "DATASET:INDEX", graph INDEX of a dataset (e.g.
// "zinc12k:5853", "ogbg-molesol:12"; DataDir says where its files are looked for), or as a
// SMILES string, featurised as OGB does (e.g. "Cn1cnc2c1c(=O)n(C)c(=O)n2C"). ZINC5853 is
// also served, from a built-in copy, where ZINC-12k's files are absent.
func LoadMolecule(spec string) (*Molecule, error) {
	spec = strings.TrimSpace(spec)
	if name, index, ok := datasetIndex(spec); ok {
		return datasetMolecule(name, index)
	}
	mol, err := smiles.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("kernelext: %q is neither DATASET:INDEX nor a SMILES that parses: %w", spec, err)
	}
	g, err := data.OGBGraph(mol.OGBGraph())
	if err != nil {
		return nil, fmt.Errorf("kernelext: featurising %q: %w", spec, err)
	}
	m := &Molecule{Graph: g, Name: spec, Source: "SMILES, featurised as OGB does"}
	for _, a := range mol.Atoms() {
		m.Elements = append(m.Elements, a.Symbol())
	}
	return m, nil
}

// datasetIndex splits "DATASET:INDEX" where DATASET names a dataset of package data.
func datasetIndex(spec string) (name string, index int, ok bool) {
	name, num, found := strings.Cut(spec, ":")
	if !found {
		return "", 0, false
	}
	if _, err := data.SourceOf(name); err != nil {
		return "", 0, false
	}
	index, err := strconv.Atoi(num)
	return name, index, err == nil
}

// datasetMolecule reads graph index of the dataset name.
func datasetMolecule(name string, index int) (*Molecule, error) {
	dir := DataDir(name)
	if dir == "" {
		if name+":"+strconv.Itoa(index) == ZINC5853 {
			g, err := builtinZINC5853()
			return &Molecule{Graph: g, Name: "zinc12k molecule 5853", Source: "built-in copy: no ZINC-12k data found"}, err
		}
		return nil, fmt.Errorf("kernelext: no files of %s found (set SGFORMER_DATA, or run sgformer download --dataset %s)", name, name)
	}
	ds, err := data.Load(name, dir)
	if err != nil {
		return nil, fmt.Errorf("kernelext: %w", err)
	}
	if index < 0 || index >= len(ds.Graphs) {
		return nil, fmt.Errorf("kernelext: %s has graphs 0 to %d, not %d", name, len(ds.Graphs)-1, index)
	}
	m := &Molecule{Graph: ds.Graphs[index], Name: fmt.Sprintf("%s molecule %d", name, index), Source: "read from " + Path(dir),
		Labels: ds.Labels[index*ds.Tasks : (index+1)*ds.Tasks]}
	if g := m.Graph; g.NodeFeatures.Width == smiles.NumAtomFeatures {
		for v := range g.N() {
			m.Elements = append(m.Elements, smiles.Atom{AtomicNum: int(g.NodeFeatures.Ints[v*g.NodeFeatures.Width]) + 1}.Symbol())
		}
	}
	return m, nil
}

// Task loads a dataset as a training task with the hyperparameters `sgformer train` would
// use: every default (training.Defaults), the paper's recipe for the dataset
// (recipe.Default), then changes (hyperparameter name → value). The graphs are
// preprocessed in memory (no cache).
func Task(src task.Source, changes map[string]any) (*task.Task, *context.Context, error) {
	ctx := context.New()
	training.Defaults(ctx)
	ctx.SetParams(recipe.Default(src.Dataset))
	ctx.SetParams(changes)
	cfg, err := model.ReadConfig(ctx)
	if err != nil {
		return nil, nil, err
	}
	tk, err := task.Load(src, cfg, "", nil)
	if err != nil {
		return nil, nil, err
	}
	return tk, ctx, nil
}
