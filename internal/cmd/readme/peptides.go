package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// peptidesSection renders the Peptides-func measurements on the CPU: preprocessing
// (results/peptides-preprocess/summary.json) and the training rate of the paper's recipe from
// the raw log of `sgformer train` under GNU time (results/peptides-func-cpu/train.log).
func peptidesSection(root string) (string, error) {
	var pre struct {
		Cold, Warm struct {
			Summary struct {
				Graphs       int   `json:"graphs"`
				ProductNodes int64 `json:"product_nodes"`
				CacheBytes   int64 `json:"cache_bytes"`
			} `json:"summary"`
			Wall   float64 `json:"wall_seconds"`
			User   float64 `json:"user_seconds"`
			System float64 `json:"system_seconds"`
			MaxRSS int64   `json:"max_rss_kb"`
		}
		Featurisation struct {
			Molecules     int     `json:"molecules"`
			USPerMolecule float64 `json:"us_per_molecule"`
			NSPerPass     float64 `json:"ns_per_pass"`
		} `json:"featurisation"`
	}
	raw, err := os.ReadFile(filepath.Join(root, "results/peptides-preprocess/summary.json"))
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(raw, &pre); err != nil {
		return "", fmt.Errorf("results/peptides-preprocess/summary.json: %w", err)
	}
	tr, err := readTrainLog(filepath.Join(root, "results/peptides-func-cpu/train.log"))
	if err != nil {
		return "", err
	}
	c, w, f := pre.Cold, pre.Warm, pre.Featurisation
	var b strings.Builder
	fmt.Fprintf(&b, "- **Preprocessing** (`results/peptides-preprocess/`): `sgformer preprocess --dataset peptides-func --pe-k 16 --pe-mode reference` over all %s peptides (%s product nodes) takes %s of wall time (%.0f s of CPU), peak RSS %d MiB, and writes a %d MB cache; run again it reads and verifies the cache in %.1f s.\n",
		thousands(c.Summary.Graphs), thousands(int(c.Summary.ProductNodes)), minSec(c.Wall), c.User+c.System, c.MaxRSS>>10, c.Summary.CacheBytes/1_000_000, w.Wall)
	fmt.Fprintf(&b, "- **Featurising** the %s SMILES alone takes %.1f s (%.1f µs per molecule; `go test -run '^$' -bench PeptidesFeaturize ./data/`).\n",
		thousands(f.Molecules), f.NSPerPass/1e9, f.USPerMolecule)
	fmt.Fprintf(&b, "- **Training** (`results/peptides-func-cpu/`): `sgformer train --dataset peptides-func --batch-size 4`, the paper's recipe but for the batch size, on all %s training peptides, product graphs built batch by batch: %s graphs in %s, **%.3g graphs/s**, so one epoch's training steps would take about **%.1f h** (%s graphs at the measured rate, evaluation not counted); peak RSS %.1f GiB. Interrupted with Ctrl-C after %s; the paper's 200 epochs are GPU work.\n",
		thousands(tr.total), thousands(tr.done), minSec(tr.elapsed), tr.rate, float64(tr.total)/tr.rate/3600, thousands(tr.total), float64(tr.maxRSS)/(1<<20), minSec(tr.wall))
	return b.String(), nil
}

// trainLog is what a training log under GNU time -v says of the first epoch's progress.
type trainLog struct {
	done, total int
	rate        float64 // graphs per second
	elapsed     float64 // seconds into the epoch at the last progress line
	wall        float64 // of the whole command
	maxRSS      int64   // kB
}

var (
	stepLine = regexp.MustCompile(`^epoch 1: (\d+)/(\d+) graphs  ([0-9.e+]+) graphs/s`)
	wallLine = regexp.MustCompile(`Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([0-9.]+)$`)
	rssLine  = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)$`)
)

func readTrainLog(path string) (trainLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return trainLog{}, err
	}
	defer f.Close()
	var t trainLog
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := stepLine.FindStringSubmatch(line); m != nil {
			t.done, _ = strconv.Atoi(m[1])
			t.total, _ = strconv.Atoi(m[2])
			t.rate, _ = strconv.ParseFloat(m[3], 64)
			t.elapsed = float64(t.done) / t.rate
		} else if m := wallLine.FindStringSubmatch(line); m != nil {
			h, _ := strconv.Atoi(m[1])
			mi, _ := strconv.Atoi(m[2])
			s, _ := strconv.ParseFloat(m[3], 64)
			t.wall = float64(h*3600+mi*60) + s
		} else if m := rssLine.FindStringSubmatch(line); m != nil {
			t.maxRSS, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return t, err
	}
	if t.rate == 0 || t.wall == 0 || t.maxRSS == 0 {
		return t, fmt.Errorf("%s: no progress line, wall time or peak RSS", path)
	}
	return t, nil
}

// minSec writes seconds as minutes and seconds.
func minSec(s float64) string {
	r := int(math.Round(s))
	return fmt.Sprintf("%d min %02d s", r/60, r%60)
}
