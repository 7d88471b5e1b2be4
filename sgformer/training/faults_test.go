package training_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
	"github.com/sgformer/sgformer/sgformer/training"
)

// tmpfs mounts a tmpfs of size bytes on a fresh directory (root only; the test skips
// otherwise) and unmounts it at the end of the test.
func tmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// A full disk during a checkpoint save fails the epoch with ENOSPC and leaves the previous
// checkpoint intact, and no partial copy; once there is room again, --resume continues exactly (the records equal an
// uninterrupted run's, none repeated).
func TestFullDiskDuringSave(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 16, 2)
	params := map[string]any{training.ParamEpochs: 3, training.ParamBatchSize: 8}
	straight := t.TempDir()
	if _, err := training.Train(newContext(model.Subgraphormer, params), tk, training.Options{Out: straight, Backend: be}); err != nil {
		t.Fatal(err)
	}
	disk := tmpfs(t, 8<<20)
	run := filepath.Join(disk, "run")
	first := newContext(model.Subgraphormer, params)
	first.SetParam(training.ParamEpochs, 1)
	if _, err := training.Train(first, tk, training.Options{Out: run, Backend: be}); err != nil {
		t.Fatal(err)
	}
	// Fill the disk but for a few kilobytes: the next checkpoint cannot be written.
	filler := fillDisk(t, disk, 8192)
	_, err = training.Train(epochsContext(3), tk, training.Options{Out: run, Backend: be, Resume: true})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("training on a full disk: %v, want ENOSPC", err)
	}
	if left, _ := filepath.Glob(filepath.Join(run, "*.staging")); len(left) > 0 {
		t.Errorf("the failed save left %v, which keeps the disk full", left)
	}
	os.Remove(filler)
	if _, err := training.Train(epochsContext(3), tk, training.Options{Out: run, Backend: be, Resume: true}); err != nil {
		t.Fatalf("resuming after the disk was freed: %v", err)
	}
	a, b := readRecords(t, filepath.Join(straight, training.MetricsFile)), readRecords(t, filepath.Join(run, training.MetricsFile))
	if len(a) != len(b) {
		t.Fatalf("%d records, the uninterrupted run %d", len(b), len(a))
	}
	for i := range a {
		if untimed(a[i]) != untimed(b[i]) {
			t.Fatalf("epoch %d: %+v, uninterrupted %+v", i+1, b[i], a[i])
		}
	}
}

// fillDisk fills the file system of dir with a file, returned, but for room bytes.
func fillDisk(t *testing.T, dir string, room int64) string {
	t.Helper()
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	os.Truncate(filler, mustSize(t, filler)-room)
	return filler
}

func mustSize(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A full disk at the first checkpoint gives a short error that says what happened and what to
// do (still ENOSPC for errors.Is), not the chain of the checkpoint library's internal names.
func TestFullDiskFirstCheckpoint(t *testing.T) {
	be, err := backend.New("go")
	if err != nil {
		t.Fatal(err)
	}
	tk := syntheticTask(t, 16, 2)
	disk := tmpfs(t, 1<<20)
	run := filepath.Join(disk, "run")
	fillDisk(t, disk, 16384) // room for the run's small files, not a checkpoint
	_, err = training.Train(newContext(model.Subgraphormer, map[string]any{training.ParamEpochs: 1}), tk, training.Options{Out: run, Backend: be})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("training on a full disk: %v, want ENOSPC", err)
	}
	t.Log(err)
	msg := err.Error()
	for _, want := range []string{run, "no space left on device", "free space", "run the same command again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if len(msg) > len(run)+200 {
		t.Errorf("error of %d characters: %s", len(msg), msg)
	}
}
