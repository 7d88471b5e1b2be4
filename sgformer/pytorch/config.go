// Package pytorch brings models trained with the authors' PyTorch code (BarSGuy/Subgraphormer,
// models/Subgraphormer.py and models/layers.py) over, and back: their configuration read as this
// implementation's hyperparameters (ReadConfig), their state_dict mapped tensor by tensor onto
// this model's variables (Import), and this model's variables written as a state_dict their
// code loads (Export).
package pytorch

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"
	"go.yaml.in/yaml/v3"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/product"
	"github.com/sgformer/sgformer/sgformer/recipe"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// Config is a configuration of the authors' code, flattened to the names of their command line
// (utils/arguments.py): "model__num_layer", "data__preprocess__max_dis", ... Values are YAML's:
// int, float64, bool, string, []any or nil.
type Config map[string]any

// authorsDefaults are the values of the authors' config/config.yaml, which their command line
// overrides: the configuration of a run that sets nothing else.
var authorsDefaults = Config{
	"general__seed": 1, "general__device": 0, "data__name": "zinc12k", "data__bs": 128, "data__num_workers": 4, "data__preprocess__max_dis": 5,
	"data__sampling__keep_subgraph_prob": 1, "data__sampling__average_res_over": 1,
	"model__model_name": "Subgraphormer", "model__num_layer": 6, "model__dim_embed": 96, "model__final_dim": 1,
	"model__dropout": 0.0, "model__attention_type": "Gat", "model__H": 4, "model__residual": false,
	"model__aggs": []any{"uL", "vL", "vv"}, "model__sum_pooling": true,
	"model__PE__num_eigen_vectors": 8, "model__PE__laplacian_type": "none",
	"model__atom_encoder__in_dim": 6, "model__atom_encoder__linear": false,
	"model__edge_encoder__in_dim": 4, "model__edge_encoder__use_edge_attr": true, "model__edge_encoder__linear": false,
	"model__layer_encoder__linear": true, "training__lr": 0.0005, "training__wd": 0, "training__epochs": 400, "training__patience": 40,
	"wandb__project_name": "TEST", "outdir": "result",
}

// ReadConfig reads a configuration of the authors' code from a YAML file: their nested
// config/config.yaml layout, a wandb sweep file (its "parameters", each {value: x} or {values:
// [x]}) or a run's flat config (key: {value: x}); then applies the overrides, "key=value" with
// their command line's names (model__num_layer=3). Keys the file leaves out have the values of
// their config/config.yaml. A sweep parameter with several values must be chosen by an override.
func ReadConfig(path string, overrides []string) (Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a YAML mapping of the authors' configuration (config/config.yaml's layout), got %T", path, doc)
	}
	if p, ok := top["parameters"].(map[string]any); ok { // a wandb sweep
		top = p
	}
	c := maps.Clone(authorsDefaults)
	sweeps := map[string][]any{}
	flatten(top, "", c, sweeps)
	for _, o := range overrides {
		key, value, ok := strings.Cut(o, "=")
		key = strings.TrimPrefix(strings.TrimSpace(key), "--")
		if !ok || key == "" {
			return nil, fmt.Errorf("override %q: want key=value, e.g. model__num_layer=3", o)
		}
		var v any
		if err := yaml.Unmarshal([]byte(value), &v); err != nil {
			v = value
		}
		c[key] = v
		delete(sweeps, key)
	}
	for _, key := range slices.Sorted(maps.Keys(sweeps)) {
		return nil, fmt.Errorf("%s: %s is swept over %v: choose one, e.g. --set %s=%v", path, key, sweeps[key], key, sweeps[key][0])
	}
	return c, nil
}

