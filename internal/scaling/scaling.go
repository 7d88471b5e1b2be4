// Package scaling is the model of docs/devices.md: a ZINC-12k training step (Subgraphormer + PE,
// the full bag) split across 1, 2, 4 and 8 GPUs, built from the committed measurements: the
// collectives of a step measured on 2 of XLA's CPU devices, ZINC-12k's product nodes, and the
// training epoch on one GPU.
package scaling

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
	"github.com/sgformer/sgformer/internal/report"
	"github.com/sgformer/sgformer/sgformer/recipe"
)

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

// Latency is the assumed fixed cost of one collective within a node, in seconds (NCCL's small
// messages take some ten microseconds): a stated assumption, not a measurement.
const Latency = 20e-6

// TrainGraphs is ZINC-12k's training split, as the paper states it (App. "Datasets": 10,000,
// 1,000 and 1,000 graphs).
const TrainGraphs = 10000

// A Model is the step model and what it is built from: the measured step (the synthetic
// recipe's Layers and Width, its largest all-gather's Nodes, its Ops collectives and their
// bytes), ZINC-12k's product nodes and graphs (the preprocessing's) and its product nodes per
// batch (PerBatch, rounded), its recipe, the scale from the measured step's communication to
// ZINC's, the GPU epoch (measured on Machine on Date) it divides into Steps steps, the paper's
// A100 epoch, and the Rows: per interconnect and number of GPUs.
type Model struct {
	Layers, Width, Nodes, Ops                 int
	GatherBytes, ReduceBytes                  float64
	ProductNodes, Graphs                      float64
	PerBatch                                  int
	ZINCLayers, ZINCWidth, BatchSize, ZINCOps int
	Scale                                     float64
	Machine, Date                             string
	Epoch, Steps, PaperEpoch                  float64
	Rows                                      []Row
}

// A Row is the step on GPUs devices linked by Interconnect: its compute, its communication and
// the step in milliseconds, its speed-up over one device, and the epoch in seconds.
type Row struct {
	Interconnect                                       string
	GPUs                                               int
	ComputeMS, CommunicationMS, StepMS, SpeedUp, Epoch float64
}

// ZINC builds the model from the records under root: the totals of the collectives
// (collectivesFile), ZINC-12k's cold preprocessing (cpuFile) and the latest sparse training
// epoch of the GPU results in gpuDir.
func ZINC(root, collectivesFile, cpuFile, gpuDir string) (*Model, error) {
	col, err := record.Read(filepath.Join(root, collectivesFile))
	if err != nil {
		return nil, err
	}
	cpu, err := record.Read(filepath.Join(root, cpuFile))
	if err != nil {
		return nil, err
	}
	var missing error
	value := func(recs record.Set, file, part, what string) float64 {
		v, ok := recs.Value(part, what, "")
		if !ok && missing == nil {
			missing = fmt.Errorf("%s: no %q in part %q", file, what, part)
		}
		return v
	}
	m := &Model{Ops: int(value(col, collectivesFile, "totals", "collectives")),
		GatherBytes:  value(col, collectivesFile, "totals", "all-gather bytes"),
		ReduceBytes:  value(col, collectivesFile, "totals", "all-reduce bytes"),
		Nodes:        int(value(col, collectivesFile, "totals", "largest all-gather nodes")),
		Width:        int(value(col, collectivesFile, "totals", "largest all-gather width")),
		ProductNodes: value(cpu, cpuFile, "cli preprocess zinc12k cold", "product_nodes"),
		Graphs:       value(cpu, cpuFile, "cli preprocess zinc12k cold", "graphs")}
	if missing != nil {
		return nil, missing
	}
	synthetic, _ := recipe.At("synthetic", 1)
	measured, _, err := report.ConfigOf(synthetic)
	if err != nil {
		return nil, err
	}
	zincParams, _ := recipe.At("zinc12k", 1)
	zinc, _, err := report.ConfigOf(zincParams)
	if err != nil {
		return nil, err
	}
	if m.Width != measured.Model.Hidden {
		return nil, fmt.Errorf("%s: the largest all-gather is %d wide, the synthetic recipe's hidden width %d", collectivesFile, m.Width, measured.Model.Hidden)
	}
	gpu, err := record.Read(filepath.Join(root, gpuDir, gpuresult.RecordsFile))
	if err != nil {
		return nil, err
	}
	ours := gpu.Latest(func(r record.Record) bool { return r.Part == "speed:sparse" && r.What == "train epoch" })
	if len(ours) == 0 {
		return nil, fmt.Errorf("%s: no training epoch of speed:sparse", gpuDir)
	}
	m.Layers, m.ZINCLayers, m.ZINCWidth, m.BatchSize = measured.Model.Layers, zinc.Model.Layers, zinc.Model.Hidden, zinc.BatchSize
	m.Machine, m.Date, m.Epoch = ours[0].Machine, ours[0].Date, ours[0].Value
	m.PaperEpoch = report.RunTimeZINCTable.Row(report.SubgraphormerPE).Cells[0].Mean
	m.Steps = math.Ceil(TrainGraphs / float64(m.BatchSize))
	nodes := float64(m.BatchSize) * m.ProductNodes / m.Graphs
	m.PerBatch = int(math.Round(nodes))
	m.Scale = nodes * float64(m.ZINCWidth*m.ZINCLayers) / float64(m.Nodes*m.Width*m.Layers)
	m.ZINCOps = m.Ops * m.ZINCLayers / m.Layers
	for _, ic := range interconnects {
		s := stepModel{compute: m.Epoch / m.Steps, gatherBytes: m.Scale * m.GatherBytes, reduceBytes: m.Scale * m.ReduceBytes, ops: m.ZINCOps, bandwidth: ic.bandwidth, latency: Latency}
		for _, n := range []int{1, 2, 4, 8} {
			m.Rows = append(m.Rows, Row{ic.name, n, 1e3 * s.compute / float64(n), 1e3 * s.communication(n), 1e3 * s.step(n), s.step(1) / s.step(n), m.Steps * s.step(n)})
		}
	}
	return m, nil
}
