package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/internal/report"
	"github.com/sgformer/sgformer/sgformer/recipe"
)

// The model of docs/devices.md: a ZINC-12k training step on 1 to 8 GPUs built from the committed
// measurements (what scripts/bench-devices.sh measured on XLA's CPU devices is the template
// templates/devices-cpu.md.tmpl).

// stepModel is a data-parallel training step on n devices: the single-device step's compute
// divided among them, plus the collectives, each a ring over the n devices (an all-reduce sends
// 2(n−1)/n of its bytes per device, an all-gather (n−1)/n), at a link bandwidth per device and
// direction, and a fixed latency per collective. It assumes a perfect split of the compute (no
// imbalance, padding or work the partitioner repeats on every device) and no overlap of compute
// and communication.
type stepModel struct {
	compute                  float64 // seconds of the step on one device
	gatherBytes, reduceBytes float64 // per step, of the global tensors
	ops                      int     // collectives per step
	bandwidth                float64 // bytes per second, per device and direction
	latency                  float64 // seconds per collective
}

// communication returns the seconds of the step's collectives on n devices.
func (m stepModel) communication(n int) float64 {
	if n == 1 {
		return 0
	}
	f := float64(n-1) / float64(n)
	return (f*m.gatherBytes+2*f*m.reduceBytes)/m.bandwidth + float64(m.ops)*m.latency
}

// step returns the seconds of the step on n devices.
func (m stepModel) step(n int) float64 { return m.compute/float64(n) + m.communication(n) }

// Interconnects, the vendor's figures (NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: "NVIDIA
// NVLink: 900GB/s, PCIe Gen5: 128GB/s", both totals of the two directions), per device and
// direction.
var interconnects = []struct {
	name      string
	bandwidth float64
}{
	{"NVLink 4 (H100 SXM, 900 GB/s both directions)", 450e9},
	{"PCIe Gen5 x16 (128 GB/s both directions)", 64e9},
}

// collectiveLatency is the assumed fixed cost of one collective within a node (NCCL's small
// messages take some ten microseconds): a stated assumption, not a measurement.
const collectiveLatency = 20e-6

// zincTrainGraphs is ZINC-12k's training split, as the paper states it (App. "Datasets":
// 10,000, 1,000 and 1,000 graphs).
const zincTrainGraphs = 10000

