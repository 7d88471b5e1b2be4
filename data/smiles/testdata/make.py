# Writes two fixtures with RDKit 2022.09.3 (Debian's python3-rdkit):
#
# rdkit_cases.json: what RDKit's Chem.MolFromSmiles makes of hand-picked SMILES that
# exercise the corners of parsing and sanitisation (charged and hetero aromatics, exocyclic
# double bonds, metals, radicals, explicit hydrogens, isotopes, chirality on C, N, P and S,
# ring stereo, double-bond stereo in chains and rings, non-tetrahedral classes, invalid
# input). For each SMILES: whether RDKit accepts it, and every atom's and bond's properties
# as RDKit reports them (the inputs of OGB's featurisation).
#
# scaffold_cases.json: RDKit's MurckoScaffold.MurckoScaffoldSmiles(includeChirality=False)
# of about a thousand molecules of ogbg-molbace, ogbg-molhiv and ogbg-molesol (read from
# ../../../../shared/data), chosen so that many share a scaffold, plus hand-picked cases
# (substituents on aromatic heteroatoms, exocyclic double bonds, linkers, salts).
#
# Run from this folder:
#   /usr/bin/python3 make.py
# The outputs are committed, so the tests need no Python.
import csv
import gzip
import json
import random

from rdkit import Chem, RDLogger, rdBase
from rdkit.Chem.Scaffolds import MurckoScaffold

RDLogger.DisableLog("rdApp.*")

