package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/sgformer/backend"
)

// install-xla checks what it downloads and that it runs: a plugin that does not load is removed
// (it would otherwise become the default backend), a download that fails says how to do it by
// hand, and neither leaves a plugin behind.
func TestInstallXLAFailures(t *testing.T) {
	var wheel bytes.Buffer
	zw := zip.NewWriter(&wheel)
	f, _ := zw.Create("fake_plugin/" + backend.CPUPluginFile)
	f.Write([]byte("not a shared library"))
	zw.Close()
	sum := sha256.Sum256([]byte("not a shared library"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(wheel.Bytes()) }))
	defer srv.Close()
	pinned := backend.CPUPlugin
	defer func() { backend.CPUPlugin = pinned }()
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", "")
	t.Setenv("SGFORMER_PJRT_DIR", "") // install-xla --pjrt-dir sets it; restored after the test
	for _, tc := range []struct {
		name, url, member, sum string
		want                   []string
	}{
		{"not a plugin", srv.URL + "/fake.whl", "fake_plugin/" + backend.CPUPluginFile, hex.EncodeToString(sum[:]),
			[]string{"does not work on this machine, so it was removed"}},
		{"wrong checksum", srv.URL + "/fake.whl", "fake_plugin/" + backend.CPUPluginFile, strings.Repeat("0", 64),
			[]string{"SHA-256"}},
		{"offline", "http://127.0.0.1:1/fake.whl", "fake_plugin/" + backend.CPUPluginFile, hex.EncodeToString(sum[:]),
			[]string{"Offline, fetch http://127.0.0.1:1/fake.whl", backend.CPUPluginFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			backend.CPUPlugin = backend.Wheel{Package: "fake", Version: "1", URL: tc.url, Member: tc.member, MemberSHA256: tc.sum}
			code, _, stderr := runCLI(t, "", "install-xla", "--pjrt-dir", root)
			for _, want := range tc.want {
				if code == 0 || !strings.Contains(stderr, want) {
					t.Errorf("exit %d, %q; want %q", code, stderr, want)
				}
			}
			if _, err := os.Stat(filepath.Join(root, "lib", backend.CPUPluginFile)); err == nil {
				t.Error("a plugin was left behind")
			}
		})
	}
}
