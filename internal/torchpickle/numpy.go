package torchpickle

import (
	"fmt"

	"github.com/nlpodyssey/gopickle/types"
)

// NumPy arrays, as numpy 1.x and 2.x pickle them (numpy/core/numeric.py and
// numpy/core/src/multiarray/methods.c, array_reduce_ex): under pickle protocols 2–4,
// _reconstruct(ndarray, (0,), b'b') makes an empty array that BUILD fills with the state
// (version, shape, dtype, is_fortran, raw bytes); under protocol 5,
// _frombuffer(buffer, dtype, shape, order). Either way the array comes back as a *Tensor over
// its bytes, so that LRGB's split files (dicts of int64 index arrays) read like torch's.

// numpyDTypes maps numpy's type strings (dtype.str without the byte order) to storages.
var numpyDTypes = map[string]storageClass{
	"i8": {"int64", 8}, "i4": {"int32", 4}, "i2": {"int16", 2}, "i1": {"int8", 1},
	"u1": {"uint8", 1}, "b1": {"bool", 1}, "f8": {"float64", 8}, "f4": {"float32", 4}, "f2": {"float16", 2},
}

// dtype is a numpy.dtype: its element type and byte order ('<', '>', '|' or '=').
type dtype struct {
	name  string
	class storageClass
	order string
}

// newDType is numpy.dtype(name, align, copy).
func newDType(args ...any) (any, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("numpy.dtype: no arguments")
	}
	name, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("numpy.dtype(%v): want a type string", args[0])
	}
	return &dtype{name: name, class: numpyDTypes[name], order: "="}, nil
}

// PySetState is dtype.__setstate__: (version, byte order, subarray, names, fields, ...).
func (d *dtype) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() < 2 {
		return fmt.Errorf("numpy.dtype state %v: want a tuple (version, byte order, ...)", state)
	}
	if d.order, ok = t.Get(1).(string); !ok {
		return fmt.Errorf("numpy.dtype state %v: byte order is not a string", state)
	}
	return nil
}

// array returns the tensor of an array of this dtype with the given shape over raw, in C
// (row-major) or Fortran (column-major) order.
func (d *dtype) array(shape []int, fortran bool, raw []byte) (*Tensor, error) {
	if d.class.size == 0 {
		return nil, fmt.Errorf("numpy array of dtype %q: only %s are read", d.name, "integer, bool and float arrays")
	}
	if d.order == ">" {
		return nil, fmt.Errorf("numpy array of dtype >%s: big-endian arrays are not read", d.name)
	}
	n := 1
	for _, x := range shape {
		if x < 0 || x > 0 && n > len(raw)/x {
			return nil, fmt.Errorf("numpy array of shape %v over %d bytes", shape, len(raw))
		}
		n *= x
	}
	s, err := d.class.newStorage(raw, n)
	if err != nil {
		return nil, fmt.Errorf("numpy array of shape %v: %w", shape, err)
	}
	stride := make([]int, len(shape))
	step := 1
	for i := range shape {
		j := len(shape) - 1 - i // C order: the last axis varies fastest
		if fortran {
			j = i
		}
		stride[j] = step
		step *= max(shape[j], 1)
	}
	return &Tensor{Shape: shape, s: s, stride: stride}, nil
}

// reconstructArray is numpy.core.multiarray._reconstruct(ndarray, (0,), b'b'): an empty array,
// filled by BUILD (Tensor.PySetState).
func reconstructArray(...any) (any, error) { return &Tensor{}, nil }

// PySetState is ndarray.__setstate__((version, shape, dtype, is_fortran, raw)), for an array
// made by _reconstruct.
func (t *Tensor) PySetState(state any) error {
	st, ok := state.(*types.Tuple)
	if t.s != nil || !ok || st.Len() != 5 {
		return fmt.Errorf("numpy array state %v: want (version, shape, dtype, is_fortran, data) for an empty array", state)
	}
	shape, err := ints(st.Get(1))
	d, okD := st.Get(2).(*dtype)
	fortran, okF := st.Get(3).(bool)
	raw, okR := bytesOf(st.Get(4))
	if err != nil || !okD || !okF || !okR {
		return fmt.Errorf("numpy array state: want (version, shape, dtype, is_fortran, bytes), got types (%T, %T, %T, %T, %T)",
			st.Get(0), st.Get(1), st.Get(2), st.Get(3), st.Get(4))
	}
	a, err := d.array(shape, fortran, raw)
	if err != nil {
		return err
	}
	*t = *a
	return nil
}

// fromBuffer is numpy.core.numeric._frombuffer(buffer, dtype, shape, order), protocol 5's form.
func fromBuffer(args ...any) (any, error) {
	if len(args) != 4 {
		return nil, fmt.Errorf("numpy _frombuffer: %d arguments, want 4", len(args))
	}
	raw, okR := bytesOf(args[0])
	d, okD := args[1].(*dtype)
	shape, err := ints(args[2])
	order, okO := args[3].(string)
	if !okR || !okD || err != nil || !okO {
		return nil, fmt.Errorf("numpy _frombuffer: want (buffer, dtype, shape, order), got types (%T, %T, %T, %T)", args[0], args[1], args[2], args[3])
	}
	return d.array(shape, order == "F", raw)
}

// bytesOf returns the bytes of a pickled bytes or bytearray value.
func bytesOf(v any) ([]byte, bool) {
	switch b := v.(type) {
	case []byte:
		return b, true
	case *types.ByteArray:
		return []byte(*b), true
	}
	return nil, false
}