// flatten adds the leaves of m to c under their "__"-joined paths; a mapping {value: x} is the
// leaf x, {values: [x]} too, and {values: [x, y, ...]} is recorded in sweeps.
func flatten(m map[string]any, prefix string, c Config, sweeps map[string][]any) {
	for k, v := range m {
		key := prefix + k
		sub, ok := v.(map[string]any)
		switch {
		case !ok:
			c[key] = v
		case hasKey(sub, "value"):
			c[key] = sub["value"]
		case hasKey(sub, "values"):
			if vs, ok := sub["values"].([]any); ok && len(vs) == 1 {
				c[key] = vs[0]
			} else if ok {
				sweeps[key] = vs
			}
		default:
			flatten(sub, key+"__", c, sweeps)
		}
	}
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// joinNames writes connectivity names as the hyperparameter aggregations lists them.
func joinNames(names []product.Name) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = n.String()
	}
	return strings.Join(s, ",")
}

// authorsAggregations lists the aggregations of the authors' code and their connectivities:
// "uL, vL, vv, uG and vG (internal, external, point, global_internal, global_external)".
func authorsAggregations() string {
	theirs := product.AuthorsNames()
	ours := make([]string, len(theirs))
	for i, a := range theirs {
		n, _ := product.FromAuthors(a)
		ours[i] = n.String()
	}
	last := len(theirs) - 1
	return fmt.Sprintf("%s and %s (%s)", strings.Join(theirs[:last], ", "), theirs[last], strings.Join(ours, ", "))
}

// Dataset is this implementation's name of the configuration's data__name.
func (c Config) Dataset() (string, error) {
	name, err := c.str("data__name")
	if err != nil {
		return "", err
	}
	switch {
	case strings.Contains(name, "zinc") && strings.Contains(name, "12k"):
		return "zinc12k", nil
	case strings.Contains(name, "zinc") && strings.Contains(name, "full"):
		return "zinc-full", nil
	case strings.HasPrefix(name, "ogbg-mol"):
		return name, nil
	case name == "Peptides-func":
		return "peptides-func", nil
	case name == "Peptides-struc":
		return "peptides-struct", nil
	}
	return "", fmt.Errorf("data__name = %q: this implementation reads zinc12k, zinc-full, ogbg-mol*, Peptides-func and Peptides-struc", name)
}

