package main

import "github.com/sgformer/sgformer/internal/scaling"

// The model of docs/devices.md (what scripts/bench-devices.sh measured on XLA's CPU devices is
// the template templates/devices-cpu.md.tmpl).

// scalingSection renders the model of a ZINC-12k training step (Subgraphormer + PE, the full
// bag) on 1, 2, 4 and 8 GPUs (scaling.ZINC) by templates/devices-scaling.md.tmpl.
func scalingSection(collectivesFile, cpuFile, gpuDir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		m, err := scaling.ZINC(root, collectivesFile, cpuFile, gpuDir)
		if err != nil {
			return "", err
		}
		return renderTemplate("devices-scaling", collectivesFile, nil, map[string]any{"M": m, "Collectives": collectivesFile, "CPU": cpuFile, "GPU": gpuDir,
			"TrainGraphs": scaling.TrainGraphs, "Latency": scaling.Latency})
	}
}
