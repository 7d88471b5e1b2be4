package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// versionLine describes the build: the module's version (a release tag when installed with
// go install …@version, a pseudo-version or "(devel)" from a checkout), the Go version, and the
// VCS revision, time and whether the tree was modified, where the build recorded them.
func versionLine(info *debug.BuildInfo) string {
	if info == nil {
		return fmt.Sprintf("sgformer (unknown version: no build information), %s\n", runtime.Version())
	}
	line := fmt.Sprintf("sgformer %s (%s), %s", info.Main.Version, info.Main.Path, info.GoVersion)
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	if rev := vcs["vcs.revision"]; rev != "" {
		var notes []string
		if t := vcs["vcs.time"]; t != "" {
			notes = append(notes, t)
		}
		if vcs["vcs.modified"] == "true" {
			notes = append(notes, "modified")
		}
		line += ", revision " + rev
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	return line + "\n"
}

// printVersion writes versionLine for this binary.
func printVersion(io stdio) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	fmt.Fprint(io.out, versionLine(info))
}
