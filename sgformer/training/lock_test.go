package training

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A run directory has one writer: while one holds it, a second Train on it is refused at once,
// naming the holder, and writes nothing; once released, it is free again.
func TestRunLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Train(nil, nil, Options{Out: dir})
	for _, want := range []string{dir, "is being written by process " + strconv.Itoa(os.Getpid()), "wait for it to end"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("second writer: %v; want %q", err, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the refused writer left %d entries", len(entries))
	}
	unlock()
	again, err := lockRun(dir)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}

// A holder killed with SIGKILL releases the lock by itself.
func TestRunLockKilledHolder(t *testing.T) {
	if os.Getenv("SGFORMER_LOCK_HOLDER") != "" {
		if _, err := lockRun(os.Getenv("SGFORMER_LOCK_HOLDER")); err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString("locked\n")
		select {} // until killed
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRunLockKilledHolder$")
	cmd.Env = append(os.Environ(), "SGFORMER_LOCK_HOLDER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("holder: %q, %v", buf, err)
	}
	if _, err := lockRun(dir); err == nil || !strings.Contains(err.Error(), "process "+strconv.Itoa(cmd.Process.Pid)) {
		t.Fatalf("while held by %d: %v", cmd.Process.Pid, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	unlock, err := lockRun(dir)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	unlock()
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err != nil {
		t.Fatal(err)
	}
}
