package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		code, stdout, stderr := runCLI(t, "", arg)
		if code != 0 || !strings.HasPrefix(stdout, "sgformer ") || !strings.Contains(stdout, runtime.Version()) || stderr != "" {
			t.Errorf("sgformer %s: exit %d, %q, %q", arg, code, stdout, stderr)
		}
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/sgformer/sgformer", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "9487493abcdef0123456789"}, {Key: "vcs.time", Value: "2026-11-23T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(info), "sgformer v0.3.0 (github.com/sgformer/sgformer), go1.26.8, revision 9487493abcdef0123456789 (2026-11-23T12:00:00Z, modified)\n"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
	if got, want := versionLine(nil), "sgformer (unknown version: no build information), "+runtime.Version()+"\n"; got != want {
		t.Errorf("versionLine(nil) = %q, want %q", got, want)
	}
	if _, _, stderr := runCLI(t, ""); !strings.Contains(stderr, "--version") {
		t.Errorf("usage does not mention --version: %s", stderr)
	}
}
