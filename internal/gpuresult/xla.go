package gpuresult

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// XLASummaryFile is where a speed piece's folder keeps the summary of its XLA dump (the dump
// itself, tens of megabytes, is not kept in results/).
const XLASummaryFile = "xla-summary.json"

// XLAProgram summarises one program of an XLA dump (--xla_dump_to with
// --xla_dump_hlo_as_text): what the GPU runs for it, from the HLO after XLA's optimisations
// (MODULE.sm_*_gpu_after_optimizations.txt) and the thunk sequence it executes
// (MODULE.thunk_sequence_after_thunk_passes.txt).
type XLAProgram struct {
	// Module is the HLO module's name, e.g. Trainer_0.
	Module string `json:"module"`
	// Parameters are the program's arguments (inputs, variables and optimizer state), with
	// their bytes.
	Parameters     int   `json:"parameters"`
	ParameterBytes int64 `json:"parameter_bytes"`
	// Thunks counts the thunks it runs by kind (kCustomKernel: a kernel XLA generated,
	// kCublasLtMatmul: a cuBLAS matrix product, kCopy…); a kCommandBuffer holds the others
	// as one CUDA graph.
	Thunks map[string]int `json:"thunks"`
	// Kernels counts the generated kernels by the kind of fusion XLA named them after
	// (input_scatter_fusion, gemm_fusion_dot, loop_add_fusion…), numbers dropped.
	Kernels map[string]int `json:"kernels"`
	// BytesTouched sums, over the instructions of the program's entry computation that run
	// (fusions, custom calls, copies…), the bytes of their operands and results: an upper
	// bound on the memory traffic of one execution, reads that hit in cache counted too.
	BytesTouched int64 `json:"bytes_touched"`
}

// XLASummary is the summary of an XLA dump: its programs, variable initialisation left out.
type XLASummary struct {
	Programs []XLAProgram `json:"programs"`
}

var (
	thunkLine  = regexp.MustCompile(`^\s*\d+: (k\w+)\s+\[[^\]]*\]\s*(\S*)`)
	shapeArray = regexp.MustCompile(`\b(pred|[sufc]\d+|bf16|f8\w*)\[([0-9,]*)\]`)
	trailingN  = regexp.MustCompile(`([._]\d+)+$`)
	// noTraffic are HLO instructions that move no memory of their own.
	noTraffic = map[string]bool{"parameter": true, "bitcast": true, "get-tuple-element": true, "tuple": true, "constant": true}
)

// SummarizeXLADump summarises the programs of the XLA dump in dir. A module dumped twice (XLA
// names a program compiled again, or loaded from a cache, anew) is summarised once.
func SummarizeXLADump(dir string) (XLASummary, error) {
	optimized, err := filepath.Glob(filepath.Join(dir, "module_*.sm_*_gpu_after_optimizations.txt"))
	if err != nil {
		return XLASummary{}, err
	}
	sort.Strings(optimized)
	var s XLASummary
	seen := map[string]bool{}
	for _, hlo := range optimized {
		base := strings.SplitN(filepath.Base(hlo), ".sm_", 2)[0] // module_NNNN.NAME
		_, module, _ := strings.Cut(base, ".")
		if module == "VariableInitialization" || seen[module] {
			continue
		}
		seen[module] = true
		p := XLAProgram{Module: module, Thunks: map[string]int{}, Kernels: map[string]int{}}
		if err := p.readHLO(hlo); err != nil {
			return s, err
		}
		if err := p.readThunks(filepath.Join(dir, base+".thunk_sequence_after_thunk_passes.txt")); err != nil {
			return s, err
		}
		s.Programs = append(s.Programs, p)
	}
	if len(s.Programs) == 0 {
		return s, fmt.Errorf("%s: no program optimised for a GPU (MODULE.sm_*_gpu_after_optimizations.txt)", dir)
	}
	return s, nil
}

// readThunks counts the thunks of a thunk sequence file.
func (p *XLAProgram) readThunks(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := thunkLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		p.Thunks[m[1]]++
		if m[1] == "kCustomKernel" || m[1] == "kKernel" {
			p.Kernels[trailingN.ReplaceAllString(m[2], "")]++
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readHLO reads the parameters and the bytes touched of the entry computation of an HLO
// text file.
func (p *XLAProgram) readHLO(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20) // the ENTRY line lists every parameter
	bytesOf := map[string]int64{}
	entry := false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if !entry {
			entry = strings.HasPrefix(text, "ENTRY ")
			continue
		}
		if text == "}" {
			return nil
		}
		name, shape, op, operands, ok := parseInstruction(text)
		if !ok {
			return fmt.Errorf("%s:%d: not an HLO instruction: %.80q", path, line, text)
		}
		b, err := shapeBytes(shape)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		bytesOf[name] = b
		switch {
		case op == "parameter":
			p.Parameters++
			p.ParameterBytes += b
		case !noTraffic[op]:
			p.BytesTouched += b
			for _, o := range operands {
				p.BytesTouched += bytesOf[o]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return fmt.Errorf("%s: no entry computation", path)
}

// parseInstruction splits an HLO instruction line, "[ROOT ]%name = SHAPE op(%a, %b), attrs",
// into its name, result shape, opcode and the names of its operands.
func parseInstruction(line string) (name, shape, op string, operands []string, ok bool) {
	line = strings.TrimPrefix(strings.TrimSpace(line), "ROOT ")
	name, rest, ok := strings.Cut(line, " = ")
	if !ok || !strings.HasPrefix(name, "%") {
		return "", "", "", nil, false
	}
	name = name[1:]
	end := strings.IndexByte(rest, ' ') // an array shape has no spaces; a tuple's is in ( )
	if strings.HasPrefix(rest, "(") {
		end = closing(rest, 0) + 1
	}
	if end <= 0 || end >= len(rest) {
		return "", "", "", nil, false
	}
	shape, rest = rest[:end], strings.TrimSpace(rest[end:])
	open := strings.IndexByte(rest, '(')
	if open <= 0 {
		return "", "", "", nil, false
	}
	op = rest[:open]
	close := closing(rest, open)
	if close < 0 {
		return "", "", "", nil, false
	}
	for _, a := range strings.Split(rest[open+1:close], ",") {
		if a = strings.TrimSpace(a); strings.HasPrefix(a, "%") {
			operands = append(operands, a[1:])
		}
	}
	return name, shape, op, operands, true
}

// closing is the index of the parenthesis closing the one at s[open], or -1.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// shapeBytes is the size of an HLO shape, an array's or a tuple's (the sum of its arrays).
func shapeBytes(shape string) (int64, error) {
	var total int64
	for _, m := range shapeArray.FindAllStringSubmatch(shape, -1) {
		bits := 8
		switch t := m[1]; {
		case t == "pred":
		case t == "bf16":
			bits = 16
		case strings.HasPrefix(t, "f8"):
		default:
			n, err := strconv.Atoi(t[1:])
			if err != nil {
				return 0, fmt.Errorf("shape %s: element type %s", shape, t)
			}
			bits = n
		}
		n := int64(1)
		for _, d := range strings.Split(m[2], ",") {
			if d == "" {
				continue
			}
			x, err := strconv.ParseInt(d, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("shape %s: dimension %q", shape, d)
			}
			n *= x
		}
		total += n * int64(bits) / 8
	}
	return total, nil
}

// WriteXLASummary summarises the XLA dump in dump into file, as JSON.
func WriteXLASummary(dump, file string) error {
	s, err := SummarizeXLADump(dump)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(out, '\n'), 0o644)
}
