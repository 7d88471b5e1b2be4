package main

import (
	"bufio"
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sgformer/sgformer/sgformer/training"
)

// TestMain runs the command line itself when SGFORMER_CLI=1, so that tests can start it as a
// process and signal it.
func TestMain(m *testing.M) {
	if os.Getenv("SGFORMER_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Ctrl-C during training stops it cleanly: a message that says how to resume, exit status 130,
// the run at its last checkpoint; and the same command with --resume finishes it.
func TestInterruptAndResume(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	args := []string{"train", "--out", run, "--epochs", "40", "--dataset", "synthetic", "--synthetic-graphs", "60", "--layers", "1", "--hidden", "12", "--batch-size", "8", "--backend", "go"}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SGFORMER_CLI=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "epoch 2/40") {
			cmd.Process.Signal(syscall.SIGINT)
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit %v; stderr:\n%s", err, log.String())
	}
	for _, want := range []string{"interrupt: stopping at the next training step", "interrupted during epoch", "continue with: sgformer train --resume --out " + run} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, log.String())
		}
	}
	sum, err := training.ReadSummary(run)
	if err != nil || sum.Epochs < 2 || sum.Epochs >= 40 {
		t.Fatalf("summary after the interrupt: %+v, %v", sum, err)
	}
	if code, _, stderr := runCLI(t, "", "train", "--out", run, "--resume", "--backend", "go", "--epochs", "4"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if sum, _ := training.ReadSummary(run); sum == nil || sum.Epochs != 4 {
		t.Fatalf("resumed run: %+v", sum)
	}
}

// SIGKILL at random points of a run (while compiling, training, evaluating or saving), each
// time resumed with --resume, ends with exactly the records of an uninterrupted run: no epoch
// lost, repeated or changed. The first trial saves checkpoints at the end of each epoch only,
// the others after every step as well (--checkpoint-every 1ns), so that kills fall within
// epochs saved part-way.
func TestKillAndResume(t *testing.T) {
	small := []string{"--epochs", "5", "--dataset", "synthetic", "--synthetic-graphs", "40", "--layers", "1", "--hidden", "12", "--batch-size", "8", "--backend", "go"}
	cli := func(args []string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "SGFORMER_CLI=1")
		return cmd
	}
	straight := filepath.Join(t.TempDir(), "straight")
	began := time.Now()
	if out, err := cli(append([]string{"train", "--out", straight}, small...)).CombinedOutput(); err != nil {
		t.Fatalf("straight run: %v: %s", err, out)
	}
	length := time.Since(began) // kills fall anywhere in a run of this length
	want, err := training.ReadRecords(filepath.Join(straight, training.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	kills, partial := 0, 0
	for trial := range 3 {
		run := filepath.Join(t.TempDir(), "run")
		every := []string{"--checkpoint-every", []string{"0", "1ns", "1ns"}[trial]}
		fresh := slices.Concat([]string{"train", "--out", run}, small, every)
		args := fresh
		for attempt := 0; ; attempt++ {
			cmd := cli(args)
			var output bytes.Buffer
			cmd.Stdout, cmd.Stderr = &output, &output
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			killed := false
			if attempt < 4 {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("trial %d, attempt %d: %v\n%s", trial, attempt, err, output.String())
					}
				case <-time.After(time.Duration(rng.Float64() * float64(length))):
					cmd.Process.Kill()
					if killed = (<-done) != nil; killed { // else it ended just before the kill
						kills++
					}
				}
			} else {
				select {
				case err := <-done:
					if err != nil { // a failure, not a kill: it would fail again
						t.Fatalf("trial %d, attempt %d: %v\n%s", trial, attempt, err, output.String())
					}
				case <-time.After(20*length + time.Minute): // hung: its goroutines say where
					cmd.Process.Signal(syscall.SIGQUIT)
					<-done
					t.Fatalf("trial %d, attempt %d: no end after %v (the straight run took %v)\n%s", trial, attempt, 20*length+time.Minute, length, output.String())
				}
			}
			if !killed {
				break
			}
			// A kill between the two renames of a checkpoint's save leaves only its predecessor,
			// CheckpointDir.old, which a resume reads.
			if resumable(filepath.Join(run, training.CheckpointDir)) {
				args = append([]string{"train", "--out", run, "--resume", "--backend", "go"}, every...)
				if raw, _ := os.ReadFile(filepath.Join(run, training.CheckpointDir, "state.json")); strings.Contains(string(raw), `"partial"`) {
					partial++
				}
			} else {
				os.RemoveAll(run) // killed before its first checkpoint: start again
				args = fresh
			}
		}
		got, err := training.ReadRecords(filepath.Join(run, training.MetricsFile))
		if err != nil || len(got) != len(want) {
			t.Fatalf("trial %d: %d records (%v), want %d", trial, len(got), err, len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			g.Seconds, g.TrainSeconds, g.BatchSeconds = 0, 0, 0 // the times of a run differ, and
			w.Seconds, w.TrainSeconds, w.BatchSeconds = 0, 0, 0 // a resumed run builds its programs again
			g.Programs, g.CompileSeconds, w.Programs, w.CompileSeconds = 0, 0, 0, 0
			if g != w {
				t.Fatalf("trial %d, epoch %d: %+v, uninterrupted %+v", trial, i+1, g, w)
			}
		}
	}
	t.Logf("%d kills survived, %d of them resumed within an epoch", kills, partial)
}

// resumable reports whether a killed run left a checkpoint at dir, or its predecessor beside it.
func resumable(dir string) bool {
	for _, d := range []string{dir, dir + ".old"} {
		if _, err := os.Stat(filepath.Join(d, "state.json")); err == nil {
			return true
		}
	}
	return false
}