// Params returns the hyperparameters of the model the configuration describes, and for
// fine-tuning, the dataset's recipe (recipe.At) with the configuration's learning rate,
// epochs, batch size, seed and sampling. Settings this implementation does not have (another
// attention than GATConv, linear atom or bond encoders, a normalised Laplacian, aggregations
// other than uL, vL, vv, uG, vG) are errors that name them.
func (c Config) Params() (map[string]any, error) {
	dataset, err := c.Dataset()
	if err != nil {
		return nil, err
	}
	r := reader{c: c}
	name := r.str("model__model_name")
	if attention := r.str("model__attention_type"); attention != "Gat" {
		r.fail("model__attention_type = %q: only \"Gat\" (PyG's GATConv) is implemented", attention)
	}
	if lap := r.str("model__PE__laplacian_type"); !strings.EqualFold(lap, "none") {
		r.fail("model__PE__laplacian_type = %q: only none (L = D − A) is implemented", lap)
	}
	for _, key := range []string{"model__atom_encoder__linear", "model__edge_encoder__linear"} {
		if r.bool(key) {
			r.fail("%s = True: only the lookup tables (False) are implemented", key)
		}
	}
	var aggs []string
	list, ok := c["model__aggs"].([]any)
	if !ok || len(list) == 0 {
		r.fail("model__aggs = %v: want a list of aggregations, e.g. [uL, vL, vv]", c["model__aggs"])
	}
	for _, a := range list {
		ours, err := product.FromAuthors(fmt.Sprint(a))
		if err != nil {
			r.fail("model__aggs: %v is not implemented (%s are)", a, strings.Join(product.AuthorsNames(), ", "))
		}
		aggs = append(aggs, ours.String())
	}
	if name != "Subgraphormer" && name != "Subgraphormer_PE" {
		r.fail("model__model_name = %q: want Subgraphormer or Subgraphormer_PE", name)
	}
	peK := r.int("model__PE__num_eigen_vectors")
	if !strings.Contains(name, "_PE") {
		peK = 0
	}
	dim, heads := r.int("model__dim_embed"), r.int("model__H")
	if heads <= 0 || dim < len(aggs)*heads {
		r.fail("model__dim_embed = %d, model__H = %d: want at least one channel per head of each of the %d aggregations", dim, heads, len(aggs))
	}
	ratio := r.float("data__sampling__keep_subgraph_prob")
	ours := map[string]any{
		model.ParamModel: model.Subgraphormer, model.ParamLayers: r.int("model__num_layer"),
		model.ParamHeads: heads, model.ParamPEK: peK, model.ParamPEMode: string(preprocess.AuthorsCode),
		model.ParamAggregations: strings.Join(aggs, ","), model.ParamMaxDistance: r.int("data__preprocess__max_dis"),
		model.ParamDropout: r.float("model__dropout"), model.ParamResidual: r.bool("model__residual"),
		model.ParamLayerEncoder: map[bool]string{true: model.Linear, false: model.MLP}[r.bool("model__layer_encoder__linear")],
		model.ParamPooling:      map[bool]string{true: model.SubgraphMean, false: model.Mean}[r.bool("model__sum_pooling")],
		model.ParamEdgeFeatures: r.bool("model__edge_encoder__use_edge_attr"), model.ParamInit: model.PyTorchInit,
		// Their Bond.forward embeds bond features of several columns with the first column's table.
		model.ParamBondEncoder:     model.AuthorsBonds,
		training.ParamLearningRate: r.float("training__lr"), training.ParamEpochs: r.int("training__epochs"),
		training.ParamBatchSize: r.int("data__bs"), training.ParamSeed: r.int("general__seed"),
		training.ParamSamplingRatio: ratio, training.ParamEvalSamples: max(1, r.int("data__sampling__average_res_over")),
	}
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	// The width their compute_final_embedding_dimension rounds dim_embed down to: a multiple of
	// the aggregations times the heads.
	ours[model.ParamHidden] = dim / len(aggs) / heads * heads * len(aggs)
	params, _ := recipe.At(dataset, ratio)
	if params == nil {
		params = map[string]any{}
	}
	maps.Copy(params, ours)
	return params, nil
}

// reader reads typed values of a Config, collecting the errors.
type reader struct {
	c    Config
	errs []error
}

func (r *reader) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

func (r *reader) keep(err error) {
	if err != nil {
		r.errs = append(r.errs, err)
	}
}

func (r *reader) str(key string) string    { v, err := r.c.str(key); r.keep(err); return v }
func (r *reader) int(key string) int       { v, err := r.c.int(key); r.keep(err); return v }
func (r *reader) float(key string) float64 { v, err := r.c.float(key); r.keep(err); return v }
func (r *reader) bool(key string) bool     { v, err := r.c.bool(key); r.keep(err); return v }

// Tasks is the configuration's model__final_dim, the model's outputs.
func (c Config) Tasks() (int, error) { return c.int("model__final_dim") }

func (c Config) value(key string) (any, error) {
	v, ok := c[key]
	if !ok {
		return nil, fmt.Errorf("%s: not in the configuration", key)
	}
	return v, nil
}

func (c Config) str(key string) (string, error) {
	v, err := c.value(key)
	if err != nil {
		return "", err
	}
	if v == nil {
		return "none", nil // YAML's null, as their laplacian_type: None reads
	}
	return fmt.Sprint(v), nil
}

func (c Config) int(key string) (int, error) {
	v, err := c.value(key)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case int:
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<31 {
			return int(x), nil
		}
	case string:
		if n, err := strconv.Atoi(x); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s = %v: want an integer", key, v)
}

func (c Config) float(key string) (float64, error) {
	v, err := c.value(key)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%s = %v: want a number", key, v)
}

// bool reads a boolean as their str2bool does: true/false, yes/no, 1/0, in any case.
func (c Config) bool(key string) (bool, error) {
	v, err := c.value(key)
	if err != nil {
		return false, err
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case int:
		if x == 0 || x == 1 {
			return x == 1, nil
		}
	case string:
		switch strings.ToLower(x) {
		case "yes", "true", "t", "y", "1":
			return true, nil
		case "no", "false", "f", "n", "0":
			return false, nil
		}
	}
	return false, fmt.Errorf("%s = %v: want a boolean", key, v)
}

