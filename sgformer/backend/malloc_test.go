package backend

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// When the process starts on glibc with no allocator settings of the user's, a 40 MiB block
// comes from malloc's heap, and so does a 100 MiB one from a new thread: with one arena, no
// thread is bound to a second one, whose heap cannot hold it. A process that runs XLA on a GPU
// gets two arenas, and SGFORMER_MALLOC_ARENAS sets the count. With SGFORMER_MALLOC=system, or a
// MALLOC_* setting of the user's, glibc maps the block (its default for blocks of 32 MiB or
// more), and MallocArenas says nothing was set. The block is under 64 MiB, the most a second
// arena's heap holds: with more than one arena, the thread the test runs on may be bound to
// one (a 64 MiB block then came from mmap in about one run in ten).
func TestMallocTuned(t *testing.T) {
	if os.Getenv("SGFORMER_MALLOC_CHILD") == "1" {
		t.Logf("arenas=%d heap=%d", MallocArenas(), heapBlock(40<<20))
		if MallocArenas() == 1 {
			t.Logf("thread-heap=%d", threadHeapBlock())
		}
		return
	}
	for _, tc := range []struct {
		env  string
		want []string
	}{
		{"", []string{"arenas=1 heap=1", "thread-heap=1"}},
		{"GOMLX_BACKEND=xla:cuda", []string{"arenas=2 heap=1"}},
		{"SGFORMER_MALLOC_ARENAS=3", []string{"arenas=3 heap=1"}},
		{"SGFORMER_MALLOC_ARENAS=lots", []string{"arenas=1 heap=1"}},
		{"SGFORMER_MALLOC=system", []string{"arenas=0 heap=0"}},
		{"MALLOC_ARENA_MAX=2", []string{"arenas=0 heap=0"}},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMallocTuned$", "-test.v")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "MALLOC_") && !strings.HasPrefix(kv, "GLIBC_TUNABLES=") && !strings.HasPrefix(kv, "SGFORMER_MALLOC") && !strings.HasPrefix(kv, "GOMLX_BACKEND=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "SGFORMER_MALLOC_CHILD=1")
		if tc.env != "" {
			cmd.Env = append(cmd.Env, tc.env)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.env, err, out)
		}
		if strings.Contains(string(out), "heap=-1") {
			t.Skipf("not glibc: %s", out)
		}
		for _, want := range tc.want {
			if !strings.Contains(string(out), want) {
				t.Errorf("with %q: want %q in\n%s", tc.env, want, out)
			}
		}
	}
}
