package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b.json")
	for _, content := range []string{"first", "second"} {
		if err := Write(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	st, _ := os.Stat(path)
	if len(entries) != 1 || st.Mode().Perm() != 0o644 {
		t.Fatalf("%d entries (temporary files left?), mode %v", len(entries), st.Mode())
	}
	if err := Write(filepath.Join(path, "under-a-file"), nil); err == nil {
		t.Fatal("writing under a file succeeded")
	}
}

// A streamed file appears at its path only when committed; an aborted one leaves the old
// content and no temporary file.
func TestCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	os.WriteFile(path, []byte("old"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new, ")
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("before Commit the path holds %q", got)
	}
	f.WriteString("in two writes")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if got, _ := os.ReadFile(path); string(got) != "new, in two writes" {
		t.Fatalf("after Commit: %q", got)
	}
	g, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	g.WriteString("discarded")
	g.Abort()
	entries, _ := os.ReadDir(filepath.Dir(path))
	if got, _ := os.ReadFile(path); string(got) != "new, in two writes" || len(entries) != 1 {
		t.Fatalf("after Abort: %q, %d entries", got, len(entries))
	}
	if err := g.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
}