CASES = [
    # aromatic rings, hetero and charged
    "c1ccccc1", "c1ccncc1", "c1cc[nH]c1", "c1ccoc1", "c1ccsc1", "c1cc[se]c1", "c1cc[te]c1",
    "[nH]1cncc1", "c1ncc[n-]1", "c1cc[n+](C)cc1", "C[n+]1ccccc1", "[O-][n+]1ccccc1", "O=n1ccccc1",
    "c1cc[o+]cc1", "[cH-]1cccc1", "c1cc[cH+]ccc1", "C1=CC=CC=C[CH+]1", "[cH+]1cc1", "C1=C[CH+]1",
    "c1ccc2cccc2cc1", "c1ccc2ccccc2c1", "c1ccc2c(c1)ccc1ccccc12", "c1cc2ccc3cccc4ccc(c1)c2c34",
    "O=c1cccc[nH]1", "O=c1ccocc1", "O=c1ccc(=O)cc1", "O=C1C=CC(=O)C=C1", "Oc1ccccn1",
    "O=c1[nH]c(=O)c2ccccc2[nH]1", "Cn1cnc2c1c(=O)n(C)c(=O)n2C", "c1ccc2[nH]ccc2c1",
    "B1C=CC=C1", "c1ccb[nH]1", "OB(O)c1ccccc1", "c1ccc2c(c1)[nH]c1ccccc12", "s1cccc1-c1cccs1",
    "c1ccc(cc1)-c1ccccc1", "c1ccccc1c1ccccc1", "C1=CC=CC=C1", "C1=CC=CC=CC=C1", "c1ccccccc1",
    "c1cccc2ccccc12", "n1cccc1", "c1ccc2nsnc2c1", "c1csc(=S)s1", "O=c1oc2ccccc2cc1",
    "c1ccc2c(c1)oc1ccccc12", "C1=Cc2ccccc2C1", "c1ccc2c(c1)C=C2", "[nH]1cccc1C=O", "N#Cc1ccccc1",
    "c1ccc[se+]1", "c1cc[s+]cc1", "c1ccc2c(c1)-c1ccccc1-2", "c1ccc2c(c1)c1cccc3cccc2c31",
    "Cc1ccc2nc(-c3ccc(NC(=O)c4cccs4)cc3)sc2c1", "O=C1c2ccccc2C(=O)c2ccccc21",
    "C1=CC2=CC=CC2=C1", "c1cc2cccc3c4cccc5cccc(c(c1)c23)c54",
    # charges, radicals, valence cleanup
    "C[N+](=O)[O-]", "CN(=O)=O", "N=[N+]=[N-]", "CN=N#N", "[O-][Cl+3]([O-])([O-])O", "OCl(=O)(=O)=O",
    "C=P(=O)C", "CP(=O)(O)O", "CS(=O)(=O)C", "C[S+](C)C", "[NH4+]", "[OH-]", "[O-2]", "[Na+].[Cl-]",
    "[CH2]", "[CH3]", "[CH]", "[C]", "[O]", "[OH]", "[N]", "[NH]", "[N]1C=CC=C1", "C[C]C", "[B-](F)(F)(F)F",
    "[BH4-]", "[BH3]", "B", "[Si]", "[SiH4]", "C[Si](C)(C)C", "[Se]", "[SeH2]", "[Te]", "[I-]", "I(=O)(=O)O",
    "[Cl+3]", "[C-]#[N+]C", "[C-]#O", "C[N+]#[C-]", "[N-]=[N+]=NC", "O=[N+][O-]", "[NH3+]CC([O-])=O",
    "[H+]", "[H-]", "[H]", "[HH]", "[H][H]", "[2H][2H]", "[H]O[H]", "[H]OC", "[2H]OC", "C([2H])([2H])[2H]",
    "[13CH4]", "[12CH4]", "[13C]C", "CC[13CH2]O", "[CH3:1]C", "[C:1]", "[C:0]", "[*]C", "*C", "*c1ccccc1",
    "[Fe]", "[Fe+2]", "[Fe+3]", "[Cu+]", "[Mg+2]", "[Zn]", "Cl[Pt](Cl)([NH3])[NH3]", "[Co]", "[Mn+]",
    "CC(=O)O[Cu]OC(C)=O", "[Li]C", "C[Mg]Br", "[Na]", "[K+].[O-]C", "[Al](C)(C)C", "[Sn](C)(C)(C)C",
    "[Ga](Cl)(Cl)Cl", "[As](C)(C)C", "[Sb](Cl)(Cl)(Cl)(Cl)Cl", "[Bi]", "[Xe](F)(F)", "[He]", "[Ar]",
    "CC1=[O+][Cu-3]2([O+]=C(C)C1)[O+]=C(C)CC(C)=[O+]2", "[Fe-3]", "[Cu-5]", "[U+2]", "[Gd+3]",
    "C1CN[Co-4]23(N1)(NCCN2)NCCN3", "[O+]", "[C+]", "[C-]", "[CH+]", "[CH2+]", "[CH3+]", "[CH3-]",
    "[N+]", "[N-]", "[NH2-]", "[O+](C)(C)C", "[S-]", "[S-2]", "[P+](C)(C)(C)C", "[P-]",
    "c1cc[c-]cc1", "[c-]1cccc1", "C1=CC=C[C-]1", "[n+]1ccccc1", "c1cc[n]cc1",
    # hydrogens written as atoms
    "[H]C([H])([H])[H]", "C[H]", "[H]c1ccccc1", "[H][C@@](F)(Cl)Br", "F[C@]([H])(Cl)Br", "[H]/C=C/C",
    "[H]/C(C)=C/C", "C/C=C/[H]", "[H]N=C", "[H]/N=C/C", "[2H]C([2H])=O", "[H][H].C", "[H]1CC1",
    "[H]N([H])C(=O)O", "[H]C(=O)O", "[H][N+]([H])([H])[H]", "[H]OO[H]", "[H][Pt@SP1]([H])(Cl)Cl",
    # tetrahedral stereo
    "F[C@H](Cl)Br", "F[C@@H](Cl)Br", "[C@H](F)(Cl)Br", "[C@@](F)(Cl)(Br)I", "C[C@H](N)C(=O)O",
    "N[C@@H](C)C(=O)O", "C[C@@H](O)CC", "C[C@H](C)O", "C[C@@H]1CCCO1", "C1CO[C@@H]1C", "O1CCC[C@H]1C",
    "C[C@H]1CC[C@@H](C)CC1", "C[C@H]1CC[C@H](C)CC1", "C[C@]1(O)CC[C@](C)(O)CC1", "C[C@H]1C[C@@H](C)C1",
    "C[C@H](O)[C@H](O)[C@@H](O)C", "C[C@@H](O)[C@H](O)[C@@H](O)C", "OC[C@H]1O[C@@H](O)[C@H](O)[C@@H](O)[C@@H]1O",
    "C[N@](CC)CC", "C[N@@+](CC)(CCC)C", "C[N@]1CC1C", "C1C[N@]2CC[C@H]1CC2", "C[P@](CC)c1ccccc1",
    "C[P@@](=O)(O)CC", "C[S@](=O)c1ccccc1", "C[S@@+]([O-])CC", "C[S@](=O)C", "C[Se@](=O)CC",
    "[C@H]1(F)CCCC1", "F[C@]1(Cl)CCCC1", "[C@@](F)1(C)CCO1", "C1CN[C@](O)(N)1", "[C@](Cl)(F)1CC[C@H](F)CC1",
    "[C@@]1(Cl)(F)I.Br1", "[C@@](Cl)1(F)I.Br1", "[C@@](Cl)(F)1I.Br1", "[C@@](Cl)(F)(I)1.Br1",
    "C[C@H]1CCCC[C@@H]1C", "C[C@@]12CCCC[C@H]1CCC2", "C[C@@H]1C[C@H]2CC[C@@H]1C2", "CC(C)[C@@H]1CC[C@@H](C)C[C@H]1O",
    "C[C@H](Cl)[C@@H](C)Cl", "C[C@H](F)C(C)(C)[C@H](C)F", "[C@H](C)(C)C", "C[C@H](C=C)C=C", "C[C@H](CC)C(C)C",
    "C[C@H]([2H])O", "C[C@@H]([13CH3])O", "[CH3:1][C@H](O)[CH3:2]", "C[C@H]1CC1", "C[C@@]1(C)CC1",
    "c1ccccc1[C@@H](C)O", "C=C[C@H](C)O", "C#C[C@@H](O)C", "O=C[C@H](O)CO", "N[C@@H](CS)C(=O)O",
    "C[C@@H]1C[C@]2(CC[C@H]1O)CCC(=O)C2", "C[C@]12CC[C@H]3[C@@H](CC=C4C[C@@H](O)CC[C@@]43C)[C@@H]1CC[C@@H]2O",
    "[C@TH1](F)(Cl)(Br)I", "[C@TH2](F)(Cl)(Br)I", "F[C@SP1](Cl)(Br)I", "F[Pt@SP1](Cl)(Br)I",
    "F[Pt@SP2](Cl)(Br)I", "F[Pt@SP3](Cl)(Br)I", "CC=[C@AL1]=CC", "CC=[C@AL2]=CC", "S[As@TB1](F)(Cl)(Br)N",
    "F[Fe@OH1](Cl)(Br)(I)(C)N", "F[Co@OH25](Cl)(Br)(I)(C)N", "[C@H](C)(O)C=O", "C1=C[C@H]2C=C[C@@H]1C2",
    # double-bond stereo
    "F/C=C/F", "F/C=C\\F", "F\\C=C\\F", "C/C=C/C", "C/C=C(/C)C", "C/C=C(\\C)CC", "CC/C=C/C=C/C",
    "C/C=C/C(=O)O", "Cl/C=C/Br", "C(/F)=C/F", "F/C=C/C=C/F", "F/C=C/C=C\\F", "C/C=N/O", "C/N=N/C",
    "C/N=N\\C", "CC(C)/C=C/C(C)C", "C/C=C(C)/C", "F/C(Cl)=C(/F)Cl", "C1CCCC/C=C/CCC1", "C1CCC/C=C\\CC1",
    "C1CC/C=C/C1", "C1CCCCCC/C=C/1", "C/1CCCCCCC=C/1", "C/C=C/c1ccccc1", "O/N=C/c1ccccc1", "CC=CC",
    "F/C=C/C=C", "C(=C/F)\\F", "F/C=C(\\Cl)/Br", "C/C(F)=C(/C)F", "C\\C=C\\C", "C\\C=C/C", "F//C=C/F",
    "C/C=C=C/C", "CC=C=C(C)C", "C/C=C/[C@H](C)O", "C/C=C\\[C@@H](C)CC", "c1ccccc1/C=C/c1ccccc1",
    "O=C(O)/C=C\\C(=O)O", "N/C=C/C=O", "C/C=C/1.C1", "C/C=C\\1.C/1", "CC/N=C/C", "C/C=[N+]/C",
    "C1=CCCCCCC1", "C/1=C/CCCCCCC/1", "C/1=C\\CCCCCC1",
    # syntax: rings, branches, dots, bonds, brackets
    "C1CC1", "C%10CC%10", "C%(123)CC%(123)", "C1CC11CC1", "C1CCC11CCC1", "C12(CC1)CC2", "C1.C1",
    "C(C)(C)(C)C", "C(C)1CC1", "CC(C)(C)(C)", "C-C", "C=C", "C#C", "C$C", "C:C", "c:c", "C1=CC=CC=C1",
    "c1ccc-2c(c1)-c1ccccc-21", "C=1CC=1", "C1CC=1", "C=1CC1", "C-1CC1", "C/1CC/1", "c1cc-cc1", "c-1ccccc1-1",
    "[#6]", "[#6H4]", "[#1]", "[13#6]", "[Cl]", "[Br-]", "[NH2+]=C", "[CH2-]C", "[C+2]", "[C--]", "[C++]",
    "[O-1]", "[N+0]", "[Fe+10]", "[C-10]", "[CH5]", "[NH5]", "[CH4+]", "[SH6]", "[PH5]",
    "CC.CC", "C.C.C", "O.O", "[Na+].[Na+].[O-]S([O-])(=O)=O", "CCO name", "CCO\tname", "  CCO  ", "C\\\\C=C/F",
    "Cl", "Br", "I", "F", "S", "P", "N", "O", "C", "B", "Cs", "Cc", "Cn", "Co", "Sc", "[Sc]", "[Cs]", "[Cn]",
    "[Uuo]", "[Og]", "[Ts]", "[Rf]", "[Db]", "[Hs]", "[Mt]", "[se]1cccc1", "[as]1cccc1", "[si]1cccc1",
    "[te]1cccc1", "[b]1cccc1", "[p]1cccc1", "c1cccp1", "[pH]1cccc1", "[sH]1cccc1",
    # invalid
    "", " ", "C1CC", "C(C", "C)C", "C((C))", "C()C", "[Xx]", "[C", "C=", "CC(=)C", "C=1CC", "1CC1", "(C)C",
    "C..C", ".C", "C.", "C..", "C=.C", "[H@]", "[C+++]", "[C@@@H]", "C11", "C12CC12", "c1cccc1", "c",
    "cc", "c1ccccc", "N(C)(C)(C)(C)C", "C(C)(C)(C)(C)C", "[C@TH3](F)(Cl)(Br)I", "[C@SP4](F)(Cl)(Br)I",
    "[C@AL3]", "[Fe@OH31](F)(F)(F)(F)(F)F", "%10CC%10", "C%1CC%1", "C%(CC", "C%()C", "C%(123456)C",
    "[#200]", "[#]", "[C:]", "[CH-+]", "[13]", "[H2]", "CC\x01", "Cl(Cl)Cl", "[O](C)(C)C", "[NH4]",
    "c1ccc2c1cccc2", "C1=CC=CC=C1=C", "[2H@](F)(Cl)Br", "ClC(Cl)(Cl)(Cl)Cl", "F(F)F", "[H](C)C",
    "O=O=O", "C#C#C", "[Na](Cl)Cl", "[C]1=[C]=[C]=[C]1", "c1cc[nH+]cc1", "[c]1ccccc1", "C$C$C",
]


