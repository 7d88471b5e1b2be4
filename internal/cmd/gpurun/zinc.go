package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// zinc continues the 400-epoch ZINC-12k runs of the piece's seeds, all at the same time on the
// one GPU, from $SGFORMER_GPU_RESULTS/runs/seed-S (tracked, so they travel with the tree) into
// $SGFORMER_GPU_WORK/runs/seed-S. sgformer stops them at an epoch boundary before the
// --time-limit; should one overrun, the piece's deadline sends SIGTERM (see job.command), on
// which it saves the epoch in progress at its step, and the piece waits for that before it is
// packed.
func zinc(ctx context.Context, j *job, p piece) error {
	limit, err := zincLimit(j.cfg.zincBudget, j.left)
	if err != nil {
		return err
	}
	if err := j.gpuEnv(ctx); err != nil {
		return err
	}
	start := time.Now()
	smi := startSMI(ctx, j, "smi.csv")
	type training struct {
		seed int
		cmd  *exec.Cmd
		done func() error // closes its files
	}
	var runs []training
	var failed []error // a seed that cannot start leaves the others training
	result := gpuresult.Zinc{}
	for _, s := range p.seeds {
		run := filepath.Join(j.cfg.work, "runs", fmt.Sprintf("seed-%d", s))
		before, args, err := prepareSeed(j, s, run)
		if err != nil {
			failed = append(failed, fmt.Errorf("seed %d: %w", s, err))
			continue
		}
		result.Seeds = append(result.Seeds, gpuresult.ZincSeed{Seed: s, FromEpoch: before})
		if before >= j.cfg.zincEpochs {
			fmt.Fprintf(j.out, "gpu-run: seed %d has all %d epochs\n", s, j.cfg.zincEpochs)
			continue
		}
		fmt.Fprintf(j.out, "gpu-run: seed %d: from epoch %d of %d (budget %v)\n", s, before, j.cfg.zincEpochs, limit)
		args = append(args, "--epochs", strconv.Itoa(j.cfg.zincEpochs), "--time-limit", limit.String(),
			"--cache-dir", cacheDir, "--backend", j.backend(), "--out", run)
		cmd := j.command(ctx, sgformer, append([]string{"train"}, args...)...)
		done, err := j.redirect(cmd, files{stdout: fmt.Sprintf("seed%d.summary.json", s), stderr: fmt.Sprintf("seed%d.log", s)})
		if err == nil {
			if err = cmd.Start(); err != nil {
				done()
			}
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("seed %d: %w", s, err))
			continue
		}
		runs = append(runs, training{seed: s, cmd: cmd, done: done})
	}
	for _, t := range runs {
		err := t.cmd.Wait()
		t.done()
		if err != nil {
			log, _ := os.ReadFile(j.path(fmt.Sprintf("seed%d.log", t.seed)))
			fmt.Fprintf(j.out, "gpu-run: seed %d: %v; the end of seed%d.log:\n%s", t.seed, err, t.seed, tail(log, 20))
			failed = append(failed, fmt.Errorf("seed %d: %w", t.seed, err))
		}
	}
	result.SMI = smi.stop()
	result.Seconds = time.Since(start).Seconds()
	for i, s := range result.Seeds {
		result.Seeds[i].ToEpoch, _ = countLines(filepath.Join(j.cfg.work, "runs", fmt.Sprintf("seed-%d", s.Seed), "metrics.jsonl"))
	}
	return errors.Join(j.writeJSON("result.json", result), errors.Join(failed...))
}

// prepareSeed copies a seed's committed run into run and returns its epochs so far and the
// flags that continue it (or start it: the recipe, with a small model on a few molecules in a
// dry run).
func prepareSeed(j *job, seed int, run string) (before int, args []string, err error) {
	if err := os.RemoveAll(run); err != nil {
		return 0, nil, err
	}
	if err := os.MkdirAll(filepath.Dir(run), 0o755); err != nil {
		return 0, nil, err
	}
	committed := filepath.Join(j.cfg.results, "runs", fmt.Sprintf("seed-%d", seed))
	if _, err := os.Stat(committed); err == nil {
		if err := os.CopyFS(run, os.DirFS(committed)); err != nil {
			return 0, nil, fmt.Errorf("copying %s: %w", committed, err)
		}
	}
	if _, err := os.Stat(filepath.Join(run, "run.json")); err == nil {
		before, err := countLines(filepath.Join(run, "metrics.jsonl"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, nil, err
		}
		return before, []string{"--resume"}, nil
	}
	args = []string{"--dataset", "zinc12k", "--data-dir", dataDir, "--seed", strconv.Itoa(seed)}
	if j.cfg.dry {
		args = append(args, "--train-subset", "64", "--batch-size", "32")
	}
	return 0, append(args, j.small()...), nil
}

// countLines counts the non-empty lines of a file: a metrics.jsonl's epochs.
func countLines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n, sc.Err()
}

// tail is the last n lines of text.
func tail(text []byte, n int) string {
	lines := strings.SplitAfter(strings.TrimRight(string(text), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "") + "\n"
}
