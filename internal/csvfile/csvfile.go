// Package csvfile reads CSV tables with a header line (RFC 4180, as Python's csv module and
// pandas write them), plain or gzip-compressed, one record at a time. Every error names the
// file and line (FILE:LINE: ...), and a record is refused once it exceeds MaxRecordBytes,
// before more of it is held in memory, so that a file with a huge field cannot exhaust the
// memory of the process that reads it.
package csvfile

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxRecordBytes bounds the bytes of one record (a line, or several for quoted fields that
// hold newlines). The SMILES of the largest peptides are about 2 KB; LRGB's Peptides-struct
// rows carry more columns, still far below it.
const MaxRecordBytes = 16 << 20

// Reader reads the records of a CSV table after its header.
type Reader struct {
	// Name is the file's name in errors; Header the fields of its first line.
	Name   string
	Header []string
	csv    *csv.Reader
	guard  *guard
	closer io.Closer
	line   int // the line of the last record read
}

// Open opens the CSV file at path, gzip-compressed or not (recognised by its content), and
// reads its header.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := New(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// New reads a CSV table from r, gzip-compressed or not, named name in errors, and reads its
// header. A UTF-8 byte-order mark before the header is skipped. An input without a header line
// is an error.
func New(r io.Reader, name string) (*Reader, error) {
	br := bufio.NewReader(r)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		in = zr
	}
	g := &guard{r: in}
	c := csv.NewReader(g)
	c.FieldsPerRecord = -1 // checked here, to name both counts
	rd := &Reader{Name: name, csv: c, guard: g}
	header, err := rd.next()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file: want a header line naming the columns", name)
	}
	if err != nil {
		return nil, err
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	rd.Header = header
	return rd, nil
}

// Column returns the index of the header's column name; an error names the columns there are.
func (r *Reader) Column(name string) (int, error) {
	for i, h := range r.Header {
		if h == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("%s:1: no column %q (the header has: %s)", r.Name, name, strings.Join(r.Header, ", "))
}

// Read returns the next record and the line it starts on, or io.EOF after the last. A record
// with another number of fields than the header is a *WidthError, after which reading can go
// on.
func (r *Reader) Read() (record []string, line int, err error) {
	record, err = r.next()
	if err != nil {
		return nil, 0, err
	}
	if len(record) != len(r.Header) {
		return nil, r.line, &WidthError{Name: r.Name, Line: r.line, Record: record, Want: len(r.Header)}
	}
	return record, r.line, nil
}

// A WidthError is a record with another number of fields than the header.
type WidthError struct {
	Name   string
	Line   int
	Record []string
	Want   int // the header's fields
}

func (e *WidthError) Error() string {
	return fmt.Sprintf("%s:%d: %d fields, the header has %d", e.Name, e.Line, len(e.Record), e.Want)
}

// next reads one record, whatever its width.
func (r *Reader) next() ([]string, error) {
	r.guard.n = 0
	record, err := r.csv.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		var big *tooLarge
		if errors.As(err, &big) {
			line, _ := r.csv.FieldPos(0)
			return nil, r.Errorf(max(line, r.line+1), "a record longer than %d MiB: not a table of molecules", MaxRecordBytes>>20)
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %w", r.Name, pe.Line, pe.Column, pe.Err)
		}
		return nil, fmt.Errorf("%s: %w", r.Name, err)
	}
	r.line, _ = r.csv.FieldPos(0)
	return record, nil
}

// Errorf returns an error at line of the file: "FILE:LINE: message".
func (r *Reader) Errorf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", r.Name, line, fmt.Sprintf(format, args...))
}

// Close closes the file Open opened (nothing for New).
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// guard passes reads through until MaxRecordBytes (and the reader's look-ahead) have been read
// since n was last reset, at the start of a record.
type guard struct {
	r io.Reader
	n int
}

type tooLarge struct{}

func (*tooLarge) Error() string { return "record too large" }

func (g *guard) Read(p []byte) (int, error) {
	if g.n > MaxRecordBytes {
		return 0, &tooLarge{}
	}
	n, err := g.r.Read(p)
	g.n += n
	return n, err
}
