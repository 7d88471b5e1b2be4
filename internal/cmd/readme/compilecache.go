package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// compileCacheSection renders scripts/bench-compile-cache.sh's output: the same short training
// run with XLA's compile cache empty (cold) and filled by the first run (warm).
func compileCacheSection(file string) func(root string) (string, error) {
	return func(root string) (string, error) {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			return "", err
		}
		type run struct {
			Run            string  `json:"run"`
			WallS          float64 `json:"wall_s"`
			PeakRSSKB      float64 `json:"peak_rss_kb"`
			Seconds        float64 `json:"seconds"`
			Programs       int     `json:"programs"`
			CompileSeconds float64 `json:"compile_seconds"`
			CacheFiles     int     `json:"cache_files"`
			CacheBytes     float64 `json:"cache_bytes"`
			SameMetrics    *bool   `json:"same_metrics"`
		}
		var header []string
		var runs []run
		sc := bufio.NewScanner(bytes.NewReader(data))
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			if h, ok := strings.CutPrefix(text, "# "); ok {
				header = append(header, h)
				continue
			}
			var r run
			d := json.NewDecoder(strings.NewReader(text))
			d.DisallowUnknownFields()
			if err := d.Decode(&r); err != nil {
				return "", fmt.Errorf("%s:%d: %w", file, line, err)
			}
			runs = append(runs, r)
		}
		if len(runs) != 2 || runs[0].Run != "cold" || runs[1].Run != "warm" || runs[1].SameMetrics == nil || len(header) < 3 {
			return "", fmt.Errorf("%s: want a header of 3 lines, then a cold and a warm run", file)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "`%s` (%s; %s; %s):\n\n", file, header[0], header[1], header[2])
		b.WriteString("| cache | wall, s | compiling, s | programs | cache after, files / MB | peak RSS, GiB |\n|---|---:|---:|---:|---:|---:|\n")
		for _, r := range runs {
			fmt.Fprintf(&b, "| %s | %.1f | %.1f | %d | %d / %.1f | %.2f |\n", r.Run, r.WallS, r.CompileSeconds, r.Programs,
				r.CacheFiles, r.CacheBytes/1e6, r.PeakRSSKB/(1<<20))
		}
		same := "the same bits"
		if !*runs[1].SameMetrics {
			same = "NOT the same: a defect"
		}
		fmt.Fprintf(&b, "\nThe two runs' losses and metrics, epoch by epoch: %s. \"Compiling\" is the run's `compile_seconds`: its first steps on new batch shapes, which build the graph and compile it or load it.\n", same)
		return b.String(), nil
	}
}
