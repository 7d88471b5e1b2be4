package data

import (
	"archive/zip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/sgformer/sgformer/internal/term"
)

// Download fetches the dataset name's canonical archive into dir, unless dir already holds
// every file with the right checksum. See Source.Download.
func Download(ctx context.Context, name, dir string, progress io.Writer) error {
	s, err := SourceOf(name)
	if err != nil {
		return err
	}
	return s.Download(ctx, dir, http.DefaultClient, progress)
}

// Download fetches s.URL into dir/.download (resuming a partial download with an HTTP range
// request), unpacks the files of s.Files from it (fetching s.Extra beside them and converting
// them where the source says so), checks each against its SHA-256 (or the dataset against
// s.Digest) and only then moves them into dir, so that dir never holds a partial or corrupt file. It does
// nothing when dir already holds every file with the right checksum. progress, if not nil,
// receives a progress bar when it is a terminal, else a line every 30 s and one per file at the
// end. When the network is unreachable the error says how to obtain the
// files by hand.
//
// A source whose sums are not pinned yet (s.Pending) is refused before anything is fetched,
// with the files to put in place by hand.
//
// A failed download removes what it created (.download, and dir if it made it), except what
// a later call resumes from: a partial archive (.part) or a whole one that the extra files or
// the network failed after; the error then names it.
func (s Source) Download(ctx context.Context, dir string, client *http.Client, progress io.Writer) (err error) {
	if s.Pending != "" {
		return fmt.Errorf("data: cannot download %s: %s.\n%s", s.Name, s.Pending, s.offline(dir))
	}
	if s.verify(dir) == nil {
		return nil
	}
	work := filepath.Join(dir, ".download")
	created := missingDirs(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	archive := filepath.Join(work, s.archiveName())
	staging := filepath.Join(work, "staging")
	defer func() {
		if err != nil {
			err = cleanUp(err, archive, staging, created)
		}
	}()
	if err := fetch(ctx, client, s.URL, archive, progress); err != nil {
		return fmt.Errorf("data: downloading %s: %w\n%s", s.Name, err, s.offline(dir))
	}
	if err := s.checkMD5(archive); err != nil {
		os.Remove(archive) // not the published file: not to be reused
		return fmt.Errorf("data: %s from %s: %w", s.Name, s.URL, err)
	}
	if err := os.RemoveAll(staging); err != nil {
		return err
	}
	if s.zipped() {
		if err := unpack(archive, s.Prefix, staging); err != nil {
			os.Remove(archive) // not a zip of the expected layout: not to be reused
			return fmt.Errorf("data: %s: %w", archive, err)
		}
	} else if err := copyFile(archive, filepath.Join(staging, s.archiveName())); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(s.Extra)) {
		path := filepath.Join(staging, name)
		if err := fetch(ctx, client, s.Extra[name], path, progress); err != nil {
			return fmt.Errorf("data: downloading %s: %w\n%s", s.Name, err, s.offline(dir))
		}
		if err := s.checkMD5(path); err != nil {
			return fmt.Errorf("data: %s from %s: %w", s.Name, s.Extra[name], err)
		}
	}
	if s.convert != nil {
		if progress != nil {
			fmt.Fprintf(progress, "converting %s (this can take a minute)\n", s.Name)
		}
		if err := s.convert(staging); err != nil {
			os.Remove(archive)
			return fmt.Errorf("data: %s from %s: %w", s.Name, s.URL, err)
		}
	}
	if err := s.verify(staging); err != nil {
		os.Remove(archive) // a corrupt archive must not be resumed from
		return fmt.Errorf("data: %s from %s: %w", s.Name, s.URL, err)
	}
	for name := range s.Files {
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(staging, name), dst); err != nil {
			return err
		}
	}
	return os.RemoveAll(work)
}

// archiveName is the name of the file s.URL fetches: its last path element, without a query.
func (s Source) archiveName() string {
	return path.Base(strings.SplitN(s.URL, "?", 2)[0])
}

// zipped reports whether s.URL is a zip archive to unpack (a .zip, or a Python wheel, which is
// one), rather than a file of the dataset.
func (s Source) zipped() bool {
	return strings.HasSuffix(s.archiveName(), ".zip") || strings.HasSuffix(s.archiveName(), ".whl")
}

// checkMD5 checks the file at path against the MD5 sum s.MD5 publishes for its name, if any.
func (s Source) checkMD5(path string) error {
	want, ok := s.MD5[filepath.Base(path)]
	if !ok {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: MD5 %s, want %s (the sum its publishers give)", filepath.Base(path), got, want)
	}
	return nil
}

// copyFile copies the file src to dst, creating dst's directory.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// missingDirs returns path and those of its ancestors that do not exist, deepest first: what
// os.MkdirAll(path) creates.
func missingDirs(path string) []string {
	var missing []string
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil || filepath.Dir(p) == p {
			return missing
		}
		missing = append(missing, p)
	}
}

