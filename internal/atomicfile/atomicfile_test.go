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
