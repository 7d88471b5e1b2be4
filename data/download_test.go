package data

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sgformer/sgformer/internal/shareddata"
)

// testArchive is a zip in OGB's layout (files under "toy/") and the source describing it.
func testArchive(t *testing.T, url string, files map[string]string) ([]byte, Source) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	sums := map[string]string{}
	zw.Create("toy/")
	for name, content := range files {
		w, err := zw.Create("toy/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
		h := sha256.Sum256([]byte(content))
		sums[name] = hex.EncodeToString(h[:])
	}
	w, _ := zw.Create("toy/RELEASE_v1.txt") // not a dataset file: not unpacked
	w.Write([]byte("release"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), Source{Name: "toy", Folder: "toy", URL: url + "/toy.zip", Prefix: "toy/", Files: sums}
}

// server serves body at /toy.zip with range support and records the requests' Range headers.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	ranges []string
}

func newServer(body func() []byte) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		s.mu.Unlock()
		http.ServeContent(w, r, "toy.zip", time.Time{}, bytes.NewReader(body()))
	}))
	return s
}

// filesServer serves files by name (the URL path without its leading slash), with range
// support, and counts the requests.
type filesServer struct {
	*httptest.Server
	requests atomic.Int64
}

func serveFiles(files map[string][]byte) *filesServer {
	s := &filesServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		b, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, r.URL.Path, time.Time{}, bytes.NewReader(b))
	}))
	return s
}

var toyFiles = map[string]string{"raw/a.csv.gz": strings.Repeat("1,2\n", 500), "split/scaffold/train.csv.gz": "0\n"}

