package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The model takes scripts/devices-collectives.sh's totals: records without them (the counts per
// kind of collective alone) are an error that names what is missing.
func TestScalingNeedsTotals(t *testing.T) {
	root := t.TempDir()
	writeRecords(t, filepath.Join(root, "c.jsonl"), `== collectives
{"op": "all-gather", "ops": 43, "bytes": 534656}
`)
	writeRecords(t, filepath.Join(root, "cpu.jsonl"), `== cli preprocess zinc12k cold
{"product_nodes": 6674994, "graphs": 12000}
`)
	_, err := scalingSection("c.jsonl", "cpu.jsonl", "gpu")(root)
	if err == nil || !strings.Contains(err.Error(), `no "collectives" in part "totals"`) {
		t.Errorf("records without totals: %v", err)
	}
}
