// Package gpuresult holds the records of the GPU plan: the lines of pieces.jsonl and the
// result.json of each piece, which internal/cmd/gpurun writes on the device machine, and their
// conversion (Records) into internal/record's records, which `gpu-run.sh collect` writes into
// results/zinc12k-gpu and internal/cmd/readme renders. One set of types for the writer and
// the converter keeps the two in step.
package gpuresult

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Piece is a line of pieces.jsonl: one piece of one device call.
type Piece struct {
	Piece string `json:"piece"`
	// Call is when the device call began (RFC 3339, UTC): it names the machine a timing comes
	// from (one call, one machine). Date is when the piece ended.
	Call  string `json:"call"`
	Date  string `json:"date"`
	GPU   string `json:"gpu"`   // nvidia-smi's name of the card, or "none"
	Build string `json:"build"` // the commit build/gpu was built from, or "unknown"
	// RC is the piece's exit status: 0, that of the command that failed, 124 when it was
	// stopped at the call's budget, 1 for other failures.
	RC      int     `json:"rc"`
	Seconds float64 `json:"seconds"`
	// Error says why the piece failed (empty when it did not).
	Error string `json:"error,omitempty"`
	// Result is the piece's result.json (one of the types below), or null when the piece ended
	// before writing it.
	Result json.RawMessage `json:"result"`
}

// Folder is the name of a piece's folder and tarball: the piece as given to gpu-run.sh
// (speed:sparse, zinc:0,1) with ":" and "," as "-".
func Folder(piece string) string { return strings.NewReplacer(":", "-", ",", "-").Replace(piece) }

// Skipped is the result of a piece left with too little of the call's budget to start.
type Skipped struct {
	Skipped string `json:"skipped"`
}

// SMI is what nvidia-smi's samples (every 0.5 s) over a piece came to: the mean and the
// largest of the non-zero utilisations and the largest memory.used; nulls without samples.
type SMI struct {
	UtilMean *float64 `json:"gpu_util_mean"`
	UtilMax  *float64 `json:"gpu_util_max"`
	MemMax   *float64 `json:"gpu_mem_max_mib"`
}

// Check is the check piece's result: the machine's glibc and a 1-epoch run's times.
type Check struct {
	Backend      string    `json:"backend"`
	GLIBC        string    `json:"glibc"`
	Seconds      float64   `json:"seconds"`
	EpochSeconds []float64 `json:"epoch_seconds"`
}

// Parity is the parity piece's result: the same checkpoint's validation and test MAE and
// predictions with the pure-Go backend and the other one.
type Parity struct {
	Backends   []string             `json:"backends"`
	RTol       float64              `json:"rtol"`
	MaxRelDiff float64              `json:"max_rel_diff"`
	Pass       bool                 `json:"pass"`
	Rows       map[string]ParityRow `json:"rows"` // "val", "test", "graph ID"
}

// ParityRow is one compared value.
type ParityRow struct {
	Go      float64 `json:"go"`
	Other   float64 `json:"other"`
	RelDiff float64 `json:"rel_diff"`
}

// Speed is a speed:EXEC piece's result: the epochs' times from metrics.jsonl; the steady
// epoch's training steps, of which waiting for their batches, and half its evaluation
// (validation and test, 1,000 molecules each): medians over the epochs after the first that
// compiled no program (Steady of them; the last epoch when none did); and the per-batch
// benchmarks (nil when one did not run), with the host's share of the step and the pass.
type Speed struct {
	Execution  string   `json:"execution"`
	Backend    string   `json:"backend"`
	Epochs     []Epoch  `json:"epochs"`
	Steady     int      `json:"steady_epochs"`
	TrainEpoch float64  `json:"train_epoch_s"`
	Batching   float64  `json:"batch_s"`
	TestPass   float64  `json:"test_pass_s"`
	TrainStep  *float64 `json:"bench_train_step_s"`
	Inference  *float64 `json:"bench_inference_s"`
	Batch      *float64 `json:"bench_batch_s"`
	// Of TrainStep and Inference, the seconds the host was busy launching the operation
	// (their host_ms/op; nil for benchmarks from before it was reported).
	TrainStepHost *float64 `json:"bench_train_step_host_s,omitempty"`
	InferenceHost *float64 `json:"bench_inference_host_s,omitempty"`
	SMI           SMI      `json:"smi"`
	// DeviceBytes is the training run's largest XLA program's device memory (its
	// summary.json's device_bytes; 0 where not recorded).
	DeviceBytes int64 `json:"device_bytes,omitempty"`
}

// Epoch is the time of one epoch of a run (its line of metrics.jsonl): all of it, its
// training steps, of those the waiting for batches, and how many programs it compiled.
type Epoch struct {
	Seconds      float64 `json:"seconds"`
	TrainSeconds float64 `json:"train_seconds"`
	BatchSeconds float64 `json:"batch_seconds"`
	Programs     int     `json:"programs"`
}

// PyG is the pyg piece's result, per product-graph mode ("onthefly", "precomputed").
type PyG map[string]PyGMode

// PyGMode is one run of bench/pyg/subgraphormer_pyg.py: its summary lines (one when it
// finished), nvidia-smi's samples and the largest torch.cuda.max_memory_allocated of its
// epochs (nil on the CPU).
type PyGMode struct {
	Summary []PyGSummary `json:"summary"`
	SMI     SMI          `json:"smi"`
	PeakMem *float64     `json:"peak_mem_mib"`
}

// PyGSummary is the summary line of subgraphormer_pyg.py: medians over the epochs after the
// first.
type PyGSummary struct {
	Summary bool    `json:"summary"`
	Product string  `json:"product"`
	GAT     string  `json:"gat"`
	Train   float64 `json:"train_seconds_median"`
	Test    float64 `json:"test_seconds_median"`
}

// Zinc is a zinc:S,... piece's result: how far each seed's run got.
type Zinc struct {
	Seconds float64    `json:"seconds"`
	SMI     SMI        `json:"smi"`
	Seeds   []ZincSeed `json:"seeds"`
}

// ZincSeed is one seed's run: the epochs it had before the piece and after.
type ZincSeed struct {
	Seed      int `json:"seed"`
	FromEpoch int `json:"from_epoch"`
	ToEpoch   int `json:"to_epoch"`
}

// ReadPieces reads a pieces.jsonl; errors name the file and line.
func ReadPieces(path string) ([]Piece, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pieces []Piece
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p Piece
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		pieces = append(pieces, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pieces, nil
}

// DeviceBackend is the backend the pieces train with on the device machine (a dry run on the
// CPU uses the pure-Go backend instead).
const DeviceBackend = "xla:cuda"
