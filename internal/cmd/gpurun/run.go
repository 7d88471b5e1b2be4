package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// What scripts/gpu-build.sh leaves in build/gpu, relative to the repository root (the working
// directory): relative paths, because run.json stores the data folder and the tree's path may
// change between calls.
const (
	gpuDir   = "build/gpu"
	dataDir  = gpuDir + "/data/zinc12k"
	cacheDir = gpuDir + "/cache"
	binDir   = gpuDir + "/bin"
	sgformer = binDir + "/sgformer"
)

// runner runs the pieces of one call.
type runner struct {
	cfg    config
	stdout io.Writer
	start  time.Time // when the call began
	call   string    // start, as recorded
	gpu    string    // the card, as recorded
	build  string    // build/gpu's commit, as recorded
}

// newRunner unpacks the binaries from build/gpu and prepares $OUT and the work folder.
func newRunner(cfg config, stdout io.Writer) (*runner, error) {
	if err := unpack(); err != nil {
		return nil, err
	}
	for _, d := range []string{cfg.out, cfg.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	start := time.Now().UTC()
	r := &runner{cfg: cfg, stdout: stdout, start: start, call: start.Format(time.RFC3339), gpu: "none", build: "unknown"}
	if out, err := exec.Command("nvidia-smi", "--query-gpu=name", "--format=csv,noheader").Output(); err == nil {
		if name, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n"); name != "" {
			r.gpu = name
		}
	}
	if b, err := os.ReadFile(filepath.Join(gpuDir, "COMMIT")); err == nil {
		r.build = strings.TrimSpace(string(b))
	}
	return r, nil
}

// unpack puts the gzipped binaries of build/gpu into build/gpu/bin.
func unpack() error {
	for _, name := range []string{"sgformer", "training.test"} {
		gz := filepath.Join(gpuDir, name+".gz")
		if _, err := os.Stat(gz); err != nil {
			return fmt.Errorf("%s missing: run scripts/gpu-build.sh here and carry build/gpu", gz)
		}
		if err := gunzipFile(gz, filepath.Join(binDir, name), 0o755); err != nil {
			return err
		}
	}
	return os.MkdirAll(cacheDir, 0o755)
}

// runAll runs the pieces in order and returns the first failure's exit status.
func (r *runner) runAll(ctx context.Context, pieces []piece) int {
	status := 0
	for _, p := range pieces {
		if rc := r.runPiece(ctx, p); status == 0 {
			status = rc
		}
	}
	return status
}

// runPiece runs one piece in its folder under what is left of the call's budget, packs the
// folder into $OUT and records it; it returns the piece's exit status.
func (r *runner) runPiece(ctx context.Context, p piece) int {
	dir := filepath.Join(r.cfg.work, p.name())
	rec := gpuresult.Piece{Piece: p.arg, Call: r.call, GPU: r.gpu, Build: r.build}
	if err := os.RemoveAll(dir); err != nil {
		return r.record(rec, 1, err, nil)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r.record(rec, 1, err, nil)
	}
	left, ok := pieceLimit(r.cfg.budget, time.Since(r.start))
	if ctx.Err() != nil {
		ok = false
	}
	if !ok {
		reason := fmt.Sprintf("%ds left of the call's budget", int(left.Seconds()))
		if ctx.Err() != nil {
			reason = "the call was interrupted"
		}
		result, _ := json.Marshal(gpuresult.Skipped{Skipped: reason})
		return r.record(rec, 0, nil, result)
	}

	start := time.Now()
	log, err := os.Create(filepath.Join(dir, "output.txt"))
	if err != nil {
		return r.record(rec, 1, err, nil)
	}
	j := &job{cfg: r.cfg, dir: dir, left: left, out: &lockedWriter{w: io.MultiWriter(r.stdout, log)}}
	pctx, cancel := context.WithTimeout(ctx, left)
	err = pieces[p.kind](pctx, j, p)
	rc := exitStatus(pctx, err)
	cancel()
	switch {
	case rc == 124:
		err = errors.Join(fmt.Errorf("stopped at the call's budget (%ds left)", int(left.Seconds())), err)
	case err != nil && errors.Is(ctx.Err(), context.Canceled):
		err = fmt.Errorf("interrupted: %w", err)
	}
	if err != nil {
		fmt.Fprintf(j.out, "gpu-run: %s: %v\n", p.arg, err)
	}
	if cerr := log.Close(); cerr != nil && err == nil {
		err, rc = cerr, 1
	}

	packs := [][2]string{{p.name(), p.name()}}
	for _, s := range p.seeds {
		run := filepath.Join("runs", fmt.Sprintf("seed-%d", s))
		if _, serr := os.Stat(filepath.Join(r.cfg.work, run)); serr == nil {
			packs = append(packs, [2]string{"runs-seed-" + strconv.Itoa(s), run})
		}
	}
	for _, pk := range packs {
		if terr := tarGz(filepath.Join(r.cfg.out, pk[0]+".tar.gz"), r.cfg.work, pk[1]); terr != nil {
			fmt.Fprintf(r.stdout, "gpu-run: %s: %v\n", p.arg, terr)
			if err == nil {
				err, rc = terr, 1
			}
		}
	}
	rec.Seconds = time.Since(start).Round(time.Millisecond).Seconds()
	result, _ := os.ReadFile(filepath.Join(dir, "result.json")) // none, or not JSON: null
	return r.record(rec, rc, err, result)
}

