package model

import (
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"
)

// ParameterCounts returns the number of trainable parameters of the model built in ctx (its
// variables must exist): ours, whose embedding tables have the rows of the data's vocabularies,
// and, for Subgraphormer, the number the authors' get_model_params reports for the same
// configuration (reference; 0 for the baselines). Their model embeds atoms with OGB's
// AtomEncoder and bonds with one BondEncoder per layer and attention, whatever the dataset, and
// get_model_params counts each AtomEncoder as 30 rows and each BondEncoder as 5 rows of width
// hidden (its "unused embedding rows" rule); every other parameter is the same in both models.
func ParameterCounts(ctx *context.Context, c Config) (ours, reference int) {
	var atom, bond int
	encoders := map[string]bool{} // the scopes holding a bond embedding, one per layer and attention
	for v := range ctx.IterVariables() {
		if !v.Trainable {
			continue
		}
		size := v.Shape().Size()
		ours += size
		switch scope := v.Scope(); {
		case strings.HasPrefix(scope, "/input/atom/"):
			atom += size
		case strings.Contains(scope, "/bond/"):
			bond += size
			encoders[scope[:strings.Index(scope, "/bond/")]] = true
		}
	}
	if c.Model != Subgraphormer {
		return ours, 0
	}
	return ours, ours - atom - bond + 30*c.Hidden + 5*c.Hidden*len(encoders)
}
