// Package memory tells whether an allocation the input asks for fits in the memory this process
// may still use, so that a command refuses an oversized input with an error — what it would
// need, what is available, which input size causes it — instead of dying in the Go runtime
// with "fatal error: out of memory".
//
// Sizes are estimated by the caller from the input's sizes with Bytes and Sum, which saturate
// at math.MaxInt64 instead of overflowing, and checked with Check before allocating.
// Available memory is the smallest of: the Go runtime's memory limit (GOMEMLIMIT) less what
// the runtime holds, the cgroup's memory limit less its usage (cgroup v2 memory.max, v1
// memory.limit_in_bytes, from the process's own cgroup up to the root), and MemAvailable in
// /proc/meminfo. Where none can be read (not Linux), nothing is refused.
package memory

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
)

// small is the size below which Check does not read the system's figures: allocations of a
// few megabytes are not worth a file read each, and cannot be what brings a process down.
const small = 16 << 20

// Bytes returns the product of its factors (e.g. element size, rows, columns), saturating at
// math.MaxInt64 where the product overflows; a negative factor counts as zero.
func Bytes(factors ...int) int64 {
	p := int64(1)
	for _, f := range factors {
		if f <= 0 {
			return 0
		}
		if p > math.MaxInt64/int64(f) {
			p = math.MaxInt64
			continue
		}
		p *= int64(f)
	}
	return p
}

// Sum returns the sum of byte counts, saturating at math.MaxInt64; negative counts count as
// zero.
func Sum(counts ...int64) int64 {
	s := int64(0)
	for _, c := range counts {
		if c <= 0 {
			continue
		}
		if s > math.MaxInt64-c {
			return math.MaxInt64
		}
		s += c
	}
	return s
}

// Error reports an allocation refused because it does not fit in the available memory.
type Error struct {
	// What needs the memory, naming the input size that causes it.
	What string
	// Need is the estimated size in bytes (math.MaxInt64 where the arithmetic overflowed);
	// Available what the process may still allocate, according to Source.
	Need, Available int64
	Source          string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s needs %s of memory, more than the %s available (%s)", e.What, Format(e.Need), Format(e.Available), e.Source)
}

// Format writes a byte count for people: "512 B", "3.2 MiB", "74.5 GiB"; math.MaxInt64
// (an overflowed estimate) is "more than 8 EiB".
func Format(b int64) string {
	if b == math.MaxInt64 {
		return "more than 8 EiB"
	}
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	x, i := float64(b)/unit, 0
	for x >= unit && i < 5 {
		x /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", x, "KMGTPE"[i])
}

// Check returns an *Error when need bytes exceed the available memory, describing the
// allocation with fmt.Sprintf(format, args...); nil when it fits (or nothing limits it).
func Check(need int64, format string, args ...any) error {
	limit := testLimit.Load()
	if limit == 0 && need < small {
		return nil
	}
	avail, source := Available()
	if need <= avail {
		return nil
	}
	return &Error{What: fmt.Sprintf(format, args...), Need: need, Available: avail, Source: source}
}

// testLimit, when positive, replaces the system's figures (SetLimit).
var testLimit atomic.Int64

// SetLimit makes Available report limit bytes, whatever the system has, until the returned
// function restores the system's figures; for tests of the refusals without a huge machine.
func SetLimit(limit int64) (restore func()) {
	old := testLimit.Swap(max(limit, 1))
	return func() { testLimit.Store(old) }
}

// Available returns how many bytes this process may still allocate, and where the figure comes
// from; math.MaxInt64 and "no limit found" where nothing can be read.
func Available() (int64, string) {
	if l := testLimit.Load(); l > 0 {
		return l, "limit set by memory.SetLimit"
	}
	avail, source := fromSystem(os.DirFS("/"))
	if l := debug.SetMemoryLimit(-1); l < math.MaxInt64 {
		if a := l - runtimeHeld(); a < avail {
			avail, source = max(a, 0), "the Go runtime's soft memory limit less what it holds"
		}
	}
	return avail, source
}

// SoftLimit sets the Go runtime's soft memory limit (debug.SetMemoryLimit) to fraction of the
// memory Available now, unless $GOMEMLIMIT sets one or no figure can be read. The garbage
// collector then works harder as the heap nears what the machine has, rather than letting
// garbage grow the process until the kernel kills it: training on Peptides-func, whose batches
// all differ in shape, reached 23 GB of RSS after 13 steps of batch 4 without it and stayed at
// 10 GB with it, at the same speed. It returns the limit set, 0 if none.
func SoftLimit(fraction float64) int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	avail, _ := Available()
	if avail == math.MaxInt64 {
		return 0
	}
	limit := int64(fraction * float64(avail))
	debug.SetMemoryLimit(limit)
	return limit
}

// Allocated returns the bytes this process has allocated on the heap so far (cumulative, freed
// or not), read without stopping the world: the difference across a call bounds what the call
// allocated, which fuzz tests compare with the size of their input.
func Allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// runtimeHeld returns the bytes the Go runtime has mapped and not released to the OS, what
// GOMEMLIMIT is compared with.
func runtimeHeld() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// fromSystem reads the cgroup limits and /proc/meminfo from fsys, the root file system.
func fromSystem(fsys fs.FS) (int64, string) {
	avail, source := int64(math.MaxInt64), "no limit found"
	if a, ok := memAvailable(fsys); ok {
		avail, source = a, "MemAvailable in /proc/meminfo"
	}
	if a, file, ok := cgroupAvailable(fsys); ok && a < avail {
		avail, source = a, "cgroup limit "+file+" less its usage"
	}
	return avail, source
}

// memAvailable reads MemAvailable (in kB) from /proc/meminfo.
func memAvailable(fsys fs.FS) (int64, bool) {
	raw, err := fs.ReadFile(fsys, "proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb < 0 || kb > math.MaxInt64/1024 {
				return 0, false
			}
			return kb * 1024, true
		}
	}
	return 0, false
}

// cgroupAvailable returns the smallest limit less usage over the process's memory cgroup and
// its ancestors (cgroup v2, else v1), and the limit file it comes from.
func cgroupAvailable(fsys fs.FS) (int64, string, bool) {
	raw, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return 0, "", false
	}
	best, file, found := int64(math.MaxInt64), "", false
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		var root, limitFile, usageFile string
		switch {
		case parts[0] == "0" && parts[1] == "":
			root, limitFile, usageFile = "sys/fs/cgroup", "memory.max", "memory.current"
		case hasItem(parts[1], "memory"):
			root, limitFile, usageFile = "sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		for dir := path.Join(root, parts[2]); ; dir = path.Dir(dir) {
			limit, okL := readInt(fsys, path.Join(dir, limitFile))
			usage, okU := readInt(fsys, path.Join(dir, usageFile))
			if okL && okU && limit < 1<<62 { // v1 writes "no limit" as a huge number
				if a := max(limit-usage, 0); a < best {
					best, file, found = a, "/"+path.Join(dir, limitFile), true
				}
			}
			if dir == root || dir == "." || dir == "/" {
				break
			}
		}
	}
	return best, file, found
}

// hasItem reports whether the comma-separated list holds name.
func hasItem(list, name string) bool {
	for _, s := range strings.Split(list, ",") {
		if s == name {
			return true
		}
	}
	return false
}

// readInt reads a file holding one integer; "max" (cgroup v2's "no limit") is not one.
func readInt(fsys fs.FS, name string) (int64, bool) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	x, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	return x, err == nil && x >= 0
}
