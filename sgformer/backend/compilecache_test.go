package backend

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // GoMLX's convention
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// xlaCPU returns the xla:cpu backend with the compile cache in a fresh folder, or skips t.
func xlaCPU(t *testing.T) (backends.Backend, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("XLA compiles for seconds per program; skipped under -short")
	}
	b, err := New("xla:cpu")
	if err != nil {
		if os.Getenv("SGFORMER_REQUIRE_XLA") == "1" {
			t.Fatalf("SGFORMER_REQUIRE_XLA=1 and %v", err)
		}
		t.Skipf("no XLA CPU plugin: %v", err)
	}
	dir := t.TempDir()
	if err := setCompileCacheDir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = setCompileCacheDir("") })
	return b, dir
}

// cacheProgram is the program the cache tests compile: a small layer whose result depends on
// every input element, so that a wrong program would show.
func cacheProgram(x, w *Node) *Node { return Tanh(Dot(x, w)) }

// runCached compiles cacheProgram for an n × 8 input (a new Exec: GoMLX compiles again) and
// returns its result.
func runCached(t *testing.T, b backends.Backend, n int) []float32 {
	t.Helper()
	x := tensors.FromShape(shapes.Make(dtypes.Float32, n, 8))
	tensors.MutableFlatData(x, func(v []float32) {
		for i := range v {
			v[i] = float32(i%7) - 3
		}
	})
	w := tensors.FromShape(shapes.Make(dtypes.Float32, 8, 3))
	tensors.MutableFlatData(w, func(v []float32) {
		for i := range v {
			v[i] = 0.1 * float32(i%5)
		}
	})
	out := MustNewExec(b, cacheProgram).MustExec(x, w)[0]
	return slices.Clone(tensors.MustCopyFlatData[float32](out))
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.pjrt"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The cache stores a program on its first compilation, loads it on the next one, tells shapes
// apart, and compiles again (and stores afresh) when its file is damaged.
func TestCompileCache(t *testing.T) {
	b, dir := xlaCPU(t)
	want := runCached(t, b, 4)
	if s := CompileCache(); s.Misses != 1 || s.Hits != 0 || s.Err != nil {
		t.Fatalf("first compilation: %+v, want 1 miss", s)
	}
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("cache files %v, want 1", files)
	}

	steps := []struct {
		name               string
		damage             func(path string) error
		n                  int
		hits, misses, kept int
	}{
		{"same program", nil, 4, 1, 1, 1},
		{"another shape", nil, 5, 1, 2, 2},
		{"a flipped byte", func(p string) error {
			data, err := os.ReadFile(p)
			if err == nil {
				data[len(data)-100] ^= 1
				err = os.WriteFile(p, data, 0o644)
			}
			return err
		}, 4, 1, 3, 2},
		{"a truncated file", func(p string) error { return os.Truncate(p, 20) }, 4, 1, 4, 2},
		{"after the repairs", nil, 4, 2, 4, 2},
	}
	for _, s := range steps {
		if s.damage != nil {
			if err := s.damage(files[0]); err != nil {
				t.Fatal(err)
			}
		}
		got := runCached(t, b, s.n)
		if s.n == 4 && !slices.Equal(got, want) {
			t.Errorf("%s: result %v, want %v", s.name, got, want)
		}
		st := CompileCache()
		if st.Hits != s.hits || st.Misses != s.misses || st.Err != nil {
			t.Errorf("%s: %+v, want %d hits and %d misses", s.name, st, s.hits, s.misses)
		}
		if n := len(cacheFiles(t, dir)); n != s.kept {
			t.Errorf("%s: %d files, want %d", s.name, n, s.kept)
		}
	}
}

// Off, the cache neither reads nor writes.
func TestCompileCacheOff(t *testing.T) {
	b, dir := xlaCPU(t)
	if err := setCompileCacheDir(""); err != nil {
		t.Fatal(err)
	}
	runCached(t, b, 4)
	if s := CompileCache(); s.Hits+s.Misses != 0 || len(cacheFiles(t, dir)) != 0 {
		t.Errorf("off: %+v, files %v", s, cacheFiles(t, dir))
	}
}

// evict keeps the most recently used files within the limit.
func TestEvict(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"a", "b", "c", "d"} {
		p := filepath.Join(dir, name+".pjrt")
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "other.txt"), make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := evict(dir, 250); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, f := range cacheFiles(t, dir) {
		left = append(left, filepath.Base(f))
	}
	if !slices.Equal(left, []string{"c.pjrt", "d.pjrt"}) {
		t.Errorf("left %v, want the two most recent", left)
	}
}

// A second process loads what the first one compiled: the point of the cache.
func TestCompileCacheAcrossProcesses(t *testing.T) {
	if dir := os.Getenv("SGFORMER_TEST_CACHE_CHILD"); dir != "" {
		b, err := New("xla:cpu")
		if err != nil {
			t.Fatal(err)
		}
		if err := setCompileCacheDir(dir); err != nil {
			t.Fatal(err)
		}
		runCached(t, b, 6)
		s := CompileCache()
		t.Logf("hits=%d misses=%d err=%v", s.Hits, s.Misses, s.Err)
		return
	}
	_, dir := xlaCPU(t)
	for i, want := range []string{"hits=0 misses=1 err=<nil>", "hits=1 misses=0 err=<nil>"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCompileCacheAcrossProcesses$", "-test.v")
		cmd.Env = append(os.Environ(), "SGFORMER_TEST_CACHE_CHILD="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("process %d: %v, want %q in\n%s", i+1, err, want, out)
		}
	}
}
