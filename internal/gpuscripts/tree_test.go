package gpuscripts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deviceTreeLimit is what of a GPU machine call's working tree (64 MiB: the tracked files and
// the carried paths) the tracked files may take: the rest is build/gpu's (scripts/gpu-build.sh
// keeps it under 28 MiB).
const deviceTreeLimit = 36 << 20

// The tracked files fit a call of the GPU machine beside build/gpu; a call with more is refused
// before it starts (results/reproduction's variables did it on 2026-11-26). The largest folders
// are named when they do not.
func TestTrackedTreeFitsADeviceCall(t *testing.T) {
	root := repoRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v)", err)
	}
	var total int64
	folders := map[string]int64{}
	for _, f := range strings.Split(string(bytes.TrimRight(out, "\x00")), "\x00") {
		fi, err := os.Lstat(filepath.Join(root, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
		parts := strings.SplitN(f, "/", 3)
		folders[strings.Join(parts[:min(2, len(parts)-1)], "/")] += fi.Size()
	}
	if total > deviceTreeLimit {
		names := make([]string, 0, len(folders))
		for k := range folders {
			names = append(names, k)
		}
		slices.SortFunc(names, func(a, b string) int { return int(folders[b] - folders[a]) })
		var largest []string
		for _, k := range names[:min(5, len(names))] {
			largest = append(largest, fmt.Sprintf("%s %.1f MiB", k, float64(folders[k])/(1<<20)))
		}
		t.Errorf("tracked files take %.1f MiB, over the %d MiB a GPU machine call leaves them; largest: %s",
			float64(total)/(1<<20), deviceTreeLimit>>20, strings.Join(largest, ", "))
	}
}