def props(s):
    """RDKit's reading of s. Atom rows: atomic number, chiral tag, total degree, formal charge,
    total H count, radical electrons, hybridisation, aromatic, in ring. Bond rows: begin, end,
    bond type, stereo, conjugated."""
    m = Chem.MolFromSmiles(s)
    if m is None:
        return {"smiles": s, "ok": False}
    atoms = [
        [a.GetAtomicNum(), str(a.GetChiralTag()), a.GetTotalDegree(), a.GetFormalCharge(),
         a.GetTotalNumHs(), a.GetNumRadicalElectrons(), str(a.GetHybridization()),
         int(a.GetIsAromatic()), int(a.IsInRing())]
        for a in m.GetAtoms()
    ]
    bonds = [
        [b.GetBeginAtomIdx(), b.GetEndAtomIdx(), str(b.GetBondType()), str(b.GetStereo()),
         int(b.GetIsConjugated())]
        for b in m.GetBonds()
    ]
    return {"smiles": s, "ok": True, "atoms": atoms, "bonds": bonds}


# one case per line, so that a diff shows which molecules changed
with open("rdkit_cases.json", "w") as f:
    f.write('{"rdkit": %s, "cases": [\n' % json.dumps(rdBase.rdkitVersion))
    f.write(",\n".join(json.dumps(props(s), separators=(",", ":")) for s in CASES))
    f.write("\n]}\n")


