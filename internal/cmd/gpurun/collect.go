package main

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
	"github.com/sgformer/sgformer/internal/record"
)

// collect unpacks what a device call brought back (from, the run tool's files_at) into dest:
// each FOLDER.tar.gz replaces dest/FOLDER, each runs-seed-S.tar.gz replaces dest/runs/seed-S,
// and from/pieces.jsonl is appended to dest/pieces.jsonl; then dest/records.jsonl is written
// afresh from them (gpuresult.Records), the records the documents are rendered from. What the
// call did not bring back is kept. A piece's XLA dump (FOLDER/xla-dump, tens of megabytes: more
// than the tracked files of a device call may hold) is summarised into FOLDER/xla-summary.json
// and moved to dumps/FOLDER.
func collect(from, dest, dumps string, stdout io.Writer) error {
	if st, err := os.Stat(from); err != nil || !st.IsDir() {
		return fmt.Errorf("collect %s: not a folder (usage: gpu-run.sh collect FILES_AT [DEST])", from)
	}
	tarballs, err := filepath.Glob(filepath.Join(from, "*.tar.gz"))
	if err != nil {
		return err
	}
	sort.Strings(tarballs)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	for _, t := range tarballs {
		top := strings.TrimSuffix(filepath.Base(t), ".tar.gz")
		if seed, ok := strings.CutPrefix(top, "runs-"); ok && strings.HasPrefix(seed, "seed-") {
			top = "runs/" + seed
		}
		if err := os.RemoveAll(filepath.Join(dest, top)); err != nil {
			return err
		}
		if err := untarGz(t, dest, top); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "gpu-run: %s -> %s\n", t, filepath.Join(dest, top))
		if err := moveDump(filepath.Join(dest, top), filepath.Join(dumps, top), stdout); err != nil {
			return err
		}
	}
	lines, err := os.ReadFile(filepath.Join(from, "pieces.jsonl"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := appendFile(filepath.Join(dest, "pieces.jsonl"), lines); err != nil {
			return err
		}
	}
	return writeRecords(dest, stdout)
}

// writeRecords rewrites dest's records from its pieces.jsonl and folders, if it has pieces.
func writeRecords(dest string, stdout io.Writer) error {
	if _, err := os.Stat(filepath.Join(dest, "pieces.jsonl")); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	recs, err := gpuresult.Records(dest)
	if err != nil {
		return err
	}
	path := filepath.Join(dest, gpuresult.RecordsFile)
	if err := record.Write(path, recs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "gpu-run: %d records in %s\n", len(recs), path)
	return nil
}

// moveDump summarises piece/xla-dump, if there is one, into piece/xla-summary.json and moves
// it to dst.
func moveDump(piece, dst string, stdout io.Writer) error {
	dump := filepath.Join(piece, "xla-dump")
	if _, err := os.Stat(dump); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := gpuresult.WriteXLASummary(dump, filepath.Join(piece, gpuresult.XLASummaryFile)); err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(dump, dst); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "gpu-run: %s summarised in %s, moved to %s\n", dump, gpuresult.XLASummaryFile, dst)
	return nil
}

// tarGz packs the folder top of root (a relative path, kept in the archive) into the file
// dst; only folders and regular files are packed.
func tarGz(dst, root, top string) (err error) {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	err = filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(tw, src)
		return errors.Join(err, src.Close())
	})
	return errors.Join(err, tw.Close(), zw.Close())
}

// untarGz unpacks the tarball src into dest; every entry must lie in the folder top (so a
// tarball cannot write elsewhere) and be a folder or a regular file.
func untarGz(src, dest, top string) (err error) {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		name := path.Clean(h.Name)
		if name != top && !strings.HasPrefix(name, top+"/") {
			return fmt.Errorf("%s: entry %q lies outside %s/", src, h.Name, top)
		}
		target := filepath.Join(dest, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, h.FileInfo().Mode().Perm())
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if err := errors.Join(err, out.Close()); err != nil {
				return fmt.Errorf("%s: %s: %w", src, h.Name, err)
			}
		default:
			return fmt.Errorf("%s: entry %q is neither a folder nor a file", src, h.Name)
		}
	}
}

// gunzipFile writes the gzipped file src uncompressed to dst with mode perm.
func gunzipFile(src, dst string, perm os.FileMode) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	// A fresh file: the old one may be running (a second call on a warm machine).
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, zr)
	if err := errors.Join(err, out.Close()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", src, err)
	}
	return os.Rename(tmp, dst)
}
