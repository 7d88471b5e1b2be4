package csvfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
)

// record is one record as Read returns it.
type record struct {
	Line   int
	Fields []string
}

func readAll(t *testing.T, r *Reader) ([]record, error) {
	t.Helper()
	var out []record
	for {
		rec, line, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, record{line, rec})
	}
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		header   []string
		want     []record
		err      string
	}{
		{name: "plain", in: "smiles,y\nCCO,1.5\nc1ccccc1,\n", header: []string{"smiles", "y"},
			want: []record{{2, []string{"CCO", "1.5"}}, {3, []string{"c1ccccc1", ""}}}},
		{name: "byte-order mark and CRLF", in: "\ufeffsmiles,y\r\nC,2\r\n", header: []string{"smiles", "y"},
			want: []record{{2, []string{"C", "2"}}}},
		{name: "quoted newline: lines counted in the file", in: "name,smiles\n\"two\nlines\",C\nx,N\n", header: []string{"name", "smiles"},
			want: []record{{2, []string{"two\nlines", "C"}}, {4, []string{"x", "N"}}}},
		{name: "blank lines skipped", in: "a\n\n1\n", header: []string{"a"}, want: []record{{3, []string{"1"}}}},
		{name: "too many fields", in: "smiles,y\nC,1\nCC,2,3\n", header: []string{"smiles", "y"},
			want: []record{{2, []string{"C", "1"}}}, err: "t.csv:3: 3 fields, the header has 2"},
		{name: "bare quote", in: "smiles,y\nC\"C,1\n", header: []string{"smiles", "y"}, err: `t.csv:2:2: bare " in non-quoted-field`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(strings.NewReader(tc.in), "t.csv")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Header, tc.header) {
				t.Errorf("header %q, want %q", r.Header, tc.header)
			}
			got, err := readAll(t, r)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("records %v, want %v", got, tc.want)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestOpenGzipAndColumns(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(",smiles,labels\n0,CC,\"[0, 1]\"\n"))
	zw.Close()
	path := filepath.Join(t.TempDir(), "m.csv.gz")
	os.WriteFile(path, buf.Bytes(), 0o644)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if i, err := r.Column("labels"); i != 2 || err != nil {
		t.Errorf("Column(labels) = %d, %v", i, err)
	}
	if _, err := r.Column("SMILES"); err == nil || err.Error() != path+`:1: no column "SMILES" (the header has: , smiles, labels)` {
		t.Errorf("missing column: %v", err)
	}
	got, err := readAll(t, r)
	if err != nil || !reflect.DeepEqual(got, []record{{2, []string{"0", "CC", "[0, 1]"}}}) {
		t.Errorf("records %v, %v", got, err)
	}
	if _, err := New(strings.NewReader(""), "empty.csv"); err == nil || !strings.Contains(err.Error(), "empty.csv: empty file") {
		t.Errorf("empty input: %v", err)
	}
}

// A record longer than MaxRecordBytes is refused, naming its line, after reading little more
// than the bound: a gzip bomb of one endless field does not exhaust memory.
func TestRecordTooLarge(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("smiles,y\nC,1\n"))
	chunk := bytes.Repeat([]byte("C"), 1<<20)
	for range 1024 { // 1 GiB of one field, 1 MiB compressed
		zw.Write(chunk)
	}
	zw.Close()
	before := memory.Allocated()
	r, err := New(bytes.NewReader(buf.Bytes()), "bomb.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	if len(got) != 1 || err == nil || err.Error() != "bomb.csv.gz:3: a record longer than 16 MiB: not a table of molecules" {
		t.Errorf("records %d, error %v", len(got), err)
	}
	if used := memory.Allocated() - before; used > 16*MaxRecordBytes { // cumulative, the field buffer doubling up to the bound
		t.Errorf("reading allocated %d MiB", used>>20)
	}
}
