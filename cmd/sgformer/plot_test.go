package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	plotMetrics = `{"epoch":1,"train_loss":2.5,"val":1.9,"test":2.0,"lr":0.001,"seconds":3.1,"best_epoch":1}
{"epoch":2,"train_loss":1.4,"val":1.2,"test":1.3,"lr":0.001,"seconds":2.9,"best_epoch":2}
{"epoch":3,"train_loss":1.1,"val":1.3,"test":1.25,"lr":0.0005,"seconds":3.0,"best_epoch":2}
`
	plotSummary = `{"dataset": "synthetic-triangles", "model": "subgraphormer", "metric": "mae", "epochs": 3,
 "best_epoch": 2, "best_val": 1.2, "test_at_best_val": 1.3, "train_graphs": 24, "seconds": 9, "parameters": 100}`
)

// writeRun writes a run directory with the given metrics.jsonl and summary.json ("" leaves a
// file out).
func writeRun(t *testing.T, metrics, summary string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{"metrics.jsonl": metrics, "summary.json": summary} {
		if content == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestPlotCommand(t *testing.T) {
	dir := writeRun(t, plotMetrics, plotSummary)
	code, stdout, stderr := runCLI(t, "", "plot", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	svgPath, pngPath := filepath.Join(dir, "curves.svg"), filepath.Join(dir, "curves.png")
	if stdout != svgPath+"\n"+pngPath+"\n" {
		t.Fatalf("stdout %q, want the two paths written", stdout)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("curves.svg is not XML: %v", err)
		}
	}
	for _, text := range []string{"subgraphormer on synthetic-triangles", "test MAE 1.3", "best epoch 2", "Learning rate"} {
		if !bytes.Contains(svg, []byte(text)) {
			t.Errorf("curves.svg lacks %q", text)
		}
	}
	raw, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(raw)); err != nil || img.Bounds().Dx() < 1000 {
		t.Fatalf("curves.png: %v", err)
	}

	// One format, elsewhere, with the flags after RUN_DIR.
	out := filepath.Join(t.TempDir(), "figures")
	code, stdout, stderr = runCLI(t, "", "plot", dir, "--format", "png", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != filepath.Join(out, "curves.png")+"\n" {
		t.Fatalf("stdout %q", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "curves.svg")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("--format png wrote an SVG too: %v", err)
	}
}

func TestPlotCommandErrors(t *testing.T) {
	corrupt := strings.Replace(plotMetrics, `"val":1.2`, `"val":oops`, 1)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no run dir", []string{"plot"}, 2, "RUN_DIR is required"},
		{"two run dirs", []string{"plot", writeRun(t, plotMetrics, plotSummary), "other"}, 2, `unexpected argument "other"`},
		{"bad format", []string{"plot", "--format", "jpg", writeRun(t, plotMetrics, plotSummary)}, 2, `--format "jpg"`},
		{"missing dir", []string{"plot", filepath.Join(t.TempDir(), "nope")}, 1, filepath.Join("nope", "metrics.jsonl")},
		{"corrupt metrics", []string{"plot", writeRun(t, corrupt, plotSummary)}, 1, "metrics.jsonl:2:"},
		{"missing summary", []string{"plot", writeRun(t, plotMetrics, "")}, 1, "summary.json"},
		{"corrupt summary", []string{"plot", writeRun(t, plotMetrics, "{")}, 1, "summary.json"},
		{"empty metrics", []string{"plot", writeRun(t, "\n", plotSummary)}, 1, "no training records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
			if stdout != "" {
				t.Fatalf("stdout %q on failure", stdout)
			}
		})
	}
}
