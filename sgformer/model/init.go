package model

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"
)

// Initialisations (ParamInit): how a new model's weights start.
const (
	// GoMLXInit is GoMLX's initialisers: He-normal weights and embedding tables, zero biases,
	// drawn by the backend (so a seed gives a different start on each backend).
	GoMLXInit = "gomlx"
	// PyTorchInit is the start of the authors' PyTorch modules (InitPyTorch), drawn on the host:
	// a seed gives the same start on every backend.
	PyTorchInit = "pytorch"
)

// TableRows gives, per feature column, the rows of the embedding table the authors' code
// allocates for atoms and bonds (OGB's AtomEncoder and BondEncoder allocate OGB's feature sizes,
// also for ZINC's single atom and bond type column), which Xavier's bound depends on. A column
// without an entry, or with fewer rows than its vocabulary, counts the vocabulary's rows.
type TableRows struct{ Atom, Bond []int }

// InitPyTorch sets every trainable variable of a model built in ctx (by running it once) to a
// draw from the distribution the authors' PyTorch modules start it from:
//
//   - linear maps (nn.Linear: the layer encoders, MLPs and the head): weight and bias
//     uniform in ±1/√fan_in;
//   - the attention's maps and vectors (PyG's GATConv: lin, lin_edge, att_src, att_dst, att_edge):
//     Glorot-uniform, ±√(6/(fan_in + fan_out)), bias 0;
//   - atom and bond embedding tables (OGB's AtomEncoder, BondEncoder): Xavier-uniform,
//     ±√(6/(rows + width)) with rows from TableRows;
//   - the node-marking table (nn.Embedding): standard normal;
//   - BatchNorm's scale 1 and offset 0, GIN's ε 0.
//
// Each variable draws from its own random stream, fixed by seed and its scope and name: the
// start depends neither on the backend nor on the order the variables were created in. A
// trainable variable none of these rules names is an error, so that a new layer cannot keep
// GoMLX's start unnoticed.
func InitPyTorch(ctx *context.Context, seed uint64, rows TableRows) error {
	vars := map[string]*context.Variable{}
	for v := range ctx.IterVariables() {
		vars[v.ScopeAndName()] = v
	}
	for v := range ctx.IterVariables() {
		if !v.Trainable {
			continue
		}
		d, err := pytorchStart(v, vars, rows)
		if err != nil {
			return err
		}
		h := fnv.New64a()
		h.Write([]byte(v.ScopeAndName()))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		values := make([]float64, v.Shape().Size())
		for i := range values {
			values[i] = d.draw(rng)
		}
		if err := SetFloats(v, values); err != nil {
			return err
		}
	}
	return nil
}

// start is a distribution a variable starts from: uniform in ±bound, normal with standard
// deviation std, or the constant value.
type start struct {
	bound, std, value float64
}

func (d start) draw(rng *rand.Rand) float64 {
	switch {
	case d.bound > 0:
		return (2*rng.Float64() - 1) * d.bound
	case d.std > 0:
		return rng.NormFloat64() * d.std
	}
	return d.value
}

// pytorchStart is the distribution InitPyTorch draws v from, by the layer v belongs to (its
// scope, as this package's layers name them) and its name; vars holds every variable by
// ScopeAndName, for a bias to find its weights.
func pytorchStart(v *context.Variable, vars map[string]*context.Variable, rows TableRows) (start, error) {
	dims := v.Shape().Dimensions
	scope := v.Scope()
	base := scope[strings.LastIndex(scope, "/")+1:]
	parent := strings.TrimSuffix(scope, "/"+base)
	glorot := func(fanIn, fanOut int) start { return start{bound: math.Sqrt(6 / float64(fanIn+fanOut))} }
	switch name := v.Name(); {
	case name == "gamma":
		return start{value: 1}, nil
	case name == "beta" || name == "epsilon" || name == "bias": // BatchNorm offset, GIN's ε, GATConv's bias
		return start{}, nil
	case strings.HasPrefix(name, "att_") && len(dims) == 2: // GATConv's attention vectors [H, C]
		return glorot(dims[0], dims[1]), nil
	case name == "weights" && len(dims) == 2 && base == "dense" && isAttentionMap(parent):
		return glorot(dims[0], dims[1]), nil
	case name == "weights" && len(dims) == 2: // nn.Linear's weight [fan_in, fan_out]
		return start{bound: 1 / math.Sqrt(float64(dims[0]))}, nil
	case name == "biases": // nn.Linear's bias: the bound of its weight
		w, ok := vars[context.JoinScope(scope, "weights")]
		if !ok || w.Shape().Rank() != 2 {
			break
		}
		return start{bound: 1 / math.Sqrt(float64(w.Shape().Dimensions[0]))}, nil
	case name == "embeddings" && len(dims) == 2 && base == "marking": // nn.Embedding
		return start{std: 1}, nil
	case name == "embeddings" && len(dims) == 2 && strings.HasPrefix(base, "feature_"):
		var column int
		if _, err := fmt.Sscanf(base, "feature_%d", &column); err != nil {
			break
		}
		table := rows.Atom
		if strings.HasSuffix(parent, "/bond") {
			table = rows.Bond
		}
		n := dims[0]
		if column < len(table) {
			n = max(n, table[column])
		}
		return glorot(n, dims[1]), nil
	}
	return start{}, fmt.Errorf("model: no PyTorch initialisation for variable %s %s", v.ScopeAndName(), v.Shape())
}

// isAttentionMap reports whether scope is one of the attention's linear maps (GATConv's lin and
// lin_edge), whose PyG Linear starts Glorot-uniform.
func isAttentionMap(scope string) bool {
	return strings.HasSuffix(scope, "/lin") || strings.HasSuffix(scope, "/lin_edge")
}