func TestDownload(t *testing.T) {
	var body []byte
	srv := newServer(func() []byte { return body })
	defer srv.Close()
	body, src := testArchive(t, srv.URL, toyFiles)
	dir := filepath.Join(t.TempDir(), "toy")

	// An earlier attempt left the first half: the download resumes with a range request.
	part := filepath.Join(dir, ".download", "toy.zip.part")
	os.MkdirAll(filepath.Dir(part), 0o755)
	os.WriteFile(part, body[:len(body)/2], 0o644)
	var progress bytes.Buffer
	if err := src.Download(context.Background(), dir, srv.Client(), &progress); err != nil {
		t.Fatal(err)
	}
	for name, content := range toyFiles {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != content {
			t.Fatalf("%s: %q, %v", name, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "RELEASE_v1.txt")); err == nil {
		t.Error("unpacked a file the dataset does not list")
	}
	if _, err := os.Stat(filepath.Join(dir, ".download")); err == nil {
		t.Error(".download left behind")
	}
	if len(srv.ranges) != 1 || !strings.HasPrefix(srv.ranges[0], "bytes=") || !strings.Contains(progress.String(), "download toy.zip: ") {
		t.Errorf("requests with ranges %q, progress %q", srv.ranges, progress.String())
	}
	if strings.Contains(progress.String(), "\r") { // progress is not a terminal: lines, no bar
		t.Errorf("progress into a buffer redraws a bar: %q", progress.String())
	}
	// Everything present with the right checksums: no request at all.
	if err := src.Download(context.Background(), dir, srv.Client(), nil); err != nil || len(srv.ranges) != 1 {
		t.Errorf("second download: %v, %d requests", err, len(srv.ranges))
	}
}

func TestDownloadCorrupt(t *testing.T) {
	var body []byte
	srv := newServer(func() []byte { return body })
	defer srv.Close()
	_, src := testArchive(t, srv.URL, toyFiles)
	tampered := map[string]string{"raw/a.csv.gz": "tampered", "split/scaffold/train.csv.gz": "0\n"}
	body, _ = testArchive(t, srv.URL, tampered)
	dir := filepath.Join(t.TempDir(), "toy")
	err := src.Download(context.Background(), dir, srv.Client(), nil)
	if err == nil || !strings.Contains(err.Error(), "raw/a.csv.gz: SHA-256") {
		t.Fatalf("error %v, want a checksum mismatch naming raw/a.csv.gz", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "raw", "a.csv.gz")); err == nil {
		t.Error("a file that failed its checksum was moved into the data directory")
	}
	if _, err := os.Stat(filepath.Join(dir, ".download", "toy.zip")); err == nil {
		t.Error("the corrupt archive was kept, so a retry would reuse it")
	}
}

func TestDownloadOffline(t *testing.T) {
	srv := newServer(func() []byte { return nil })
	srv.Close() // nothing listens any more
	_, src := testArchive(t, srv.URL, toyFiles)
	dir := filepath.Join(t.TempDir(), "toy")
	err := src.Download(context.Background(), dir, http.DefaultClient, nil)
	for _, want := range []string{"data: downloading toy:", "Offline, fetch " + src.URL, "into " + dir, "raw/a.csv.gz"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
}

func TestLoadMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ogbg_molesol")
	_, err := Load("ogbg-molesol", dir)
	for _, want := range []string{"sgformer download --dataset ogbg-molesol --data-dir " + dir, "csv_mol_download/esol.zip", "raw/node-feat.csv.gz"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
	zinc := filepath.Join(t.TempDir(), "zinc12k")
	_, err = Load("zinc12k", zinc)
	for _, want := range []string{"sgformer download --dataset zinc12k", "molecules.zip", "/train.index", filepath.Join(zinc, "raw")} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
	if _, err := Load("qm9", dir); err == nil || !strings.Contains(err.Error(), `unknown dataset "qm9" (available: zinc12k, zinc-full, ogbg-molesol, ogbg-molbace, ogbg-molhiv, peptides-func, peptides-struct, alchemy12k)`) {
		t.Errorf("unknown dataset: %v", err)
	}
}

// The pinned checksums are those of the shared copies of the OGB downloads, the pinned ZINC
// and Peptides-func digests those of the shared copies. ZINC-full and Peptides-struct have none
// (no copy is shared), nor Alchemy-12k, whose sums are not all pinned (TestAlchemyUnpinned).
func TestSourcesMatchSharedData(t *testing.T) {
	for _, s := range Sources {
		if s.Pending != "" || (s.Digest == "" && !s.fileSums()) {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			if err := s.verify(shareddata.Dir(t, s.Folder)); err != nil {
				t.Error(err)
			}
		})
	}
}

// DefaultDir finds ../shared/data from the project root and from any folder below it (e.g. the
// notebooks'), and honours $SGFORMER_DATA.
func TestDefaultDir(t *testing.T) {
	root := t.TempDir()
	want := filepath.Join(root, "shared", "data", "ogbg_molesol")
	os.MkdirAll(want, 0o755)
	os.MkdirAll(filepath.Join(root, "project", "notebooks"), 0o755)
	t.Setenv("SGFORMER_DATA", "")
	for _, wd := range []string{filepath.Join(root, "project"), filepath.Join(root, "project", "notebooks")} {
		t.Chdir(wd)
		if got, err := DefaultDir("ogbg-molesol"); err != nil || got != want {
			t.Errorf("from %s: %q, %v; want %q", wd, got, err, want)
		}
	}
	t.Setenv("SGFORMER_DATA", "/data")
	if got, _ := DefaultDir("ogbg-molesol"); got != "/data/ogbg_molesol" {
		t.Errorf("with SGFORMER_DATA: %q", got)
	}
}

// ZINC's download: molecules.zip with the pickles and the three index files (here the miniature
// of testdata/zinc-pyg), converted to the text export and checked against the digest.
func TestDownloadZINC(t *testing.T) {
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	files := map[string][]byte{}
	for _, split := range pygSplits {
		for _, ext := range []string{".pickle", ".index"} {
			b, err := os.ReadFile("testdata/zinc-pyg/raw/" + split + ext)
			if err != nil {
				t.Fatal(err)
			}
			files[split+ext] = b
			if ext == ".pickle" {
				w, _ := zw.Create("molecules/" + split + ext)
				w.Write(b)
			}
		}
	}
	zw.Close()
	files["molecules.zip"] = zipped.Bytes()
	srv := serveFiles(files)
	defer srv.Close()

	want, err := ZINC("testdata/zinc-pyg")
	if err != nil {
		t.Fatal(err)
	}
	src, err := SourceOf("zinc12k")
	if err != nil {
		t.Fatal(err)
	}
	src.URL, src.Digest = srv.URL+"/molecules.zip?dl=1", want.Digest()
	src.Extra = map[string]string{}
	for _, split := range pygSplits {
		src.Extra[split+".index"] = srv.URL + "/" + split + ".index"
	}

	// A wrong digest: an error, nothing in the data directory, the archive deleted.
	bad := src
	bad.Digest = strings.Repeat("0", 64)
	dir := filepath.Join(t.TempDir(), "zinc12k")
	if err := bad.Download(context.Background(), dir, srv.Client(), nil); err == nil || !strings.Contains(err.Error(), "content digest") {
		t.Fatalf("wrong digest: error %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after a failed check the data directory holds %v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, ".download", "molecules.zip")); err == nil {
		t.Error("the archive that failed its check was kept")
	}

	var progress bytes.Buffer
	if err := src.Download(context.Background(), dir, srv.Client(), &progress); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "ZINC_Edges.txt.gz ZINC_Labels.txt.gz ZINC_Nodes.txt.gz ZINC_splits.json" {
		t.Errorf("data directory holds %v, want the text export only", names)
	}
	got, err := ZINC(dir)
	if err != nil || got.Digest() != want.Digest() {
		t.Fatalf("downloaded dataset: %v, digest differs: %v", err, got != nil && got.Digest() != want.Digest())
	}
	if !strings.Contains(progress.String(), "converting zinc12k") {
		t.Errorf("progress %q", progress.String())
	}
	n := srv.requests.Load()
	if err := src.Download(context.Background(), dir, srv.Client(), nil); err != nil || srv.requests.Load() != n {
		t.Errorf("second download: %v, %d more requests", err, srv.requests.Load()-n)
	}

	// ZINC-full keeps the pickles, checked by their split sizes.
	full, err := SourceOf("zinc-full")
	if err != nil {
		t.Fatal(err)
	}
	full.URL = src.URL
	wrong := full
	wrong.Sizes = [3]int{6, 4, 4}
	fullDir := filepath.Join(t.TempDir(), "zinc_full")
	if err := wrong.Download(context.Background(), fullDir, srv.Client(), nil); err == nil || !strings.Contains(err.Error(), "[6 4 3] train/val/test graphs, want [6 4 4]") {
		t.Fatalf("wrong sizes: error %v", err)
	}
	full.Sizes = [3]int{6, 4, 3}
	if err := full.Download(context.Background(), fullDir, srv.Client(), nil); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadWith("zinc-full", fullDir, LoadOptions{NoVerify: true}); err != nil || len(got.Graphs) != 13 {
		t.Fatalf("downloaded ZINC-full: %v", err)
	}
}

// In a log, a download's progress is a line per interval, with the ETA when the size is known.
func TestProgressLines(t *testing.T) {
	for _, tc := range []struct {
		total int64
		want  []string
	}{
		{3e6, []string{"get f: 2.0 MB of 3.0 MB  ", " eta ", "get f: 3.0 MB of 3.0 MB  ", "get f: 3.0 MB in "}},
		{-1, []string{"get f: 2.0 MB  ", "get f: 3.0 MB  ", "get f: 3.0 MB in "}},
	} {
		var log bytes.Buffer
		p := &progressLines{w: &log, what: "get f", total: tc.total, done: 1e6, first: 1e6, start: time.Now().Add(-time.Second), every: 0}
		p.Write(make([]byte, 1e6))
		p.Write(make([]byte, 1e6))
		p.finish()
		got := log.String()
		if n := strings.Count(got, "\n"); n != 3 {
			t.Errorf("total %d: %d lines, want 3:\n%s", tc.total, n, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("total %d: no %q in\n%s", tc.total, w, got)
			}
		}
	}
}

// ensure downloads a dataset whose directory does not exist, and leaves one that exists to Load
// without a request; offline, its error says what to fetch.
func TestEnsure(t *testing.T) {
	var body []byte
	srv := newServer(func() []byte { return body })
	body, src := testArchive(t, srv.URL, toyFiles)
	dir := filepath.Join(t.TempDir(), "toy")
	if err := src.ensure(context.Background(), dir, srv.Client(), nil); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "split/scaffold/train.csv.gz")); err != nil || string(got) != "0\n" {
		t.Fatalf("after ensure: %q, %v", got, err)
	}
	srv.Close()
	if err := src.ensure(context.Background(), dir, srv.Client(), nil); err != nil {
		t.Errorf("ensure asked the network for a directory that exists: %v", err)
	}
	err := src.ensure(context.Background(), filepath.Join(t.TempDir(), "other"), srv.Client(), nil)
	if err == nil || !strings.Contains(err.Error(), "toy.zip") {
		t.Errorf("offline: %v, want an error naming the archive to fetch", err)
	}
}

