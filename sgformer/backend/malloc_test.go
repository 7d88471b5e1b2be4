package backend

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// When the process starts on glibc with no allocator settings of the user's, a 64 MiB block
// comes from malloc's heap; with SGFORMER_MALLOC=system, or a MALLOC_* setting of the user's,
// glibc maps it (its default for blocks of 32 MiB or more), and MallocTuned says so.
func TestMallocTuned(t *testing.T) {
	if os.Getenv("SGFORMER_MALLOC_CHILD") == "1" {
		t.Logf("tuned=%v heap=%d", MallocTuned(), heapBlock(64<<20))
		return
	}
	for _, tc := range []struct {
		env  string
		want string
	}{
		{"", "tuned=true heap=1"},
		{"SGFORMER_MALLOC=system", "tuned=false heap=0"},
		{"MALLOC_ARENA_MAX=2", "tuned=false heap=0"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMallocTuned$", "-test.v")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "MALLOC_") && !strings.HasPrefix(kv, "GLIBC_TUNABLES=") && !strings.HasPrefix(kv, "SGFORMER_MALLOC=") {
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
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("with %q: want %q in\n%s", tc.env, tc.want, out)
		}
	}
}
