package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/pytorch"
	"github.com/sgformer/sgformer/sgformer/task"
)

// settingsList is a repeatable flag: each use adds a value.
type settingsList []string

func (s *settingsList) String() string     { return strings.Join(*s, " ") }
func (s *settingsList) Set(v string) error { *s = append(*s, v); return nil }

func importCmd(args []string, io stdio) error {
	fs := newFlagSet("import")
	describe(fs, `usage: sgformer import --from-pytorch MODEL.pt --config CONFIG.yaml --out RUN [flags]

Import a model trained with the authors' PyTorch code (BarSGuy/Subgraphormer) as a run
directory: eval, predict and train --resume (fine-tuning) then use it. MODEL.pt is what
torch.save wrote: the state_dict or the whole model. CONFIG.yaml is the configuration it was
trained with: their config/config.yaml layout, a wandb sweep file or a run's config, with
--set for their command line's overrides (--set model__num_layer=3).`)
	from := fs.String("from-pytorch", "", "the authors' model, as torch.save wrote it (state_dict or whole module)")
	config := fs.String("config", "", "its configuration in the authors' YAML layout (config/config.yaml, a sweep or a run's config.yaml)")
	var sets settingsList
	fs.Var(&sets, "set", "override a setting of the configuration with their command line's name, key=value (repeatable): model__num_layer=3")
	out := fs.String("out", "", "run directory to write")
	dataDir := fs.String("data-dir", "", "directory holding the dataset's files (default: $SGFORMER_DATA/FOLDER, ../shared/data/FOLDER, or where sgformer download puts them)")
	var noVerify bool
	registerNoVerify(fs, &noVerify)
	backendName := fs.String("backend", "", "GoMLX backend the model is built on (default $GOMLX_BACKEND, else xla:cpu if installed, else go)")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	for name, v := range map[string]string{"--from-pytorch MODEL.pt": *from, "--config CONFIG.yaml": *config, "--out RUN": *out} {
		if v == "" {
			return usagef("%s is required", name)
		}
	}
	cfg, err := pytorch.ReadConfig(*config, sets)
	if err != nil {
		return err
	}
	src := task.Source{NoVerify: noVerify}
	if src.Dataset, err = cfg.Dataset(); err != nil {
		return err
	}
	if *dataDir != "" {
		if src.DataDir, err = filepath.Abs(*dataDir); err != nil {
			return err
		}
	}
	ds, err := task.Dataset(src)
	if err != nil {
		return err
	}
	src.Spec = model.Spec{NodeVocab: ds.NodeVocab, EdgeVocab: ds.EdgeVocab, EdgeMin: ds.EdgeMin, Tasks: ds.Tasks}
	src.LabelNames = ds.LabelNames
	be, err := newBackend(*backendName, io)
	if err != nil {
		return err
	}
	report, err := pytorch.ImportRun(*from, cfg, src, be, *out)
	if err != nil {
		return err
	}
	return writeJSON(io.out, map[string]any{"run": *out, "dataset": src.Dataset, "from": *from, "unused": report.Unused})
}

func exportCmd(args []string, io stdio) error {
	fs := newFlagSet("export")
	describe(fs, `usage: sgformer export --run RUN --to-pytorch MODEL.pt [--config-out CONFIG.yaml]

Write the weights of a Subgraphormer run (its best epoch) as a state_dict of the authors'
PyTorch model (BarSGuy/Subgraphormer): their code loads it with
model.load_state_dict(torch.load("MODEL.pt")) into the model of the configuration
--config-out writes. A warning says where their code computes another function (a run
trained with bond_encoder=ogb on OGB's bond features, or another PE than theirs).`)
	run := fs.String("run", "", "run directory written by sgformer train or sgformer import")
	to := fs.String("to-pytorch", "", "state_dict file to write (torch.save's format)")
	configOut := fs.String("config-out", "", "also write the configuration their code builds the model from (their config/config.yaml layout)")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *run == "" || *to == "" {
		return usagef("--run RUN and --to-pytorch MODEL.pt are required")
	}
	differences, err := pytorch.ExportRun(*run, *to, *configOut)
	if err != nil {
		return err
	}
	for _, d := range differences {
		fmt.Fprintf(io.err, "warning: their code will compute another function than this run: %s\n", d)
	}
	return nil
}
