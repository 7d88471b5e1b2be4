package backend

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// third_party/pjrt/pjrt_c_api.h is go-xla's copy of the PJRT C API header, byte for byte (with
// its Apache 2.0 licence beside it, LICENSE): the function table the compile cache patches must be
// the one the go-xla in go.mod calls. After a go-xla upgrade this test says to copy it again.
func TestVendoredPJRTHeader(t *testing.T) {
	const vendored = "../../third_party/pjrt"
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", "github.com/gomlx/go-xla").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/gomlx/go-xla: %v", err)
	}
	dir, version, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if dir == "" {
		t.Fatalf("go-xla %s is not downloaded (go mod download)", version)
	}
	theirs, err := os.ReadFile(filepath.Join(dir, "pkg", "pjrt", "pjrt_c_api.h"))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(filepath.Join(vendored, "pjrt_c_api.h"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		t.Errorf("third_party/pjrt/pjrt_c_api.h differs from go-xla %s's pkg/pjrt/pjrt_c_api.h: copy it again (cp %s third_party/pjrt/) and check compilecache.c against it",
			version, filepath.Join(dir, "pkg", "pjrt", "pjrt_c_api.h"))
	}
	if _, err := os.Stat(filepath.Join(vendored, "LICENSE")); err != nil {
		t.Errorf("the header's licence: %v", err)
	}
}
