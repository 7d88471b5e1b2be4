// Command sgformer is the command line of the Go implementation of Subgraphormer.
//
//	sgformer molecule   --smiles SMILES              a molecule's graph (OGB's features), as JSON
//	sgformer product    --graph FILE                 product-graph connectivities and node marks, as JSON
//	sgformer pe         --graph FILE --k K           product-graph positional encoding, as JSON
//	sgformer download   --dataset D [--data-dir DIR] fetch a dataset (ZINC-12k, OGB) with checksums and resume
//	sgformer install-xla [--pjrt-dir DIR]            install XLA's CPU plugin (pinned, from PyPI): --backend xla:cpu
//	sgformer preprocess --dataset zinc12k --data-dir DIR --pe-k K --out DIR
//	                                                 preprocess a dataset into a cache, with progress
//	sgformer train      --dataset D [--data-dir DIR] --out RUN [--resume] [hyperparameters]
//	sgformer eval       --run RUN                    validation and test metric of the best epoch
//	sgformer predict    --run RUN --graph FILE       {"prediction": [...]} for one graph (or --smiles SMILES)
//	sgformer predict    --run RUN --input FILE.csv [--smiles-column C] [--output FILE] [--format csv|jsonl]
//	                                                 predictions for a table of molecules
//	sgformer compare    --dataset D --out DIR        train several models, print a comparison table
//	sgformer ablate     --dataset D --ratios 1,0.5 --pe-k 0,8 --seeds 0,1,2 --out DIR
//	                                                 train the grid (resumable), then render its table;
//	                                                 --list its cells, --cell N one of them (a Slurm array task)
//	sgformer table      DIR                          the runs under DIR as the paper's tables (Markdown, JSON)
//	sgformer plot       [--format svg|png|both] RUN  draw a run's training curves (curves.svg, curves.png)
//	sgformer brec       --pairs FILE --test 2-fwl --out RESULTS.jsonl
//	                                                 BREC's pairs under an exact WL test, per category (resumable)
//	sgformer import     --from-pytorch MODEL.pt --config CONFIG.yaml --out RUN
//	                                                 the authors' PyTorch model as a run (eval, predict, fine-tune)
//	sgformer export     --run RUN --to-pytorch MODEL.pt
//	                                                 a run's weights as a state_dict of the authors' model
//	sgformer --version                               module version, Go version and VCS revision
//
// FILE is a graph in JSON, {"num_nodes": n, "edges": [[u,v], ...]}, each undirected edge listed
// once in either orientation; "-" reads standard input. Run "sgformer COMMAND -h" for a
// command's flags.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sgformer/sgformer/internal/memory"
)

func main() {
	memory.SoftLimit(0.9) // collect garbage rather than be killed for it
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand: its flags are defined on fs, and do runs it.
type command struct {
	name, summary string
	do            func(args []string, io stdio) error
}

type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// commands are the subcommands (set in init: their flag sets read the summaries here).
var commands []command

func init() {
	commands = []command{
		{"molecule", "print a molecule's graph (from SMILES, OGB's features) as JSON", moleculeCmd},
		{"product", "print the product graph's connectivities and node marks of a graph as JSON", productCmd},
		{"pe", "print the product-graph positional encoding of a graph as JSON", peCmd},
		{"download", "download a dataset from its canonical source, with checksums and resume", downloadCmd},
		{"install-xla", "install XLA's CPU plugin (pinned, from PyPI), which then is the default backend", installXLACmd},
		{"preprocess", "preprocess a dataset (product graphs, node marks, PE) into a cache", preprocessCmd},
		{"train", "train a model (Subgraphormer, GNN-SSWL+ or GIN), resumable, with metrics.jsonl and checkpoints", trainCmd},
		{"eval", "evaluate a trained run's best (or latest) checkpoint on the validation and test splits", evalCmd},
		{"predict", "predict the targets of a graph, a SMILES or a CSV table of molecules with a trained run", predictCmd},
		{"compare", "train several models on the same data and print a comparison table", compareCmd},
		{"ablate", "train a grid of sampling ratios × PE sizes × seeds (resumable; skips finished cells)", ablateCmd},
		{"table", "render the runs under a directory as the paper's tables (mean ± std over seeds)", tableCmd},
		{"plot", "draw a run's training curves as SVG and PNG", plotCmd},
		{"brec", "run the BREC expressiveness benchmark under the exact 1-WL or 2-FWL (3-WL) test, pair by pair, resumable", brecCmd},
		{"import", "import a model trained with the authors' PyTorch code as a run (state_dict or whole model)", importCmd},
		{"export", "write a Subgraphormer run's weights as a state_dict of the authors' PyTorch model", exportCmd},
	}
}

// run executes the command line args and returns the process exit code: 0 on success, 1 on
// failure, 2 on a usage error, 130 when interrupted (Ctrl-C).
func run(args []string, in io.Reader, out, errOut io.Writer) int {
	usage := func() {
		fmt.Fprintln(errOut, "usage: sgformer COMMAND [flags]\n\ncommands:")
		for _, c := range commands {
			fmt.Fprintf(errOut, "  %-11s %s\n", c.name, c.summary)
		}
		fmt.Fprintln(errOut, "\nRun 'sgformer COMMAND -h' for a command's flags, 'sgformer --version' for the build.")
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		printVersion(stdio{in, out, errOut})
		return 0
	}
	if len(args) == 2 && args[0] == "help" {
		args = []string{args[1], "-h"} // sgformer help CMD: the command's own help
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.do(args[1:], stdio{in, out, errOut})
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, new(usageError)):
			fmt.Fprintf(errOut, "sgformer %s: %v\n", c.name, err)
			return 2
		case errors.As(err, new(interrupted)):
			fmt.Fprintf(errOut, "sgformer %s: %v\n", c.name, err)
			return 130
		default:
			fmt.Fprintf(errOut, "sgformer %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(errOut, "sgformer: unknown command %q\n\n", args[0])
	usage()
	return 2
}

// usageError is a mistake in the command line rather than a failure of the work.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// newFlagSet returns the flag set of the command name, whose help says what the command does
// (its summary) and lists its flags; describe replaces the summary by a longer text.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("sgformer "+name, flag.ContinueOnError)
	summary := ""
	for _, c := range commands {
		if c.name == name {
			summary = strings.ToUpper(c.summary[:1]) + c.summary[1:] + "."
		}
	}
	describe(fs, fmt.Sprintf("usage: sgformer %s [flags]\n\n%s\n", name, summary))
	return fs
}

// describe sets the help of fs: text (the usage line and what the command does), then its
// flags.
func describe(fs *flag.FlagSet, text string) {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), strings.TrimRight(text, "\n")+"\n\nflags:\n")
		fs.PrintDefaults()
	}
}

// parseFlags parses args into fs. The help goes to io.out for -h (it is the output asked for;
// exit status 0) and to io.err after a mistake.
func parseFlags(fs *flag.FlagSet, args []string, io stdio) error {
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(io.err)
	to := io.err
	if errors.Is(err, flag.ErrHelp) {
		to = io.out
	}
	_, _ = to.Write(buf.Bytes())
	return err
}

// parse parses args into fs, turning flag errors into usage errors and rejecting extra
// arguments.
func parse(fs *flag.FlagSet, args []string, io stdio) error {
	if err := parseFlags(fs, args, io); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
