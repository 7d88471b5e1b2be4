package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// check reports the machine (uname, glibc, what the binary links, nvidia-smi) into
// machine.txt, fails when the binary cannot run here, then trains 1 epoch on the GPU.
func check(ctx context.Context, j *job, p piece) error {
	var machine bytes.Buffer
	w := io.MultiWriter(&machine, j.out)
	output := func(name string, args ...string) string {
		out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
		if err != nil {
			out = fmt.Appendf(out, "%s: %v\n", name, err)
		}
		return string(out)
	}
	show := func(name string, args ...string) string {
		out := output(name, args...)
		io.WriteString(w, out)
		return out
	}
	show("uname", "-a")
	lddVersion, _, _ := strings.Cut(output("ldd", "--version"), "\n") // the rest is its licence
	fmt.Fprintln(w, lddVersion)
	need := "unknown"
	if b, err := os.ReadFile(gpuDir + "/GLIBC"); err == nil {
		need = strings.TrimSpace(string(b))
	}
	fmt.Fprintf(w, "binary needs: %s\n", need)
	libs := show("ldd", sgformer)
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		show("nvidia-smi")
	} else {
		fmt.Fprintln(w, "nvidia-smi: not available")
	}
	if err := os.WriteFile(j.path("machine.txt"), machine.Bytes(), 0o644); err != nil {
		return err
	}
	if strings.Contains(libs, "not found") {
		return fmt.Errorf("the binary lacks shared libraries (see machine.txt)")
	}
	have, err := glibcOK(lddVersion, need)
	if err != nil {
		return err
	}

	if err := j.gpuEnv(ctx); err != nil {
		return err
	}
	var env bytes.Buffer
	for _, k := range []string{"PJRT_PLUGIN_LIBRARY_PATH", "LD_LIBRARY_PATH", "XLA_FLAGS", "GOMLX_NO_AUTO_INSTALL"} {
		if v := j.getenv(k); v != "" {
			fmt.Fprintf(&env, "%s=%s\n", k, v)
		}
	}
	if err := os.WriteFile(j.path("env.txt"), env.Bytes(), 0o644); err != nil {
		return err
	}
	start := time.Now()
	subset := "128"
	if j.cfg.dry {
		subset = "32"
	}
	args := append([]string{"train", "--dataset", "zinc12k", "--data-dir", dataDir, "--cache-dir", cacheDir,
		"--train-subset", subset, "--batch-size", "32", "--epochs", "1"}, j.small()...)
	args = append(args, "--backend", j.backend(), "--out", j.path("run"))
	if err := j.run(ctx, files{stdout: "summary.json", stderr: "train.log", tee: true}, sgformer, args...); err != nil {
		return err
	}
	seconds := time.Since(start).Seconds()
	es, err := gpuresult.ReadEpochs(j.path("run"))
	if err != nil {
		return err
	}
	if err := dropVariables(j.path("run")); err != nil {
		return err
	}
	r := gpuresult.Check{Backend: j.backend(), GLIBC: have, Seconds: seconds}
	for _, e := range es {
		r.EpochSeconds = append(r.EpochSeconds, e.Seconds)
	}
	return j.writeJSON("result.json", r)
}

// glibcVersion is the "2.36" at the end of a line such as ldd --version's first.
var glibcVersion = regexp.MustCompile(`(\d+)\.(\d+)\s*$`)

// glibcOK checks the machine's glibc (the first line of `ldd --version`) against the one the
// binary needs ("GLIBC_2.34", build/gpu/GLIBC) and returns the machine's.
func glibcOK(lddVersion, need string) (string, error) {
	m := glibcVersion.FindStringSubmatch(lddVersion)
	if m == nil {
		return "", fmt.Errorf("no glibc version in ldd --version's %q", lddVersion)
	}
	n := glibcVersion.FindStringSubmatch(strings.TrimPrefix(need, "GLIBC_"))
	if n == nil {
		return "", fmt.Errorf("build/gpu/GLIBC holds %q, not the glibc the binary needs: run scripts/gpu-build.sh again", need)
	}
	have := m[1] + "." + m[2]
	if version(m[1:]) < version(n[1:]) {
		return have, fmt.Errorf("glibc %s is older than the %s.%s the binary needs", have, n[1], n[2])
	}
	return have, nil
}

// version orders major.minor.
func version(parts []string) int {
	major, _ := strconv.Atoi(parts[0])
	minor, _ := strconv.Atoi(parts[1])
	return major*1000 + minor
}
