package backend

import (
	"testing"
)

// Each program XLA compiles, and each loaded from the cache, reports its memory: for
// cacheProgram on an n × 8 input, arguments of (n·8 + 8·3) float32 and an output of n·3, by
// hand.
func TestPrograms(t *testing.T) {
	b, _ := xlaCPU(t)
	for _, n := range []int{6, 6, 40} { // compiled, loaded from the cache, compiled
		from := len(Programs(0))
		runCached(t, b, n)
		got := Programs(from)
		if len(got) != 1 {
			t.Fatalf("n = %d: %d programs recorded, want 1: %+v", n, len(got), got)
		}
		m := got[0]
		if want := int64(4 * (n*8 + 8*3)); m.Arguments != want {
			t.Errorf("n = %d: arguments %d bytes, want %d", n, m.Arguments, want)
		}
		if want := int64(4 * n * 3); m.Outputs != want {
			t.Errorf("n = %d: outputs %d bytes, want %d", n, m.Outputs, want)
		}
		if m.Name == "" || m.Bytes() < m.Arguments || m.Temporary < 0 || m.Aliased != 0 {
			t.Errorf("n = %d: %+v (bytes %d)", n, m, m.Bytes())
		}
	}
	if st := CompileCache(); st.Hits != 1 || st.Misses != 2 {
		t.Errorf("cache %+v, want 1 hit and 2 misses", st)
	}
	if got := Programs(1 << 30); got != nil {
		t.Errorf("Programs past the end: %v", got)
	}
}