// Ensure finds a dataset where DefaultDir looks ($SGFORMER_DATA here) without downloading it.
func TestEnsureFinds(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "ogbg_molesol"), 0o755)
	t.Setenv("SGFORMER_DATA", root)
	dir, err := Ensure(context.Background(), "ogbg-molesol", nil)
	if err != nil || dir != filepath.Join(root, "ogbg_molesol") {
		t.Errorf("Ensure = %q, %v", dir, err)
	}
	if _, err := Ensure(context.Background(), "qm9", nil); err == nil {
		t.Error("Ensure of an unknown dataset succeeded")
	}
}

// A dataset found nowhere DefaultDir looks: the error lists where it looked.
func TestLoadSaysWhereItLooked(t *testing.T) {
	t.Setenv("SGFORMER_DATA", "")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	wd := t.TempDir()
	t.Chdir(wd)
	_, err := Load("ogbg-molesol", "")
	for _, want := range []string{"no copy found", "ogbg_molesol", "$SGFORMER_DATA (not set)", "../shared/data beside " + wd, filepath.Join(cache, "sgformer", "data"), "sgformer download --dataset ogbg-molesol"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	t.Setenv("SGFORMER_DATA", wd)
	if _, err := Load("ogbg-molesol", ""); err == nil || !strings.Contains(err.Error(), "$SGFORMER_DATA = "+wd) {
		t.Errorf("with SGFORMER_DATA: %v", err)
	}
}
