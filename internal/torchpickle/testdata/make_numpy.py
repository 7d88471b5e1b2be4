# Writes the numpy fixtures of torchpickle's tests with numpy itself (run with /usr/bin/python3
# and Debian's python3-numpy 1.24; the files are committed, so the tests need no Python):
#   arrays-p{2,3,4,5}.pickle  pickle.dump of a dict of numpy arrays, one file per protocol, in
#                             the shape of LRGB's split files (a dict of int64 index arrays)
#                             plus the other dtypes and layouts the reader decodes.
import pickle
import numpy as np

base = np.arange(24, dtype=np.int64)
arrays = {
    "train": np.array([1, 3, 4, 8], dtype=np.int64),
    "val": np.array([0, 2], dtype=np.int64),
    "test": np.array([], dtype=np.int64),
    "int32": np.array([-5, 6], dtype=np.int32),
    "uint8": np.array([0, 255], dtype=np.uint8),
    "bool": np.array([True, False, True]),
    "float64": np.array([1.5, -2.25, 1e-300]),
    "float32": np.array([0.8350355625152588, -1.0], dtype=np.float32),
    "fortran": np.asfortranarray(base.reshape(4, 6)),  # element (i, j) = 6i + j, column-major
    "scalar": np.array(3.0),
}
for proto in (2, 3, 4, 5):
    with open(f"arrays-p{proto}.pickle", "wb") as f:
        pickle.dump(arrays, f, protocol=proto)
