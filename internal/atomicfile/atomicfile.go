// Package atomicfile writes files so that readers see either the old content or the new, never
// a partial file: through a synced temporary file in the same directory, renamed into place.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path atomically, creating the directory if needed; the file has mode
// 0644.
func Write(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort() // a no-op once committed
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// File is a file being written atomically, for output too large to hold in memory: written
// as it is produced, it appears at its path only at Commit.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path atomically, creating the directory if needed: a temporary file
// beside it, which Commit renames to path and Abort removes.
func Create(path string) (*File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Commit syncs the file, gives it mode 0644 and renames it to its path. On error the
// temporary file is removed and the path left as it was.
func (f *File) Commit() error {
	if f.done {
		return os.ErrClosed
	}
	f.done = true
	for _, step := range []func() error{func() error { return f.Chmod(0o644) }, f.Sync} {
		if err := step(); err != nil {
			f.Close()
			os.Remove(f.Name())
			return err
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// Abort closes and removes the temporary file, leaving the path as it was; after Commit it
// does nothing.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}