SCAFFOLD_CASES = [
    "CCO", "c1ccccc1", "Cc1ccccc1", "CCc1ccccc1", "Oc1ccccc1O", "c1ccccc1Cc1ccccc1", "c1ccccc1CCc1ccccc1",
    "c1ccccc1C(=O)c1ccccc1", "c1ccccc1C(=O)Nc1ccccc1", "c1ccccc1NC(=O)c1ccccc1", "O=C1CCCCC1", "CC1CCCCC1=O",
    "Cn1cccc1", "c1cc[nH]c1", "C[n+]1ccccc1", "c1cc[nH+]cc1", "CC[n+]1ccccc1.[Cl-]", "Cn1ccnc1", "c1c[nH]cn1",
    "O=c1cccc[nH]1", "O=c1ccccn1C", "C[C@H]1CCCO1", "C1CCCO1", "C[C@@]1(O)CCCCC1", "C[N+]1(C)CCCC1",
    "[NH+]1CCCC1", "C[NH+]1CCCC1", "c1ccccc1.c1ccccc1", "c1ccccc1.C1CC1", "CC(=O)Oc1ccccc1C(=O)O",
    "c1ccc2ccccc2c1", "Cc1ccc2ccccc2c1", "c1ccc(cc1)-c1ccccc1", "c1ccccc1c1ccccc1", "C=C1CCCCC1", "N=C1CCCCC1",
    "CN=C1CCCCC1", "C1CC1C=O", "O=C(C1CC1)C1CC1", "C1CC1C(=C)C1CC1", "[2H]c1ccccc1", "[13CH3]c1ccccc1",
    "C[Si]1(C)CCCC1", "Cc1ccc(cc1)S(=O)(=O)N1CCCC1", "OC1C2CCCC12", "C1CC2CCC1C2", "C12C3C4C1C5C2C3C45",
]


