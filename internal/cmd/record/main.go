// Command record turns a benchmark script's output into records (internal/record):
//
//	SCRIPT | go run ./internal/cmd/record -o OUT.jsonl
//
// The output's format is record.Parse's; scripts/lib/record.sh writes its header. Nothing is
// written when the output lacks a header line or holds no measurement.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sgformer/sgformer/internal/record"
)

func main() {
	out := flag.String("o", "", "the records' file (written atomically; required)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: SCRIPT | record -o OUT.jsonl")
		os.Exit(2)
	}
	s, err := record.Parse(os.Stdin)
	if err == nil {
		err = record.Write(*out, s)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}
