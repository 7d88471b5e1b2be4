// Package shareddata locates the benchmark datasets that tests and benchmarks read from
// ../shared/data beside the project root (see docs/data.md), never from a copy in the project.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the path of dataset folder name (e.g. "zinc12k") under the shared data
// directory: $SGFORMER_DATA if set, else ../shared/data next to the module root. When the
// folder is missing the test is skipped, except under CI (CI=true), where it fails. Under
// go test -short the test is skipped: real datasets are the slow part of the suite.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("shareddata: a real dataset; skipped under -short")
	}
	root := os.Getenv("SGFORMER_DATA")
	if root == "" {
		dir, err := os.Getwd()
		if err != nil {
			tb.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				tb.Fatal("shareddata: no go.mod above the working directory")
			}
			dir = parent
		}
		root = filepath.Join(dir, "..", "shared", "data")
	}
	path := filepath.Join(root, name)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("shareddata: %v (CI needs ../shared/data beside the project)", err)
		}
		tb.Skipf("shareddata: %v; set SGFORMER_DATA or place shared/data beside the project", err)
	}
	return path
}