// scalingSection renders the model of a ZINC-12k training step (Subgraphormer + PE, the full
// bag) on 1, 2, 4 and 8 GPUs: the compute of our training epoch on one GPU (the latest
// speed:sparse of the GPU results in gpuDir), per step; the communication of the step measured
// on 2 CPU devices (collectivesFile's totals) scaled to ZINC's batch by product nodes × width ×
// layers, ZINC's product nodes per graph from cpuFile's preprocessing of zinc12k.
func scalingSection(collectivesFile, cpuFile, gpuDir string) func(root string) (string, error) {
	return func(root string) (string, error) {
		col, err := record.Read(filepath.Join(root, collectivesFile))
		if err != nil {
			return "", err
		}
		cpu, err := record.Read(filepath.Join(root, cpuFile))
		if err != nil {
			return "", err
		}
		var missing error
		value := func(recs record.Set, file, part, what string) float64 {
			v, ok := recs.Value(part, what, "")
			if !ok && missing == nil {
				missing = fmt.Errorf("%s: no %q in part %q", file, what, part)
			}
			return v
		}
		ops := int(value(col, collectivesFile, "totals", "collectives"))
		gatherBytes := value(col, collectivesFile, "totals", "all-gather bytes")
		reduceBytes := value(col, collectivesFile, "totals", "all-reduce bytes")
		measuredNodes := int(value(col, collectivesFile, "totals", "largest all-gather nodes"))
		width := int(value(col, collectivesFile, "totals", "largest all-gather width"))
		productNodes := value(cpu, cpuFile, "cli preprocess zinc12k cold", "product_nodes")
		graphs := value(cpu, cpuFile, "cli preprocess zinc12k cold", "graphs")
		if missing != nil {
			return "", missing
		}
		synthetic, _ := recipe.At("synthetic", 1)
		measured, _, err := report.ConfigOf(synthetic)
		if err != nil {
			return "", err
		}
		zincParams, _ := recipe.At("zinc12k", 1)
		zinc, _, err := report.ConfigOf(zincParams)
		if err != nil {
			return "", err
		}
		if width != measured.Model.Hidden {
			return "", fmt.Errorf("%s: the largest all-gather is %d wide, the synthetic recipe's hidden width %d", collectivesFile, width, measured.Model.Hidden)
		}
		paperEpoch := report.RunTimeZINCTable.Row(report.SubgraphormerPE).Cells[0].Mean
		gpu, err := record.Read(filepath.Join(root, gpuDir, gpuresult.RecordsFile))
		if err != nil {
			return "", err
		}
		ours := latest(gpu, "speed:sparse", "train epoch")
		if len(ours) == 0 {
			return "", fmt.Errorf("%s: no training epoch of speed:sparse", gpuDir)
		}
		epoch := ours[0].Value
		steps := math.Ceil(zincTrainGraphs / float64(zinc.BatchSize))
		nodes := float64(zinc.BatchSize) * productNodes / graphs
		scale := nodes * float64(zinc.Model.Hidden*zinc.Model.Layers) / float64(measuredNodes*width*measured.Model.Layers)
		zincOps := ops * zinc.Model.Layers / measured.Model.Layers

		var b strings.Builder
		fmt.Fprintf(&b, "Inputs: the measured step (`%s`: the synthetic recipe, %d layers of width %d, a batch of %s product nodes) has %d collectives whose results total %s bytes (all-gathers %s, all-reduces %s). "+
			"ZINC-12k's full bag has %.1f product nodes per graph (`%s`: %s over %s graphs), %s per batch of %d; its recipe has %d layers of width %d, so the step's communication is taken as %.0f× the measured one "+
			"(%.2f GB: all-gathers %.2f, all-reduces %.2f) in %d collectives (the measured count × %d/%d layers). "+
			"The compute is this implementation's training epoch on one %s (`%s/`, the sparse execution, the device call of %s: %.2f s) over its %.0f steps (%s training graphs in batches of %d): %.1f ms a step; "+
			"the paper's A100 epoch, for comparison, is %.2f s. Each collective costs %.0f µs besides its bytes (assumed).\n\n",
			collectivesFile, measured.Model.Layers, width, report.Thousands(measuredNodes), ops, report.Thousands(int(gatherBytes+reduceBytes)), report.Thousands(int(gatherBytes)), report.Thousands(int(reduceBytes)),
			productNodes/graphs, cpuFile, report.Thousands(int(productNodes)), report.Thousands(int(graphs)), report.Thousands(int(math.Round(nodes))), zinc.BatchSize, zinc.Model.Layers, zinc.Model.Hidden, scale,
			scale*(gatherBytes+reduceBytes)/1e9, scale*gatherBytes/1e9, scale*reduceBytes/1e9, zincOps, zinc.Model.Layers, measured.Model.Layers,
			ours[0].Machine, gpuDir, ours[0].Date, epoch, steps, report.Thousands(zincTrainGraphs), zinc.BatchSize, 1e3*epoch/steps, paperEpoch, 1e6*collectiveLatency)
		b.WriteString("| interconnect | GPUs | compute, ms/step | communication, ms/step | step, ms | speed-up | epoch, s |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, ic := range interconnects {
			m := stepModel{compute: epoch / steps, gatherBytes: scale * gatherBytes, reduceBytes: scale * reduceBytes, ops: zincOps, bandwidth: ic.bandwidth, latency: collectiveLatency}
			for _, n := range []int{1, 2, 4, 8} {
				fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %.1f | %.1f× | %.2f |\n", ic.name, n, 1e3*m.compute/float64(n), 1e3*m.communication(n), 1e3*m.step(n), m.step(1)/m.step(n), steps*m.step(n))
			}
		}
		return b.String(), nil
	}
}
