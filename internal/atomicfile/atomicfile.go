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
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	for _, step := range []func() error{
		func() error { _, err := f.Write(data); return err },
		func() error { return f.Chmod(0o644) },
		f.Sync,
	} {
		if err := step(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