// cleanUp removes what a failed download left: the staging folder, an empty partial file, and
// the directories it created once empty. A partial or whole archive stays for the next call
// to resume from or reuse, and err is extended to say so.
func cleanUp(err error, archive, staging string, created []string) error {
	os.RemoveAll(staging)
	part := archive + ".part"
	if fi, statErr := os.Stat(part); statErr == nil && fi.Size() == 0 {
		os.Remove(part)
	}
	for _, dir := range created {
		os.Remove(dir) // only empty directories go
	}
	if fi, statErr := os.Stat(part); statErr == nil {
		return fmt.Errorf("%w\nThe partial download (%d bytes) is kept in %s; run the same command to resume it, or delete it.", err, fi.Size(), part)
	}
	if _, statErr := os.Stat(archive); statErr == nil {
		return fmt.Errorf("%w\nThe downloaded archive is kept in %s; the next run uses it instead of downloading it again, or delete it.", err, archive)
	}
	return err
}

// verify checks that dir holds every file of s.Files with its SHA-256, or, when s.Files has no
// sums, that the dataset in dir reads with the digest s.Digest.
func (s Source) verify(dir string) error {
	if !s.fileSums() {
		ds, err := s.read(dir)
		if err != nil {
			return err
		}
		if err := s.check(ds); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		return nil
	}
	for name, want := range s.Files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			return fmt.Errorf("%s: SHA-256 %s, want %s", name, got, want)
		}
	}
	return nil
}

// fileSums reports whether s.Files gives the files' SHA-256 sums.
func (s Source) fileSums() bool {
	for _, sum := range s.Files {
		if sum != "" {
			return true
		}
	}
	return false
}

// fetch downloads url to path, resuming from path+".part" if an earlier attempt left one.
func fetch(ctx context.Context, client *http.Client, url, path string, progress io.Writer) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	part := path + ".part"
	have := int64(0)
	if fi, err := os.Stat(part); err == nil {
		have = fi.Size()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return os.Rename(part, path) // the partial file is already whole
	default:
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	var w io.Writer = f
	var lines *progressLines
	if progress != nil {
		total := int64(-1)
		if resp.ContentLength >= 0 {
			total = have + resp.ContentLength
		}
		what := "download " + filepath.Base(path)
		if term.Is(progress) {
			bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(progress), progressbar.OptionShowBytes(true),
				progressbar.OptionSetDescription(what), progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(500*time.Millisecond), progressbar.OptionOnCompletion(func() { fmt.Fprintln(progress) }))
			bar.Set64(have)
			w = io.MultiWriter(f, bar)
		} else {
			lines = &progressLines{w: progress, what: what, total: total, done: have, first: have, start: time.Now(), every: 30 * time.Second}
			lines.logged = lines.start
			w = io.MultiWriter(f, lines)
		}
	}
	_, err = io.Copy(w, resp.Body)
	if lines != nil && err == nil {
		lines.finish()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err // the partial file stays, to resume from
	}
	return os.Rename(part, path)
}

// progressLines reports a download's progress in a log: a line at most every interval with the
// megabytes done, the rate and the ETA, and one at the end.
type progressLines struct {
	w                  io.Writer
	what               string
	total, done, first int64 // total is -1 when the server does not say
	start, logged      time.Time
	every              time.Duration
}

func (p *progressLines) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if now := time.Now(); now.Sub(p.logged) >= p.every {
		p.logged = now
		rate := float64(p.done-p.first) / now.Sub(p.start).Seconds()
		line := fmt.Sprintf("%s: %.1f MB", p.what, float64(p.done)/1e6)
		if p.total >= 0 {
			eta := time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second)
			line = fmt.Sprintf("%s of %.1f MB  %.2g MB/s  eta %v", line, float64(p.total)/1e6, rate/1e6, eta)
		} else {
			line = fmt.Sprintf("%s  %.2g MB/s", line, rate/1e6)
		}
		fmt.Fprintln(p.w, line)
	}
	return len(b), nil
}

// finish writes the closing line.
func (p *progressLines) finish() {
	fmt.Fprintf(p.w, "%s: %.1f MB in %v\n", p.what, float64(p.done)/1e6, time.Since(p.start).Round(time.Second))
}

// unpack extracts the files under prefix in the zip archive into dir, without the prefix.
func unpack(archive, prefix, dir string) error {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || name == "" || strings.HasSuffix(name, "/") {
			continue
		}
		if !filepath.IsLocal(name) {
			return fmt.Errorf("entry %q escapes the archive's folder", f.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := extract(f, dst); err != nil {
			return fmt.Errorf("entry %s: %w", f.Name, err)
		}
	}
	return nil
}

func extract(f *zip.File, dst string) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
