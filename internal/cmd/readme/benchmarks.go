package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// benchLine is one result line of `go test -bench`: the benchmark's name without its -N suffix,
// its time per operation and its other metrics by unit.
var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op(.*)$`)

type benchResult struct {
	name    string
	seconds float64
	metrics map[string]float64
}

func parseBench(line string) (benchResult, bool) {
	m := benchLine.FindStringSubmatch(line)
	if m == nil {
		return benchResult{}, false
	}
	ns, _ := strconv.ParseFloat(m[2], 64)
	r := benchResult{name: m[1], seconds: ns / 1e9, metrics: map[string]float64{}}
	f := strings.Fields(m[3])
	for i := 0; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err == nil {
			r.metrics[f[i+1]] = v
		}
	}
	return r, true
}

// beforeAfterSection renders scripts/bench-before-after.sh's output: per binary, the training
// step and inference pass of each round and the peak RSS of the process.
func beforeAfterSection(file string) func(root string) (string, error) {
	return func(root string) (string, error) {
		f, err := os.Open(filepath.Join(root, file))
		if err != nil {
			return "", err
		}
		defer f.Close()
		type cell struct {
			train, infer []string
			rss          []string
		}
		cells := map[string]*cell{"before": {}, "after": {}}
		var header []string
		var cur *cell
		rssLine := regexp.MustCompile(`^peak RSS (\d+) kB`)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "# "):
				header = append(header, strings.TrimPrefix(line, "# "))
			case strings.HasPrefix(line, "== "):
				cur = cells[strings.Fields(line)[1]]
			case cur == nil:
			default:
				if r, ok := parseBench(line); ok {
					s := fmt.Sprintf("%.1f", r.seconds)
					if strings.HasPrefix(r.name, "ZINCTrainStep") {
						cur.train = append(cur.train, s)
					} else {
						cur.infer = append(cur.infer, s)
					}
				} else if m := rssLine.FindStringSubmatch(line); m != nil {
					kb, _ := strconv.Atoi(m[1])
					cur.rss = append(cur.rss, fmt.Sprintf("%.1f", float64(kb)/(1<<20)))
				}
			}
		}
		if err := sc.Err(); err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "`%s` (%s):\n\n", file, strings.Join(header, "; "))
		b.WriteString("| code | training step, s (per round) | inference pass, s (per round) | peak RSS, GiB (per round) |\n|---|---|---|---|\n")
		for _, which := range []string{"before", "after"} {
			c := cells[which]
			if len(c.train) == 0 || len(c.infer) != len(c.train) {
				return "", fmt.Errorf("%s: %d training and %d inference results %s", file, len(c.train), len(c.infer), which)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", which, strings.Join(c.train, ", "), strings.Join(c.infer, ", "), strings.Join(c.rss, ", "))
		}
		return b.String(), nil
	}
}

// tupleOrderSection renders BenchmarkTupleOrder's output: time per graph and product nodes for
// K = 2 and K = 3.
func tupleOrderSection(file string) func(root string) (string, error) {
	return func(root string) (string, error) {
		raw, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "`%s`:\n\n| K | product nodes (2 molecules) | training step, s per graph | inference, s per graph |\n|---:|---:|---:|---:|\n", file)
		rows := 0
		res := map[string]benchResult{}
		rssLine := regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
		rss := ""
		for _, line := range strings.Split(string(raw), "\n") {
			if r, ok := parseBench(line); ok {
				res[r.name] = r
			} else if m := rssLine.FindStringSubmatch(line); m != nil {
				kb, _ := strconv.Atoi(m[1])
				rss = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
			}
		}
		for _, k := range []string{"2", "3"} {
			tr, ok1 := res["TupleOrder/K="+k+"/train"]
			in, ok2 := res["TupleOrder/K="+k+"/inference"]
			if !ok1 || !ok2 {
				continue
			}
			rows++
			fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f |\n", k, thousands(int(tr.metrics["nodes/batch"])), tr.metrics["s/graph"], in.metrics["s/graph"])
		}
		if rows != 2 || rss == "" {
			return "", fmt.Errorf("%s: want K = 2 and K = 3 and a peak RSS", file)
		}
		fmt.Fprintf(&b, "\nPeak RSS of the whole benchmark (both K): %s.\n", rss)
		return b.String(), nil
	}
}
