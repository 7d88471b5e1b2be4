// Package xlatest gives tests the XLA CPU backend: skipped where its plugin is not installed,
// unless $SGFORMER_REQUIRE_XLA is 1 (as scripts/test.sh, which installs it, sets), when its
// absence fails the test; skipped under go test -short.
package xlatest

import (
	"os"
	"testing"

	"github.com/gomlx/gomlx/backends"

	"github.com/sgformer/sgformer/sgformer/backend"
)

// CPU returns the "xla:cpu" backend, or skips (or fails) t without it.
func CPU(t testing.TB) backends.Backend {
	t.Helper()
	if testing.Short() {
		t.Skip("xlatest: XLA compiles for seconds per program; skipped under -short")
	}
	b, err := backend.New("xla:cpu")
	if err != nil {
		if os.Getenv("SGFORMER_REQUIRE_XLA") == "1" {
			t.Fatalf("SGFORMER_REQUIRE_XLA=1 and %v", err)
		}
		t.Skipf("no XLA CPU plugin (sgformer install-xla installs it): %v", err)
	}
	return b
}
