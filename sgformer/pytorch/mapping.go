package pytorch

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/product"
)

// A layout is how a variable's values sit in the authors' tensor.
type layout int

const (
	same       layout = iota // the same shape and order (biases, BatchNorm, embedding rows of equal count)
	transposed               // nn.Linear's weight [out, in] is GoMLX's Dense weights [in, out]
	unsqueezed               // a leading axis of 1: GATConv's att_* [1, H, C], GIN's ε [1]
	rows                     // an embedding table of which ours holds the first rows (OGB's tables are sized for every molecule)
)

// A mapped variable: its name in the authors' state_dict and how its values sit there.
type mapped struct {
	v      *context.Variable
	key    string
	layout layout
}

// authorsNames maps the variables of the Subgraphormer built in ctx (configured by c) to the
// names of the authors' models/Subgraphormer.py, module by module:
//
//	input/atom/feature_j            atom_encoder.embed_v.atom_embedding_list.j   (OGB AtomEncoder)
//	input/marking                   atom_encoder.embed_d                         (node marking, nn.Embedding)
//	sab_l/AGG/{lin,lin_edge,att_*,bias}  MPNNs.l.AGG.attn_layer.*           (PyG GATConv)
//	sab_l/AGG/bond/feature_j        EDGE_ENCODER.l.AGG.embed.bond_embedding_list.j (OGB BondEncoder)
//	sab_l/AGG/epsilon               EPSs.l.AGG                                   (GIN's ε)
//	sab_l/AGG/{dense,mlp}           POINT_ENCODERs.l.AGG                         (layer encoder)
//	sab_l/update/{dense,mlp}        CAT_ENCODERs.l                               (layer encoder)
//	sab_l/batch_norm                BNORM_RELUs.l.bn
//	head/head_0, head/head_1        POOLING.predict.input, POOLING.predict.output
//
// where AGG is the authors' name of the aggregation (uL, vL, vv, uG, vG), a layer encoder is
// their LINEAR (input) or MLP (input, input_nr.bn, output), and variables of random-number state
// or training are not the model's.
func authorsNames(ctx *context.Context, c model.Config) ([]mapped, error) {
	if c.Model != model.Subgraphormer {
		return nil, fmt.Errorf("pytorch: model %q: the authors' code has Subgraphormer only", c.Model)
	}
	var out []mapped
	var errs []error
	for v := range ctx.IterVariables() {
		path := strings.Split(strings.TrimPrefix(v.Scope(), "/"), "/")
		if top := path[0]; top != "input" && top != "head" && !strings.HasPrefix(top, "sab_") {
			continue // not the model's: the random-number state, the optimizer's, the step counter
		}
		key, l, ok := authorsName(path, v.Name())
		if !ok {
			errs = append(errs, fmt.Errorf("pytorch: variable %s has no counterpart in the authors' model", v.ScopeAndName()))
			continue
		}
		out = append(out, mapped{v, key, l})
	}
	return out, errors.Join(errs...)
}

// authorsName is the authors' name of our variable name in the scope path.
func authorsName(path []string, name string) (string, layout, bool) {
	linear := func(prefix string) (string, layout, bool) { // nn.Linear
		switch name {
		case "weights":
			return prefix + ".weight", transposed, true
		case "biases":
			return prefix + ".bias", same, true
		}
		return "", 0, false
	}
	batchNorm := func(prefix string) (string, layout, bool) { // nn.BatchNorm1d
		switch name {
		case "gamma":
			return prefix + ".weight", same, true
		case "beta":
			return prefix + ".bias", same, true
		case "running_mean", "running_var":
			return prefix + "." + name, same, true
		}
		return "", 0, false
	}
	encoder := func(prefix string, rest []string) (string, layout, bool) { // their LINEAR or MLP
		switch {
		case slices.Equal(rest, []string{"dense"}):
			return linear(prefix + ".input")
		case slices.Equal(rest, []string{"mlp", "dense_0", "dense"}):
			return linear(prefix + ".input")
		case slices.Equal(rest, []string{"mlp", "batch_norm"}):
			return batchNorm(prefix + ".input_nr.bn")
		case slices.Equal(rest, []string{"mlp", "dense_1", "dense"}):
			return linear(prefix + ".output")
		}
		return "", 0, false
	}
	table := func(prefix string, p string) (string, layout, bool) { // feature_j of OGB's encoders
		j, ok := strings.CutPrefix(p, "feature_")
		if _, err := strconv.Atoi(j); !ok || err != nil || name != "embeddings" {
			return "", 0, false
		}
		return prefix + "." + j + ".weight", rows, true
	}
	switch {
	case len(path) == 3 && path[0] == "input" && path[1] == "atom":
		return table("atom_encoder.embed_v.atom_embedding_list", path[2])
	case len(path) == 2 && path[0] == "input" && path[1] == "marking" && name == "embeddings":
		return "atom_encoder.embed_d.weight", rows, true
	case len(path) == 3 && path[0] == "head" && path[2] == "dense":
		part := map[string]string{"head_0": "input", "head_1": "output"}[path[1]]
		if part == "" {
			return "", 0, false
		}
		return linear("POOLING.predict." + part)
	case len(path) >= 2 && strings.HasPrefix(path[0], "sab_"):
		l, err := strconv.Atoi(strings.TrimPrefix(path[0], "sab_"))
		if err != nil {
			return "", 0, false
		}
		layer := strconv.Itoa(l)
		if path[1] == "batch_norm" && len(path) == 2 {
			return batchNorm("BNORM_RELUs." + layer + ".bn")
		}
		if path[1] == "update" {
			return encoder("CAT_ENCODERs."+layer, path[2:])
		}
		agg := product.Name(path[1]).Authors()
		if agg == "" {
			return "", 0, false
		}
		rest := path[2:]
		attn := "MPNNs." + layer + "." + agg + ".attn_layer"
		switch {
		case len(rest) == 0 && name == "epsilon":
			return "EPSs." + layer + "." + agg, unsqueezed, true
		case len(rest) == 0 && strings.HasPrefix(name, "att_"):
			return attn + "." + name, unsqueezed, true
		case len(rest) == 0 && name == "bias":
			return attn + ".bias", same, true
		case slices.Equal(rest, []string{"lin", "dense"}) && name == "weights":
			return attn + ".lin.weight", transposed, true
		case slices.Equal(rest, []string{"lin_edge", "dense"}) && name == "weights":
			return attn + ".lin_edge.weight", transposed, true
		case len(rest) == 2 && rest[0] == "bond":
			return table("EDGE_ENCODER."+layer+"."+agg+".embed.bond_embedding_list", rest[1])
		}
		return encoder("POINT_ENCODERs."+layer+"."+agg, rest)
	}
	return "", 0, false
}

