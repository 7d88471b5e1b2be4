// Command hloflops counts the matrix-product arithmetic of the programs XLA compiled, from the
// text dumps it writes with XLA_FLAGS="--xla_dump_to=DIR --xla_dump_hlo_as_text":
//
//	go run ./internal/cmd/hloflops DIR
//
// prints one JSON line per module optimised for the CPU (DIR/*.cpu_after_optimizations.txt):
// its name, the number of dot instructions and their floating-point operations, 2·K per output
// element of each dot, K the product of its contracting dimensions. Dots are where a model's
// arithmetic is (the dense layers, attention's products); the gathers and scatters of message
// passing move memory and are not counted, but they are in its census of instructions: how many
// of each opcode the module holds, fused or not, and its fusions by kind (loop, input, output;
// "library" for those handed whole to a library, YNNPACK or XNNPACK, kind=kCustom), and their
// total. A module with loops would run its dots more than once: a while instruction is an error
// rather than an undercount.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Module is what hloflops reports of one compiled module.
type Module struct {
	Name     string  `json:"module"`
	File     string  `json:"file"`
	Dots     int     `json:"dots"`
	DotFLOPs float64 `json:"dot_flops"`
	// Ops counts the module's instructions by opcode (parameters, constants and tuples' parts
	// left out), and its fusions by kind under "fusion:loop", "fusion:library" and so on.
	Ops map[string]int `json:"ops"`
	// Instructions is the module's instructions that Ops counts: the sum of its opcodes' counts,
	// the fusions' kinds (which subdivide the fusions) left out.
	Instructions int `json:"instructions"`
}

// uncounted are the opcodes Ops leaves out: no work of their own.
var uncounted = map[string]bool{"parameter": true, "constant": true, "get-tuple-element": true, "tuple": true, "bitcast": true}

var (
	// instruction is "%name = TYPE[d0,d1,...]{layout} opcode(", possibly after ROOT.
	instruction = regexp.MustCompile(`^\s*(?:ROOT\s+)?%(\S+)\s*=\s*[a-z0-9]+\[([0-9,]*)\]\S*\s+([a-z-]+)\(([^)]*)\)(.*)$`)
	operand     = regexp.MustCompile(`%([^\s,)]+)`)
	contracting = regexp.MustCompile(`lhs_contracting_dims=\{([0-9,]*)\}`)
	fusionKind  = regexp.MustCompile(`kind=k([A-Za-z]+)`)
)

// Count reads one after-optimisations dump.
func Count(name string, r io.Reader) (Module, error) {
	m := Module{Name: name, Ops: map[string]int{}}
	dims := map[string][]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		f := instruction.FindStringSubmatch(sc.Text())
		if f == nil {
			continue
		}
		out, err := ints(f[2])
		if err != nil {
			return m, fmt.Errorf("line %d: shape [%s]: %w", line, f[2], err)
		}
		dims[f[1]] = out
		if !uncounted[f[3]] {
			m.Ops[f[3]]++
			m.Instructions++
		}
		if k := fusionKind.FindStringSubmatch(f[5]); f[3] == "fusion" && k != nil {
			kind := strings.ToLower(k[1])
			if kind == "custom" {
				kind = "library"
			}
			m.Ops["fusion:"+kind]++
		}
		switch f[3] {
		case "while":
			return m, fmt.Errorf("line %d: a while loop: its dots would run an unknown number of times", line)
		case "dot":
			name := operand.FindStringSubmatch(f[4]) // the first: the left one
			if name == nil {
				return m, fmt.Errorf("line %d: dot without operands", line)
			}
			lhs, ok := dims[name[1]]
			if !ok {
				return m, fmt.Errorf("line %d: dot's left operand %%%s is not declared before it", line, name[1])
			}
			c := contracting.FindStringSubmatch(f[5])
			if c == nil {
				return m, fmt.Errorf("line %d: dot without lhs_contracting_dims", line)
			}
			axes, err := ints(c[1])
			if err != nil {
				return m, fmt.Errorf("line %d: lhs_contracting_dims: %w", line, err)
			}
			k := 1.0
			for _, a := range axes {
				if a >= len(lhs) {
					return m, fmt.Errorf("line %d: contracting axis %d of a rank-%d operand", line, a, len(lhs))
				}
				k *= float64(lhs[a])
			}
			size := 1.0
			for _, d := range out {
				size *= float64(d)
			}
			m.Dots++
			m.DotFLOPs += 2 * size * k
		}
	}
	return m, sc.Err()
}

// ints parses "3,4,5" (or "") as integers.
func ints(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

const suffix = ".cpu_after_optimizations.txt"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hloflops DIR (an XLA dump written with --xla_dump_to=DIR --xla_dump_hlo_as_text)")
		os.Exit(2)
	}
	files, err := filepath.Glob(filepath.Join(os.Args[1], "*"+suffix))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no *%s in %s", suffix, os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hloflops:", err)
		os.Exit(1)
	}
	sort.Strings(files)
	enc := json.NewEncoder(os.Stdout)
	for _, path := range files {
		base := strings.TrimSuffix(filepath.Base(path), suffix) // module_0000.Trainer_0
		name := base[strings.IndexByte(base, '.')+1:]
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hloflops:", err)
			os.Exit(1)
		}
		m, err := Count(name, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "hloflops: %s: %v\n", path, err)
			os.Exit(1)
		}
		m.File = filepath.Base(path)
		enc.Encode(m)
	}
}