// authorsDatasets are the authors' data__name of this implementation's datasets.
var authorsDatasets = map[string]string{
	"zinc12k": "zinc12k", "zinc-full": "zincfull", "peptides-func": "Peptides-func", "peptides-struct": "Peptides-struc",
}

// ConfigOf returns the configuration of the authors' code that builds the model of ctx's
// hyperparameters for the data of src (of which Config.Params gives them back), with the run's
// learning rate, epochs, batch size, seed and sampling. A model their code does not have
// (GNN-SSWL+, GIN, K-tuples, plain sum pooling, aggregations other than uL, vL, vv, uG, vG, or a
// dataset it does not read) is an error.
func ConfigOf(ctx *context.Context, src task.Source) (Config, error) {
	tc, err := training.ReadConfig(ctx)
	if err != nil {
		return nil, err
	}
	c := tc.Model
	name, ok := authorsDatasets[src.Dataset]
	if strings.HasPrefix(src.Dataset, "ogbg-mol") {
		name, ok = src.Dataset, true
	}
	var aggs []any
	for _, a := range c.Aggregations {
		if theirs := a.Authors(); theirs != "" {
			aggs = append(aggs, theirs)
		}
	}
	switch {
	case !ok:
		return nil, fmt.Errorf("pytorch: the authors' code does not read dataset %s", src.Dataset)
	case c.Model != model.Subgraphormer:
		return nil, fmt.Errorf("pytorch: model %s: the authors' code has Subgraphormer only", c.Model)
	case c.TupleK != 2:
		return nil, fmt.Errorf("pytorch: %s = %d: the authors' code runs on pairs (K = 2)", model.ParamTupleK, c.TupleK)
	case c.Pooling == model.Sum:
		return nil, fmt.Errorf("pytorch: %s = %s: the authors' code pools by %s or %s", model.ParamPooling, c.Pooling, model.SubgraphMean, model.Mean)
	case len(aggs) != len(c.Aggregations):
		return nil, fmt.Errorf("pytorch: %s = %s: the authors' code has %s", model.ParamAggregations, joinNames(c.Aggregations), authorsAggregations())
	}
	modelName := "Subgraphormer"
	if c.PEK > 0 {
		modelName = "Subgraphormer_PE"
	}
	cfg := maps.Clone(authorsDefaults)
	maps.Copy(cfg, Config{
		"general__seed": tc.Seed, "data__name": name, "data__bs": tc.BatchSize, "data__preprocess__max_dis": c.MaxDistance,
		"data__sampling__keep_subgraph_prob": tc.SamplingRatio, "data__sampling__average_res_over": tc.EvalSamples,
		"model__model_name": modelName, "model__num_layer": c.Layers, "model__dim_embed": c.Hidden, "model__final_dim": src.Spec.Tasks,
		"model__dropout": c.Dropout, "model__H": c.Heads, "model__residual": c.Residual, "model__aggs": aggs,
		"model__sum_pooling": c.Pooling == model.SubgraphMean, "model__PE__num_eigen_vectors": max(c.PEK, 1),
		"model__edge_encoder__use_edge_attr": c.EdgeFeatures, "model__layer_encoder__linear": c.LayerEncoder == model.Linear,
		"training__lr": tc.LearningRate, "training__epochs": tc.Epochs, "training__wd": 0,
	})
	if tc.SamplingRatio == 1 {
		cfg["data__sampling__average_res_over"] = 1
	}
	return cfg, nil
}

// Write writes the configuration in the layout of the authors' config/config.yaml (the
// "__"-separated names nested), atomically.
func (c Config) Write(path string) error {
	nested := map[string]any{}
	for key, v := range c {
		m := nested
		parts := strings.Split(key, "__")
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = v
	}
	raw, err := yaml.Marshal(nested)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, raw)
}
