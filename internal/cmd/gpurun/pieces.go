package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// piece is one piece of a call, as given on the command line.
type piece struct {
	arg   string // as given, e.g. "zinc:0,1": its name in pieces.jsonl
	kind  string // check, parity, speed, pyg or zinc
	exec  string // speed's execution: sparse or dense
	seeds []int  // zinc's seeds
}

// maxFiles is how many files the device brings back from $OUT.
const maxFiles = 8

// parsePiece reads one piece.
func parsePiece(arg string) (piece, error) {
	p := piece{arg: arg}
	kind, rest, hasArg := strings.Cut(arg, ":")
	bad := fmt.Errorf("unknown piece %s: want check, parity, speed:sparse, speed:dense, pyg or zinc:S[,S...]", arg)
	switch kind {
	case "check", "parity", "pyg":
		if hasArg {
			return p, bad
		}
	case "speed":
		if rest != "sparse" && rest != "dense" {
			return p, bad
		}
		p.exec = rest
	case "zinc":
		for _, s := range strings.Split(rest, ",") {
			seed, err := strconv.Atoi(s)
			if err != nil || seed < 0 || strconv.Itoa(seed) != s {
				return p, fmt.Errorf("unknown piece %s: zinc's seeds are whole numbers separated by commas, e.g. zinc:0,1,2", arg)
			}
			p.seeds = append(p.seeds, seed)
		}
	default:
		return p, bad
	}
	p.kind = kind
	return p, nil
}

// parsePieces reads a call's pieces and checks that what they leave fits in what the device
// returns: one tarball per piece and per seed, and pieces.jsonl.
func parsePieces(args []string) ([]piece, error) {
	var pieces []piece
	given := map[string]bool{}
	seeds := map[int]string{}
	count := 1 // pieces.jsonl
	for _, a := range args {
		p, err := parsePiece(a)
		if err != nil {
			return nil, err
		}
		if given[p.name()] {
			return nil, fmt.Errorf("piece %s given twice", a)
		}
		given[p.name()] = true
		for _, s := range p.seeds {
			if other, ok := seeds[s]; ok && other == a {
				return nil, fmt.Errorf("%s names seed %d twice", a, s)
			} else if ok {
				return nil, fmt.Errorf("seed %d is in %s and in %s: each seed's run can train once per call", s, other, a)
			}
			seeds[s] = a
		}
		count += 1 + len(p.seeds)
		pieces = append(pieces, p)
	}
	if count > maxFiles {
		return nil, fmt.Errorf("these pieces would leave %d files in $OUT, and the device returns %d: split them over two calls", count, maxFiles)
	}
	return pieces, nil
}

// name is the piece's folder and tarball name (gpuresult.Folder).
func (p piece) name() string { return gpuresult.Folder(p.arg) }

// The call's budget is shared by its pieces in order: each gets what is left, and one with
// less than minPiece left is skipped. A zinc piece stops training zincMargin before its
// deadline, to leave time for the runs' last checkpoints and the tarballs; killGrace is how
// long a command has after SIGTERM before SIGKILL.
const (
	minPiece   = 60 * time.Second
	zincMargin = 30 * time.Second
	killGrace  = 20 * time.Second
)

// pieceLimit returns what is left of the call's budget after elapsed (counted in whole
// seconds, as bash's $SECONDS), and whether a piece may start with it.
func pieceLimit(budget, elapsed time.Duration) (left time.Duration, start bool) {
	left = budget - elapsed.Truncate(time.Second)
	return left, left >= minPiece
}

// zincLimit returns sgformer's --time-limit for a zinc piece with left of the call: at most
// zincBudget, and zincMargin short of left.
func zincLimit(zincBudget, left time.Duration) (time.Duration, error) {
	limit := min(zincBudget, left-zincMargin)
	if limit <= 0 {
		return 0, fmt.Errorf("no time left for training (%v of the call)", left)
	}
	return limit, nil
}
