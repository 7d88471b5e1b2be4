package torchpickle

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Arguments of the pickle opcodes (Python's pickletools): how many bytes of fixed size follow
// the opcode, or how long the length prefix of a counted argument is, or how many
// newline-ended lines follow. Opcodes not listed take no argument.
var (
	fixedArg = map[byte]int{
		'J': 4, 'K': 1, 'M': 2, 'h': 1, 'j': 4, 'q': 1, 'r': 4, 'G': 8,
		0x80: 1, 0x82: 1, 0x83: 2, 0x84: 4, 0x95: 8, // PROTO, EXT1, EXT2, EXT4, FRAME
	}
	countedArg = map[byte]int{
		'T': 4, 'U': 1, 'X': 4, 'B': 4, 'C': 1, // BINSTRING, SHORT_BINSTRING, BINUNICODE, BINBYTES, SHORT_BINBYTES
		0x8a: 1, 0x8b: 4, 0x8c: 1, 0x8d: 8, 0x8e: 8, 0x96: 8, // LONG1, LONG4, SHORT_BINUNICODE, BINUNICODE8, BINBYTES8, BYTEARRAY8
	}
	lineArgs = map[byte]int{'F': 1, 'I': 1, 'L': 1, 'P': 1, 'S': 1, 'V': 1, 'g': 1, 'p': 1, 'c': 2, 'i': 2}
)

// checkLengths reads the first count pickles from r, of which left bytes remain, without
// running them, and returns an error for a length prefix (or a FRAME size) larger than the
// bytes left. The unpickler allocates such lengths before reading them, so a few corrupt
// bytes could otherwise ask for gigabytes. Everything else (unknown opcodes, a missing end)
// is left to the unpickler to report. It reads in a streaming fashion, holding no argument.
func checkLengths(r io.Reader, left int64, count int) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var at int64 // offset of the byte being read
	read := func(n int) ([]byte, bool) {
		if int64(n) > left-at {
			return nil, false
		}
		var buf [8]byte
		if _, err := io.ReadFull(br, buf[:n]); err != nil {
			return nil, false
		}
		at += int64(n)
		return buf[:n], true
	}
	for count > 0 && at < left {
		opAt := at
		op, ok := read(1)
		if !ok {
			return nil
		}
		switch c := op[0]; {
		case c == '.': // STOP
			count--
		case fixedArg[c] > 0:
			arg, ok := read(fixedArg[c])
			if !ok {
				return nil
			}
			if c == 0x95 { // FRAME: its size counts the bytes that follow
				if size := binary.LittleEndian.Uint64(arg); size > uint64(left-at) {
					return fmt.Errorf("truncated pickle: a frame of %d bytes at offset %d, only %d bytes left", size, opAt, left-at)
				}
			}
		case countedArg[c] > 0:
			arg, ok := read(countedArg[c])
			if !ok {
				return nil
			}
			var size uint64
			switch len(arg) {
			case 1:
				size = uint64(arg[0])
			case 4:
				size = uint64(binary.LittleEndian.Uint32(arg))
				if (c == 'T' || c == 0x8b) && int32(size) < 0 {
					return fmt.Errorf("corrupt pickle: negative length %d at offset %d", int32(size), opAt)
				}
			case 8:
				size = binary.LittleEndian.Uint64(arg)
			}
			if size > uint64(left-at) {
				return fmt.Errorf("truncated pickle: %d bytes announced at offset %d, only %d left", size, opAt, left-at)
			}
			if _, err := br.Discard(int(size)); err != nil {
				return nil
			}
			at += int64(size)
		case lineArgs[c] > 0:
			for range lineArgs[c] {
				for {
					line, err := br.ReadSlice('\n')
					at += int64(len(line))
					if errors.Is(err, bufio.ErrBufferFull) {
						continue
					}
					if err != nil {
						return nil
					}
					break
				}
			}
		}
	}
	return nil
}
