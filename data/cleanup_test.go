package data

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// An offline download leaves nothing behind: neither .download nor the data directory it
// created.
func TestDownloadOfflineCleansUp(t *testing.T) {
	srv := newServer(func() []byte { return nil })
	srv.Close()
	_, src := testArchive(t, srv.URL, toyFiles)
	parent := t.TempDir()
	dir := filepath.Join(parent, "toy")
	if err := src.Download(context.Background(), dir, http.DefaultClient, nil); err == nil {
		t.Fatal("offline download succeeded")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s left behind", dir)
	}
	// In an existing data directory, only .download goes.
	os.MkdirAll(dir, 0o755)
	src.Download(context.Background(), dir, http.DefaultClient, nil)
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("%s holds %v after an offline download, %v", dir, entries, err)
	}
}

// A download cut off midway keeps its partial file, to resume from, and says so; a corrupt
// archive leaves nothing (no staging folder either).
func TestDownloadInterruptedKeepsPart(t *testing.T) {
	body, src := testArchive(t, "http://placeholder", toyFiles)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body[:len(body)/2]) // then the connection closes early
	}))
	defer srv.Close()
	src.URL = srv.URL + "/toy.zip"
	dir := filepath.Join(t.TempDir(), "toy")
	err := src.Download(context.Background(), dir, srv.Client(), nil)
	part := filepath.Join(dir, ".download", "toy.zip.part")
	if err == nil || !strings.Contains(err.Error(), "partial download ("+strconv.Itoa(len(body)/2)+" bytes) is kept in "+part) || !strings.Contains(err.Error(), "resume") {
		t.Errorf("error %v, want it to say the partial download is kept for resuming", err)
	}
	if fi, err := os.Stat(part); err != nil || fi.Size() != int64(len(body)/2) {
		t.Errorf("partial file: %v", err)
	}

	var corrupt []byte
	srv2 := newServer(func() []byte { return corrupt })
	defer srv2.Close()
	_, src2 := testArchive(t, srv2.URL, toyFiles)
	corrupt, _ = testArchive(t, srv2.URL, map[string]string{"raw/a.csv.gz": "tampered", "split/scaffold/train.csv.gz": "0\n"})
	dir2 := filepath.Join(t.TempDir(), "toy")
	if err := src2.Download(context.Background(), dir2, srv2.Client(), nil); err == nil {
		t.Fatal("corrupt archive accepted")
	}
	if _, err := os.Stat(dir2); err == nil {
		t.Errorf("%s left behind after a corrupt archive", dir2)
	}
}
