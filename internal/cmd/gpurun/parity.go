package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/sgformer/graph"
)

// parityGraphs are the test molecules predicted with both backends.
var parityGraphs = []int{11000, 11001, 11002, 11003}

// parity trains a small model with the pure-Go backend, evaluates and predicts with its best
// checkpoint on both backends, and fails when they differ by more than the tolerance.
func parity(ctx context.Context, j *job, p piece) error {
	if err := j.gpuEnv(ctx); err != nil {
		return err
	}
	args := append([]string{"train", "--dataset", "zinc12k", "--data-dir", dataDir, "--cache-dir", cacheDir,
		"--train-subset", "64", "--batch-size", "32", "--epochs", "1"}, j.small()...)
	args = append(args, "--backend", "go", "--out", j.path("run"))
	if err := j.run(ctx, files{stdout: os.DevNull, stderr: "train.log"}, sgformer, args...); err != nil {
		return err
	}
	if err := writeGraphs(j, dataDir, parityGraphs); err != nil {
		return err
	}
	backends := []string{"go", j.backend()}
	for _, b := range backends {
		file := strings.ReplaceAll(b, ":", "-")
		if err := j.run(ctx, files{stdout: "eval-" + file + ".json", stderr: "eval.log"}, sgformer, "eval", "--run", j.path("run"), "--cache-dir", cacheDir, "--backend", b); err != nil {
			return err
		}
		for _, id := range parityGraphs {
			out := fmt.Sprintf("predict-%s-%d.json", file, id)
			if err := j.run(ctx, files{stdout: out, stderr: "eval.log"}, sgformer, "predict", "--run", j.path("run"), "--graph", j.path(fmt.Sprintf("graph-%d.json", id)), "--backend", b); err != nil {
				return err
			}
		}
	}
	if err := dropVariables(j.path("run")); err != nil {
		return err
	}
	r, err := compareBackends(j.dir, backends, parityGraphs, j.cfg.rtol)
	if err != nil {
		return err
	}
	if err := j.writeJSON("result.json", r); err != nil {
		return err
	}
	if !r.Pass {
		return fmt.Errorf("the backends differ by %.3g, over the tolerance %g (result.json)", r.MaxRelDiff, r.RTol)
	}
	return nil
}

// compareBackends reads what eval and predict wrote in dir with the two backends and compares
// them: the MAEs relative to the first backend's, predictions relative to 1 + |first's|.
func compareBackends(dir string, backends []string, ids []int, rtol float64) (gpuresult.Parity, error) {
	r := gpuresult.Parity{Backends: backends, RTol: rtol, Rows: map[string]gpuresult.ParityRow{}}
	file := func(b string) string { return strings.ReplaceAll(b, ":", "-") }
	var evals [2]struct {
		Val  *float64 `json:"val"`
		Test *float64 `json:"test"`
	}
	for i, b := range backends {
		if err := readJSON(fmt.Sprintf("%s/eval-%s.json", dir, file(b)), &evals[i]); err != nil {
			return r, err
		}
		if evals[i].Val == nil || evals[i].Test == nil {
			return r, fmt.Errorf("%s/eval-%s.json: no val or test", dir, file(b))
		}
	}
	add := func(name string, a, b, scale float64) {
		d := math.Abs(a-b) / scale
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		r.Rows[name] = gpuresult.ParityRow{Go: a, Other: b, RelDiff: d}
		r.MaxRelDiff = max(r.MaxRelDiff, d)
	}
	add("val", *evals[0].Val, *evals[1].Val, math.Abs(*evals[0].Val))
	add("test", *evals[0].Test, *evals[1].Test, math.Abs(*evals[0].Test))
	for _, id := range ids {
		var preds [2]float64
		for i, b := range backends {
			var pred struct {
				Prediction []float64 `json:"prediction"`
			}
			path := fmt.Sprintf("%s/predict-%s-%d.json", dir, file(b), id)
			if err := readJSON(path, &pred); err != nil {
				return r, err
			}
			if len(pred.Prediction) == 0 {
				return r, fmt.Errorf("%s: no prediction", path)
			}
			preds[i] = pred.Prediction[0]
		}
		add("graph "+strconv.Itoa(id), preds[0], preds[1], 1+math.Abs(preds[0]))
	}
	r.Pass = r.MaxRelDiff <= rtol
	return r, nil
}

// writeGraphs writes ZINC-12k's graphs ids as graph-ID.json in the command line's format.
func writeGraphs(j *job, dir string, ids []int) error {
	ds, err := data.ZINC(dir)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if id < 0 || id >= len(ds.Graphs) {
			return fmt.Errorf("%s has no graph %d", dir, id)
		}
		if err := j.writeJSON(fmt.Sprintf("graph-%d.json", id), graphJSON(ds.Graphs[id])); err != nil {
			return err
		}
	}
	return nil
}

// cliGraph is the command line's graph format (sgformer/graph.ReadJSON) with one integer
// feature per node and per edge, as ZINC's atom and bond types.
type cliGraph struct {
	NumNodes     int          `json:"num_nodes"`
	Edges        []graph.Edge `json:"edges"`
	NodeFeatures []int32      `json:"node_features"`
	EdgeFeatures []int32      `json:"edge_features"`
}

// graphJSON is g in the command line's format.
func graphJSON(g *graph.Graph) cliGraph {
	return cliGraph{NumNodes: g.N(), Edges: g.Edges(), NodeFeatures: g.NodeFeatures.Ints, EdgeFeatures: g.EdgeFeatures.Ints}
}

// readJSON decodes the file at path into v.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