// record appends the piece's line to $OUT/pieces.jsonl (and prints it), and returns rc.
func (r *runner) record(rec gpuresult.Piece, rc int, err error, result []byte) int {
	rec.RC = rc
	rec.Date = time.Now().UTC().Format(time.RFC3339)
	if err != nil {
		rec.Error = err.Error()
		if rc == 0 {
			rec.RC, rc = 1, 1
		}
	}
	rec.Result = json.RawMessage("null")
	if len(result) > 0 {
		var compact bytes.Buffer
		if json.Compact(&compact, result) == nil {
			rec.Result = compact.Bytes()
		}
	}
	line, merr := json.Marshal(rec)
	if merr == nil {
		line = append(line, '\n')
		r.stdout.Write(line)
		merr = appendFile(filepath.Join(r.cfg.out, "pieces.jsonl"), line)
	}
	if merr != nil {
		fmt.Fprintf(r.stdout, "gpu-run: %s: recording: %v\n", rec.Piece, merr)
		if rc == 0 {
			rc = 1
		}
	}
	return rc
}

// exitStatus is a piece's exit status: 124 when ctx's deadline stopped it (as timeout(1)
// says, even if its commands then ended well), 0 without error, that of the command that
// failed (128 + the signal that killed it), else 1.
func exitStatus(ctx context.Context, err error) int {
	var exit *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return 124
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()) // as a shell says: 137 for a kill (the OOM killer's)
		}
	}
	return 1
}

// pieces runs each kind of piece: in j.dir, writing result.json there.
var pieces = map[string]func(ctx context.Context, j *job, p piece) error{
	"check":  check,
	"parity": parity,
	"speed":  speed,
	"pyg":    pyg,
	"zinc":   zinc,
}

// job is one piece at work.
type job struct {
	cfg  config
	dir  string
	left time.Duration // of the call's budget when it began
	out  io.Writer     // its console: this program's output and dir/output.txt
	env  []string      // its commands' environment: scripts/gpu-env.sh's (nil: this program's)
}

// backend is the backend under test: xla:cuda, or the pure-Go one in a dry run.
func (j *job) backend() string {
	if j.cfg.dry {
		return "go"
	}
	return gpuresult.DeviceBackend
}

// small is the model's size flags: the recipe's, or a small model in a dry run.
func (j *job) small() []string {
	if j.cfg.dry {
		return []string{"--layers", "2", "--hidden", "24"}
	}
	return nil
}

// path is a file of the piece's folder.
func (j *job) path(name string) string { return filepath.Join(j.dir, name) }

// command is a command of the piece: SIGTERM when ctx ends, SIGKILL killGrace later; its
// output goes to the piece's console unless redirected.
func (j *job) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = killGrace
	cmd.Env = j.env
	cmd.Stdout, cmd.Stderr = j.out, j.out
	return cmd
}

