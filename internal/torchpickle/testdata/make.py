# Writes the fixtures of torchpickle's tests with PyTorch itself (run with /usr/bin/python3 and
# Debian's python3-torch 1.13; the files are committed, so the tests need no Python):
#   tensors-p{2,3,4,5}.pickle  pickle.dump of a dict of tensors, one file per pickle protocol
#   tensors.pt                 torch.save (zip format) of the same dict
# The tensors cover every dtype the reader decodes, a storage offset and a transposed view.
import pickle
import torch

def tensors():
    base = torch.arange(24, dtype=torch.int64)
    return {
        "int64": torch.tensor([-3, 0, 7, 2**40], dtype=torch.int64),
        "int32": torch.tensor([-5, 6], dtype=torch.int32),
        "int16": torch.tensor([-7, 8], dtype=torch.int16),
        "int8": torch.tensor([-9, 10], dtype=torch.int8),
        "uint8": torch.tensor([0, 255], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "float64": torch.tensor([1.5, -2.25, 1e-300], dtype=torch.float64),
        "float32": torch.tensor([0.8350355625152588, -1.0], dtype=torch.float32),
        "float16": torch.tensor([0.5, -65504.0, 2**-24], dtype=torch.float16),
        "scalar": torch.tensor(3.0),
        "empty": torch.zeros(0, 3),
        "offset": base[5:9],                  # storage offset 5
        "transposed": base.view(4, 6).t(),    # shape (6, 4), stride (1, 6)
        "matrix": base.view(2, 3, 4),
    }

t = tensors()
for proto in (2, 3, 4, 5):
    with open(f"tensors-p{proto}.pickle", "wb") as f:
        pickle.dump(t, f, protocol=proto)
torch.save(t, "tensors.pt")
