package pytorch

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"

	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/preprocess"
	"github.com/sgformer/sgformer/sgformer/task"
	"github.com/sgformer/sgformer/sgformer/training"
)

// ImportRun writes the run directory out from the authors' model saved at modelPath (a
// state_dict or a whole module, ReadStateDict) and configured by cfg: the model cfg describes
// (Config.Params) for the data of src (whose Spec must be set: task.Dataset gives it),
// built on be, with the checkpoint's weights (Import), as a run before its first epoch
// (training.NewRun) that eval, predict and train --resume accept. Nothing is written when
// anything does not match.
func ImportRun(modelPath string, cfg Config, src task.Source, be backends.Backend, out string) (*Report, error) {
	params, err := cfg.Params()
	if err != nil {
		return nil, err
	}
	tasks, err := cfg.Tasks()
	if err != nil {
		return nil, err
	}
	if tasks != src.Spec.Tasks {
		return nil, fmt.Errorf("model__final_dim = %d, but %s has %d targets", tasks, src.Dataset, src.Spec.Tasks)
	}
	sd, err := ReadStateDict(modelPath)
	if err != nil {
		return nil, err
	}
	ctx, c, err := training.BuildModel(be, src.Spec, params)
	if err != nil {
		return nil, err
	}
	report, err := Import(ctx, sd, c)
	if err != nil {
		return nil, fmt.Errorf("%s does not fit the model of its configuration:\n%w", modelPath, err)
	}
	if err := training.NewRun(ctx, src, out); err != nil {
		return nil, err
	}
	return report, nil
}

// ExportRun writes the weights of the run directory run (its best epoch, as eval reads them)
// as a state_dict of the authors' model (Export) to path, atomically, and if configPath is not
// empty, the configuration their code builds that model from (ConfigOf) to configPath. It
// returns the ways their code will compute another function than the run's (Differences).
func ExportRun(run, path, configPath string) (differences []string, err error) {
	ctx, src, _, err := training.OpenRun(run)
	if err != nil {
		return nil, err
	}
	c, err := model.ReadConfig(ctx)
	if err != nil {
		return nil, err
	}
	sd, err := Export(ctx, c)
	if err != nil {
		return nil, err
	}
	if configPath != "" {
		cfg, err := ConfigOf(ctx, src)
		if err != nil {
			return nil, err
		}
		if err := cfg.Write(configPath); err != nil {
			return nil, err
		}
	}
	if err := sd.Write(path); err != nil {
		return nil, err
	}
	return Differences(c, src.Spec), nil
}

// Differences lists how the authors' code computes another function than the model c on data
// of spec, from the same weights: the bond embedding of several bond columns
// (model.AuthorsBonds), and a PE computed otherwise than by their procedure.
func Differences(c model.Config, spec model.Spec) []string {
	var d []string
	if c.BondEncoder != model.AuthorsBonds && len(spec.EdgeVocab) > 1 && c.EdgeFeatures {
		d = append(d, fmt.Sprintf("%s = %s: their code embeds the %d bond feature columns with the first column's table, averaged (%s = %s); the run learned a table per column",
			model.ParamBondEncoder, c.BondEncoder, len(spec.EdgeVocab), model.ParamBondEncoder, model.AuthorsBonds))
	}
	if c.PEK > 0 && c.PEMode != preprocess.AuthorsCode {
		d = append(d, fmt.Sprintf("%s = %s: their code computes the PE by its own procedure (%s = %s)", model.ParamPEMode, c.PEMode, model.ParamPEMode, preprocess.AuthorsCode))
	}
	return d
}
