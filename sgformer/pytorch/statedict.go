package pytorch

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/nlpodyssey/gopickle/types"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/internal/torchpickle"
)

// A Tensor is one tensor of a state dict: its shape, PyTorch's element type ("float32",
// "float64", "int64", ...) and its values in row-major order.
type Tensor struct {
	Shape  []int
	DType  string
	Values []float64
}

// A StateDict is a PyTorch model's tensors by name (PyTorch's state_dict: parameters and
// buffers, "module.submodule.weight"), Names in the file's order.
type StateDict struct {
	Names   []string
	Tensors map[string]Tensor
}

// ReadStateDict reads the tensors of a model saved with torch.save (its zip format, the default
// since PyTorch 1.6): a state_dict (torch.save(model.state_dict())), a whole module
// (torch.save(model), whose parameters and buffers are gathered as state_dict names them), or a
// checkpoint dict holding either under "state_dict", "model_state_dict" or "model". Errors name
// the file.
func ReadStateDict(path string) (*StateDict, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	v, err := torchpickle.Load(f, info.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w (want a file written by torch.save)", path, err)
	}
	sd := &StateDict{Tensors: map[string]Tensor{}}
	if err := sd.gather(v, ""); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(sd.Names) == 0 {
		return nil, fmt.Errorf("%s: no tensors: want a state_dict or a whole module saved with torch.save", path)
	}
	return sd, nil
}

// gather adds the tensors of v, a state dict, a module or a checkpoint dict, under prefix.
func (sd *StateDict) gather(v any, prefix string) error {
	if d, ok := v.(interface{ Get(any) (any, bool) }); ok && prefix == "" { // a checkpoint dict
		for _, key := range []string{"state_dict", "model_state_dict", "model"} {
			if inner, ok := d.Get(key); ok {
				return sd.gather(inner, "")
			}
		}
	}
	switch x := v.(type) {
	case *types.OrderedDict:
		for e := x.List.Front(); e != nil; e = e.Next() {
			entry := e.Value.(*types.OrderedDictEntry)
			if err := sd.entry(entry.Key, entry.Value, prefix); err != nil {
				return err
			}
		}
	case *types.Dict:
		for _, entry := range *x {
			if err := sd.entry(entry.Key, entry.Value, prefix); err != nil {
				return err
			}
		}
	case *torchpickle.Object: // a torch.nn.Module: its parameters, persistent buffers and submodules
		for _, field := range []string{"_parameters", "_buffers", "_modules"} {
			children, ok := x.Fields[field]
			if !ok {
				return fmt.Errorf("%s (%s) is not a torch.nn.Module: no %s", strings.TrimSuffix(prefix, "."), x.Class, field)
			}
			if field == "_buffers" { // without the buffers state_dict leaves out
				children = persistent(children, x.Fields["_non_persistent_buffers_set"])
			}
			if err := sd.gather(children, prefix); err != nil {
				return err
			}
		}
	case nil:
	default:
		return fmt.Errorf("%s: %T is neither a state_dict nor a torch.nn.Module", strings.TrimSuffix(prefix, "."), v)
	}
	return nil
}

// persistent returns the buffers (a dict) without those named in nonPersistent (a set).
func persistent(buffers, nonPersistent any) any {
	set, ok := nonPersistent.(*types.Set)
	if !ok || set.Len() == 0 {
		return buffers
	}
	kept := types.NewOrderedDict()
	add := func(k, v any) {
		if !set.Has(k) {
			kept.Set(k, v)
		}
	}
	switch d := buffers.(type) {
	case *types.OrderedDict:
		for e := d.List.Front(); e != nil; e = e.Next() {
			entry := e.Value.(*types.OrderedDictEntry)
			add(entry.Key, entry.Value)
		}
	case *types.Dict:
		for _, entry := range *d {
			add(entry.Key, entry.Value)
		}
	default:
		return buffers
	}
	return kept
}

// entry adds one entry of a dict: a tensor, or a submodule, under prefix.
func (sd *StateDict) entry(key, value any, prefix string) error {
	name, ok := key.(string)
	if !ok {
		return fmt.Errorf("key %v of %q is not a string", key, strings.TrimSuffix(prefix, "."))
	}
	switch t := value.(type) {
	case *torchpickle.Tensor:
		if _, dup := sd.Tensors[prefix+name]; dup {
			return fmt.Errorf("%s appears twice", prefix+name)
		}
		values := make([]float64, t.Len())
		for i := range values {
			values[i] = t.Float(i)
		}
		sd.Names = append(sd.Names, prefix+name)
		sd.Tensors[prefix+name] = Tensor{Shape: slices.Clone(t.Shape), DType: t.DType(), Values: values}
		return nil
	case nil: // an absent parameter (a Linear without bias)
		return nil
	}
	return sd.gather(value, prefix+name+".")
}

// Write writes sd as torch.save(state_dict) does, atomically: torch.load and load_state_dict
// read it. Tensors of integer types are written as int64 (BatchNorm's num_batches_tracked).
func (sd *StateDict) Write(path string) error {
	entries := make([]torchpickle.Entry, len(sd.Names))
	for i, name := range sd.Names {
		t := sd.Tensors[name]
		entries[i] = torchpickle.Entry{Name: name, Shape: t.Shape, DType: t.DType, Values: t.Values}
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	if err := torchpickle.SaveStateDict(f, "archive", entries); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Commit()
}