// A Report says what Import left out of the state dict: tensors the model does not need for
// this data (embedding tables of feature columns the data does not have or the authors' code
// does not read, model.AuthorsBonds; BatchNorm's step counters), by name.
type Report struct {
	Unused []string
}

// maxErrors is how many mismatches Import names before it only counts the rest.
const maxErrors = 12

// encoderTable matches the tables of OGB's atom and bond encoders; its group is the column.
var encoderTable = regexp.MustCompile(`\.(?:atom|bond)_embedding_list\.(\d+)\.weight$`)

// Import sets the variables of the Subgraphormer built in ctx (configured by c, e.g. by
// training.BuildModel with Config.Params) to the tensors of sd, the state_dict of the authors'
// model of the same configuration (authorsNames gives the correspondence). Every tensor of the
// model must be in sd with its shape (embedding tables may have more rows than the data
// indexes; the rest are left out), and every tensor of sd must be used, except those Report
// lists. Errors name each tensor missing, unexpected or of the wrong shape (both shapes).
func Import(ctx *context.Context, sd *StateDict, c model.Config) (*Report, error) {
	names, err := authorsNames(ctx, c)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	var errs []error
	fit := 0
	for _, m := range names {
		key := m.key
		t, ok := sd.Tensors[key]
		if old := strings.TrimSuffix(key, ".lin.weight") + ".lin_src.weight"; !ok && strings.HasSuffix(key, ".lin.weight") {
			// PyG before 2.5 names GATConv's map lin_src (and lin_dst, the same tensor).
			if t, ok = sd.Tensors[old]; ok {
				key = old
				dst := strings.TrimSuffix(old, "_src.weight") + "_dst.weight"
				if d, found := sd.Tensors[dst]; found && !slices.Equal(d.Values, t.Values) {
					errs = append(errs, fmt.Errorf("%s differs from %s: want the one map of GATConv(in_channels=int)", dst, old))
				}
				used[dst] = true
			}
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%s: missing from the checkpoint (the model the configuration describes has it, as %s %v)", key, m.v.ScopeAndName(), m.v.Shape().Dimensions))
			continue
		}
		used[key] = true
		values, err := fromAuthors(t, m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := model.SetFloats(m.v, values); err != nil {
			errs = append(errs, err)
			continue
		}
		fit++
	}
	report := &Report{}
	for _, key := range sd.Names {
		switch {
		case used[key]:
		case strings.HasSuffix(key, ".num_batches_tracked"):
			report.Unused = append(report.Unused, key)
		case encoderTable.MatchString(key):
			// A table of a feature column the data does not have (ZINC has one atom and one
			// bond column; OGB's encoders have 9 and 3), or a bond table their code never reads
			// (model.AuthorsBonds): the model does not use it.
			prefix := key[:encoderTable.FindStringSubmatchIndex(key)[2]]
			if slices.ContainsFunc(names, func(m mapped) bool { return strings.HasPrefix(m.key, prefix) }) {
				report.Unused = append(report.Unused, key)
			} else {
				errs = append(errs, fmt.Errorf("%s: not part of the model the configuration describes", key))
			}
		default:
			errs = append(errs, fmt.Errorf("%s %v: not part of the model the configuration describes (check num_layer, aggs, the PE and the layer encoders)", key, sd.Tensors[key].Shape))
		}
	}
	if len(errs) > maxErrors {
		errs = append(errs[:maxErrors], fmt.Errorf("and %d more", len(errs)-maxErrors))
	}
	if len(errs) > 0 {
		summary := fmt.Errorf("%d of the model's %d tensors found with their shape among the checkpoint's %d", fit, len(names), len(sd.Names))
		return nil, errors.Join(append([]error{summary}, errs...)...)
	}
	return report, nil
}

// fromAuthors returns the values of the authors' tensor t in our variable's order, checking
// its shape.
func fromAuthors(t Tensor, m mapped) ([]float64, error) {
	ours := m.v.Shape().Dimensions
	want := authorsShape(ours, m.layout)
	ok := slices.Equal(t.Shape, want)
	if m.layout == rows { // at least our rows, of our width
		ok = len(t.Shape) == 2 && t.Shape[1] == ours[1] && t.Shape[0] >= ours[0]
	}
	if !ok {
		return nil, fmt.Errorf("%s: shape %v in the checkpoint, but the model the configuration describes wants %v (%s %v)", m.key, t.Shape, want, m.v.ScopeAndName(), ours)
	}
	switch m.layout {
	case transposed:
		return transpose(t.Values, t.Shape[0], t.Shape[1]), nil
	case rows:
		return t.Values[:ours[0]*ours[1]], nil
	}
	return t.Values, nil
}

// transpose returns the row-major rows × cols matrix values transposed (nn.Linear's [out, in]
// against GoMLX's [in, out]).
func transpose(values []float64, rows, cols int) []float64 {
	out := make([]float64, len(values))
	for i := range rows {
		for j := range cols {
			out[j*rows+i] = values[i*cols+j]
		}
	}
	return out
}

// authorsShape is the shape of the authors' tensor of a variable of shape ours.
func authorsShape(ours []int, l layout) []int {
	switch l {
	case transposed:
		return []int{ours[1], ours[0]}
	case unsqueezed:
		return append([]int{1}, ours...)
	}
	return slices.Clone(ours)
}

// Export returns the state_dict of the authors' model equal to the Subgraphormer built in ctx
// (configured by c): every tensor their model of the same configuration has, by its name, in
// float32, which their code loads with load_state_dict(strict=True). Embedding tables get the
// rows of OGB's encoders (data.AtomFeatureDims, data.BondFeatureDims), the rows and tables
// beyond the data's zero; BatchNorm's step counters are 0.
func Export(ctx *context.Context, c model.Config) (*StateDict, error) {
	names, err := authorsNames(ctx, c)
	if err != nil {
		return nil, err
	}
	sd := &StateDict{Tensors: map[string]Tensor{}}
	add := func(key string, t Tensor) {
		sd.Names = append(sd.Names, key)
		sd.Tensors[key] = t
	}
	tables := map[string]Tensor{} // prefix of an encoder's tables → one of them, for its width
	for _, m := range names {
		values, err := model.Floats(m.v)
		if err != nil {
			return nil, err
		}
		ours := m.v.Shape().Dimensions
		t := Tensor{Shape: authorsShape(ours, m.layout), DType: "float32", Values: values}
		switch m.layout {
		case transposed:
			t.Values = transpose(values, ours[0], ours[1])
		case rows:
			if loc := encoderTable.FindStringSubmatchIndex(m.key); loc != nil {
				j, _ := strconv.Atoi(m.key[loc[2]:loc[3]])
				dims := data.AtomFeatureDims
				if strings.Contains(m.key, "bond_embedding_list") {
					dims = data.BondFeatureDims
				}
				if j < len(dims) && dims[j] > ours[0] {
					t.Shape[0] = dims[j]
					t.Values = make([]float64, dims[j]*ours[1])
					copy(t.Values, values)
				}
				tables[m.key[:loc[2]]] = t // "….atom_embedding_list."
			}
		}
		add(m.key, t)
		if strings.HasSuffix(m.key, ".running_var") {
			add(strings.TrimSuffix(m.key, "running_var")+"num_batches_tracked", Tensor{DType: "int64", Values: []float64{0}})
		}
	}
	// The tables of OGB's encoders for the feature columns the data does not have.
	for _, prefix := range slices.Sorted(maps.Keys(tables)) {
		dims := data.AtomFeatureDims
		if strings.Contains(prefix, "bond_embedding_list") {
			dims = data.BondFeatureDims
		}
		width := tables[prefix].Shape[1]
		for j, n := range dims {
			key := prefix + strconv.Itoa(j) + ".weight"
			if _, ok := sd.Tensors[key]; !ok {
				add(key, Tensor{Shape: []int{n, width}, DType: "float32", Values: make([]float64, n*width)})
			}
		}
	}
	return sd, nil
}
