# Writes a miniature of LRGB's Peptides-struct download for data's tests (run with
# /usr/bin/python3 and Debian's python3-numpy 1.24; the files are committed, so the tests need
# no Python):
#   peptide_structure_dataset.csv.gz                   6 molecules in the CSV's layout: an
#       unnamed index, smiles, peptide_seq, the 11 targets of LRGB's peptides_structural.py
#   splits_random_stratified_peptide_structure.pickle  pickle.dump of a dict of int64 NumPy
#       arrays, as LRGB's split files
import csv
import gzip
import io
import pickle
import numpy as np

targets = ["Inertia_mass_a", "Inertia_mass_b", "Inertia_mass_c", "Inertia_valence_a",
           "Inertia_valence_b", "Inertia_valence_c", "length_a", "length_b", "length_c",
           "Spherocity", "Plane_best_fit"]
molecules = [
    ("CC(N)C(=O)NCC(=O)O", "AG"),                  # Ala-Gly
    ("NCC(=O)NCC(=O)O", "GG"),                      # Gly-Gly
    ("C[C@H](N)C(=O)N[C@@H](C)C(=O)O", "AA"),       # Ala-Ala
    ("NCC(=O)N[C@@H](Cc1ccccc1)C(=O)O", "GF"),      # Gly-Phe
    ("[Na+].[Cl-]", "-"),                           # a salt: no bonds
    ("O=C(O)[C@@H]1CCCN1", "P"),                    # proline
]
buf = io.StringIO()
w = csv.writer(buf, lineterminator="\n")
w.writerow([""] + ["smiles", "peptide_seq"] + targets)
for i, (smi, seq) in enumerate(molecules):
    w.writerow([i, smi, seq] + [round(0.5 * i + 0.25 * j, 4) for j in range(len(targets))])
with gzip.GzipFile("peptide_structure_dataset.csv.gz", "wb", mtime=0) as f:
    f.write(buf.getvalue().encode())
split = {"train": np.array([0, 2, 3, 5], dtype=np.int64), "val": np.array([1], dtype=np.int64),
         "test": np.array([4], dtype=np.int64)}
with open("splits_random_stratified_peptide_structure.pickle", "wb") as f:
    pickle.dump(split, f, protocol=4)
