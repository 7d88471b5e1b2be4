// Command nbcheck checks executed Jupyter notebooks for failed cells (package
// internal/nbcheck): error outputs, compile errors, panics and non-zero exit statuses on
// stderr, and code cells that did not run. scripts/notebooks.sh runs it on every notebook it
// executes.
//
//	go run ./internal/cmd/nbcheck NOTEBOOK.ipynb...
//	go run ./internal/cmd/nbcheck -save EXECUTED.ipynb NOTEBOOK.ipynb
//
// -save writes the executed notebook, stamped with the digest of its cells (nbcheck.Stamp),
// over the committed one, for scripts/notebooks.sh --save.
//
// It prints one line per clean notebook and, for each problem, the notebook, the cell (counted
// from 1, with its In [n] number and first line) and the offending output. Exit status: 0 when
// every notebook is clean, 1 when a cell failed, 2 when a file cannot be read as a notebook.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/internal/nbcheck"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// save writes the executed notebook, stamped, to path, atomically.
func save(executed, path string) error {
	raw, err := os.ReadFile(executed)
	if err != nil {
		return err
	}
	stamped, err := nbcheck.Stamp(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", executed, err)
	}
	return atomicfile.Write(path, stamped)
}

// run checks the notebooks named in args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: nbcheck NOTEBOOK.ipynb...\n       nbcheck -save EXECUTED.ipynb NOTEBOOK.ipynb")
		return 2
	}
	if args[0] == "-save" {
		if len(args) != 3 {
			fmt.Fprintln(stderr, "usage: nbcheck -save EXECUTED.ipynb NOTEBOOK.ipynb")
			return 2
		}
		if err := save(args[1], args[2]); err != nil {
			fmt.Fprintln(stderr, "nbcheck:", err)
			return 1
		}
		return 0
	}
	status := 0
	for _, path := range args {
		problems, err := nbcheck.CheckFile(path)
		if err != nil {
			fmt.Fprintln(stderr, "nbcheck:", err)
			status = 2
			continue
		}
		if len(problems) == 0 {
			fmt.Fprintf(stdout, "%s: ok\n", path)
			continue
		}
		for _, p := range problems {
			fmt.Fprintf(stderr, "%s: %s\n", path, p)
		}
		status = max(status, 1)
	}
	return status
}
