package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	const testdata = "../../nbcheck/testdata/"
	for _, tc := range []struct {
		args         []string
		status       int
		stdout, errs string
	}{
		{[]string{testdata + "clean.ipynb"}, 0, testdata + "clean.ipynb: ok", ""},
		{[]string{testdata + "clean.ipynb", testdata + "panic.ipynb"}, 1, "clean.ipynb: ok",
			testdata + "panic.ipynb: cell 1 of 2 (In [1], \"fmt.Println(\\\"before\\\")\"): panic:\n    panic: boom"},
		{[]string{testdata + "malformed.ipynb", testdata + "panic.ipynb"}, 2, "",
			"nbcheck: " + testdata + "malformed.ipynb: invalid notebook JSON"},
		{nil, 2, "", "usage: nbcheck"},
	} {
		var stdout, stderr bytes.Buffer
		status := run(tc.args, &stdout, &stderr)
		if status != tc.status || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.errs) {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d, %q, %q",
				tc.args, status, stdout.String(), stderr.String(), tc.status, tc.stdout, tc.errs)
		}
	}
}
