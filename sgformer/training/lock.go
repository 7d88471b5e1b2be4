package training

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockFile is the file in a run directory on which its writer holds an exclusive advisory lock
// (flock) while it trains: a second writer of the same directory — two `sgformer train` with the
// same --out, a resume while the run still trains — is refused at once instead of interleaving
// its records with the first. The lock goes with the process that holds it, however it ends
// (even SIGKILL), so a stale file never blocks a later writer; the file's content, the holder's
// host, PID and start, is only there to name it in the error.
const lockFile = ".lock"

// ErrLocked is the error (errors.Is) of a writer refused a run directory that another process
// writes.
var ErrLocked = errors.New("training: the run directory is being written by another process")

// lockedError names the process that holds a run directory's lock; it is ErrLocked.
type lockedError struct{ msg string }

func (e lockedError) Error() string      { return e.msg }
func (lockedError) Is(target error) bool { return target == ErrLocked }

// Locked reports whether a process holds the lock of the run directory dir now (a directory
// without a lock file has none). Only a writer's own lock is race-free: Train takes it.
func Locked(dir string) bool {
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// lockHolder is what lockFile records of the process holding the lock.
type lockHolder struct {
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// lockRun creates dir if needed and takes its lock, returning the function that releases it,
// or an error naming the holder when another process has it.
func lockRun(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("training: locking %s: %w", path, err)
		}
		var h lockHolder
		raw, _ := os.ReadFile(path)
		if json.Unmarshal(raw, &h) != nil || h.PID == 0 {
			return nil, lockedError{fmt.Sprintf("training: %s is being written by another process; wait for it to end or stop it", dir)}
		}
		return nil, lockedError{fmt.Sprintf("training: %s is being written by process %d on %s since %s; wait for it to end or stop it",
			dir, h.PID, h.Host, h.Started.Format(time.RFC3339))}
	}
	host, _ := os.Hostname()
	raw, _ := json.Marshal(lockHolder{Host: host, PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second)})
	if err := f.Truncate(0); err == nil {
		f.WriteAt(append(raw, '\n'), 0)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