def scaffold(s):
    return MurckoScaffold.MurckoScaffoldSmiles(smiles=s, includeChirality=False)


def dataset_smiles(name):
    with gzip.open("../../../../shared/data/%s/mapping/mol.csv.gz" % name, "rt") as f:
        rows = csv.reader(f)
        col = next(rows).index("smiles")
        return [row[col] for row in rows]


random.seed(1)
pairs = [(s, scaffold(s)) for s in SCAFFOLD_CASES]
for name, groups, singles in [("ogbg_molbace", 120, 100), ("ogbg_molhiv", 120, 200), ("ogbg_molesol", 40, 60)]:
    by = {}
    for s in dataset_smiles(name):
        by.setdefault(scaffold(s), []).append(s)
    shared = sorted(k for k, v in by.items() if len(v) > 1)
    alone = sorted(k for k, v in by.items() if len(v) == 1)
    for k in random.sample(shared, min(groups, len(shared))):
        pairs += [(s, k) for s in random.sample(by[k], min(4, len(by[k])))]
    for k in random.sample(alone, min(singles, len(alone))):
        pairs.append((by[k][0], k))

with open("scaffold_cases.json", "w") as f:
    f.write('{"rdkit": %s, "cases": [\n' % json.dumps(rdBase.rdkitVersion))
    f.write(",\n".join(json.dumps(p, separators=(",", ":")) for p in pairs))
    f.write("\n]}\n")