// files says where a command's output goes: stdout and stderr, where not empty, name files
// (of the piece's folder unless absolute), stdout's written anew, stderr's appended to (a log
// of several commands); tee sends stderr to the console too. What is not redirected goes to
// the console.
type files struct {
	stdout, stderr string
	tee            bool
}

// run runs a command with its output in the files f.
func (j *job) run(ctx context.Context, f files, name string, args ...string) error {
	cmd := j.command(ctx, name, args...)
	closeAll, err := j.redirect(cmd, f)
	if err != nil {
		return err
	}
	err = cmd.Run()
	if cerr := closeAll(); err == nil {
		err = cerr
	}
	if err != nil && f.stderr != "" && !f.tee {
		return fmt.Errorf("%s %s: %w (see %s)", filepath.Base(name), firstWord(args), err, f.stderr)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", filepath.Base(name), firstWord(args), err)
	}
	return nil
}

// redirect points cmd's stdout and stderr at the files f.
func (j *job) redirect(cmd *exec.Cmd, f files) (closeAll func() error, err error) {
	var opened []*os.File
	closeAll = func() error {
		var err error
		for _, f := range opened {
			err = errors.Join(err, f.Close())
		}
		return err
	}
	open := func(name string, mode int) (*os.File, error) {
		if !filepath.IsAbs(name) {
			name = j.path(name)
		}
		f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|mode, 0o644)
		if err == nil {
			opened = append(opened, f)
		}
		return f, err
	}
	if f.stdout != "" {
		out, err := open(f.stdout, os.O_TRUNC)
		if err != nil {
			return closeAll, err
		}
		cmd.Stdout = out
	}
	if f.stderr != "" {
		out, err := open(f.stderr, os.O_APPEND)
		if err != nil {
			closeAll()
			return nil, err
		}
		cmd.Stderr = out
		if f.tee {
			cmd.Stderr = io.MultiWriter(out, j.out)
		}
	}
	return closeAll, nil
}

// firstWord is a command's subcommand, for errors.
func firstWord(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// gpuEnv sources scripts/gpu-env.sh (not in a dry run), which finds the CUDA plugin and
// libraries, and keeps the environment it leaves for the piece's commands; its report goes to
// gpu-env.txt and the console.
func (j *job) gpuEnv(ctx context.Context) error {
	if j.cfg.dry {
		return nil
	}
	report, err := os.Create(j.path("gpu-env.txt"))
	if err != nil {
		return err
	}
	defer report.Close()
	cmd := j.command(ctx, "bash", "-c", `source scripts/gpu-env.sh >&2 && env -0`)
	var env bytes.Buffer
	cmd.Stdout, cmd.Stderr = &env, io.MultiWriter(report, j.out)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("scripts/gpu-env.sh failed (see gpu-env.txt): %w", err)
	}
	j.env = strings.Split(strings.TrimSuffix(env.String(), "\x00"), "\x00")
	return nil
}

// getenv is a variable of the piece's commands' environment.
func (j *job) getenv(name string) string {
	if j.env == nil {
		return os.Getenv(name)
	}
	for _, kv := range j.env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// environ is the piece's commands' environment with extra set.
func (j *job) environ(extra ...string) []string {
	env := j.env
	if env == nil {
		env = os.Environ()
	}
	return append(append([]string(nil), env...), extra...)
}

// writeJSON writes v as the piece's file name.
func (j *job) writeJSON(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(j.path(name), append(b, '\n'), 0o644)
}

// dropVariables deletes a timing run's checkpoints (not needed back here).
func dropVariables(run string) error {
	matches, err := filepath.Glob(filepath.Join(run, "checkpoint.*"))
	if err != nil {
		return err
	}
	more, _ := filepath.Glob(filepath.Join(run, "best.*"))
	for _, m := range append(append(matches, more...), filepath.Join(run, "checkpoint"), filepath.Join(run, "best")) {
		if err := os.RemoveAll(m); err != nil {
			return err
		}
	}
	return nil
}

// appendFile appends b to the file at path.
func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

// lockedWriter serialises writes from commands running at the same time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
