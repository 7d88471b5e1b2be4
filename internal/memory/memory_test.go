package memory

import (
	"errors"
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"
)

func TestBytesSaturates(t *testing.T) {
	for _, tc := range []struct {
		factors []int
		want    int64
	}{
		{[]int{8, 1000, 1000}, 8e6},
		{[]int{8, 100000, 100000}, 8e10},
		{[]int{8, 1 << 31, 1 << 31, 1 << 31}, math.MaxInt64},
		{[]int{math.MaxInt, 2}, math.MaxInt64},
		{[]int{4, -1}, 0},
		{nil, 1},
	} {
		if got := Bytes(tc.factors...); got != tc.want {
			t.Errorf("Bytes(%v) = %d, want %d", tc.factors, got, tc.want)
		}
	}
	if got := Sum(math.MaxInt64-1, 2); got != math.MaxInt64 {
		t.Errorf("Sum overflows: %d", got)
	}
	if got := Sum(3, -5, 4); got != 7 {
		t.Errorf("Sum(3, -5, 4) = %d", got)
	}
}

func TestCheckWithLimit(t *testing.T) {
	restore := SetLimit(1 << 30)
	defer restore()
	if err := Check(1<<29, "half"); err != nil {
		t.Fatal(err)
	}
	err := Check(Bytes(8, 100000, 100000), "the Laplacian of a %d-node graph", 100000)
	var e *Error
	if !errors.As(err, &e) || e.Need != 8e10 || e.Available != 1<<30 {
		t.Fatalf("Check: %v", err)
	}
	const want = "the Laplacian of a 100000-node graph needs 74.5 GiB of memory, more than the 1.0 GiB available (limit set by memory.SetLimit)"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if err := Check(math.MaxInt64, "overflow"); err == nil || !strings.Contains(err.Error(), "more than 8 EiB") {
		t.Errorf("overflowed size: %v", err)
	}
	restore()
	if err := Check(1<<20, "small"); err != nil {
		t.Errorf("a small allocation without a test limit: %v", err)
	}
}

// The system's figures: the smallest of MemAvailable and every cgroup limit less usage.
func TestFromSystem(t *testing.T) {
	meminfo := "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   2000000 kB\n"
	for _, tc := range []struct {
		name   string
		files  map[string]string
		want   int64
		source string
	}{
		{"nothing", map[string]string{}, math.MaxInt64, "no limit found"},
		{"meminfo", map[string]string{"proc/meminfo": meminfo}, 2000000 * 1024, "MemAvailable in /proc/meminfo"},
		{"cgroup v2", map[string]string{
			"proc/meminfo":                        meminfo,
			"proc/self/cgroup":                    "0::/jobs/a\n",
			"sys/fs/cgroup/jobs/a/memory.max":     "max\n",
			"sys/fs/cgroup/jobs/a/memory.current": "100\n",
			"sys/fs/cgroup/jobs/memory.max":       "1000000000\n",
			"sys/fs/cgroup/jobs/memory.current":   "400000000\n",
			"sys/fs/cgroup/memory.max":            "max\n",
			"sys/fs/cgroup/memory.current":        "1\n",
			"sys/fs/cgroup/unrelated/memory.max":  "1\n", // not an ancestor: ignored
		}, 600000000, "cgroup limit /sys/fs/cgroup/jobs/memory.max less its usage"},
		{"cgroup v1", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "9:name=systemd:/\n4:cpu,memory:/process_api/x\n0::/\n",
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/process_api/x/memory.usage_in_bytes": "8351744\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":               "1073741824\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes":               "73741824\n",
		}, 1e9, "cgroup limit /sys/fs/cgroup/memory/memory.limit_in_bytes less its usage"},
		{"cgroup over its limit", map[string]string{
			"proc/self/cgroup":             "0::/\n",
			"sys/fs/cgroup/memory.max":     "100\n",
			"sys/fs/cgroup/memory.current": "200\n",
		}, 0, "cgroup limit /sys/fs/cgroup/memory.max less its usage"},
	} {
		fsys := fstest.MapFS{}
		for name, content := range tc.files {
			fsys[name] = &fstest.MapFile{Data: []byte(content)}
		}
		got, source := fromSystem(fsys)
		if got != tc.want || source != tc.source {
			t.Errorf("%s: %d (%s), want %d (%s)", tc.name, got, source, tc.want, tc.source)
		}
	}
}

// On this machine something is found, and it is positive.
func TestAvailable(t *testing.T) {
	a, source := Available()
	if a <= 0 {
		t.Fatalf("Available() = %d (%s)", a, source)
	}
	t.Logf("%s available (%s)", Format(a), source)
}

func TestFormat(t *testing.T) {
	for b, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 80e9: "74.5 GiB", 1 << 60: "1.0 EiB"} {
		if got := Format(b); got != want {
			t.Errorf("Format(%d) = %q, want %q", b, got, want)
		}
	}
}

func TestAllocated(t *testing.T) {
	before := Allocated()
	sink = make([]byte, 1<<20)
	if d := Allocated() - before; d < 1<<20 {
		t.Errorf("a 1 MiB allocation counted as %d bytes", d)
	}
}

var sink []byte

// SoftLimit sets the runtime's limit to a fraction of what is available, and leaves a limit
// the user set with $GOMEMLIMIT alone.
func TestSoftLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer SetLimit(1 << 30)()
	t.Setenv("GOMEMLIMIT", "")
	if got := SoftLimit(0.5); got != 1<<29 || debug.SetMemoryLimit(-1) != 1<<29 {
		t.Errorf("SoftLimit(0.5) of 1 GiB: %d, runtime limit %d", got, debug.SetMemoryLimit(-1))
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "3GiB")
	if got := SoftLimit(0.5); got != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT: %d, runtime limit %d", got, debug.SetMemoryLimit(-1))
	}
}
