// Package term tells a terminal from a log: progress bars redrawn in place belong on the first,
// lines at intervals in the second.
package term

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Is reports whether w is a terminal.
func Is(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
