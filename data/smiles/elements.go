package smiles

// element is one row of RDKit's periodic table (Code/GraphMol/atomic_data.cpp and the
// isEarlyAtom table of Atom.cpp), the data every valence, radical and aromaticity rule reads.
type element struct {
	symbol string
	// outer is the number of outer-shell electrons (RDKit's getNouterElecs).
	outer int
	// isotope is the most common isotope's mass number, the reference of the CIP invariants.
	isotope int
	// early marks elements left of carbon, whose formal charge counts with the opposite sign
	// in valence arithmetic (H adds to them as H-).
	early bool
	// valences lists the allowed valences in increasing order; the first is the default
	// valence. -1 alone means "no preferred valence" (transition metals: no implicit Hs),
	// a trailing -1 means "anything above the listed ones".
	valences []int8
}

// elements is indexed by atomic number; 0 is the dummy atom "*".
var elements = [...]element{
	{"*", 0, 0, false, []int8{-1}},            // 0
	{"H", 1, 1, false, []int8{1}},             // 1
	{"He", 2, 4, false, []int8{0}},            // 2
	{"Li", 1, 7, true, []int8{1}},             // 3
	{"Be", 2, 9, true, []int8{2}},             // 4
	{"B", 3, 11, true, []int8{3}},             // 5
	{"C", 4, 12, false, []int8{4}},            // 6
	{"N", 5, 14, false, []int8{3}},            // 7
	{"O", 6, 16, false, []int8{2}},            // 8
	{"F", 7, 19, false, []int8{1}},            // 9
	{"Ne", 8, 20, false, []int8{0}},           // 10
	{"Na", 1, 23, true, []int8{1}},            // 11
	{"Mg", 2, 24, true, []int8{2, -1}},        // 12
	{"Al", 3, 27, true, []int8{3, 6}},         // 13
	{"Si", 4, 28, false, []int8{4, 6}},        // 14
	{"P", 5, 31, false, []int8{3, 5, 7}},      // 15
	{"S", 6, 32, false, []int8{2, 4, 6}},      // 16
	{"Cl", 7, 35, false, []int8{1}},           // 17
	{"Ar", 8, 40, false, []int8{0}},           // 18
	{"K", 1, 39, true, []int8{1}},             // 19
	{"Ca", 2, 40, true, []int8{2, -1}},        // 20
	{"Sc", 3, 45, true, []int8{-1}},           // 21
	{"Ti", 4, 48, true, []int8{-1}},           // 22
	{"V", 5, 50, false, []int8{-1}},           // 23
	{"Cr", 6, 52, false, []int8{-1}},          // 24
	{"Mn", 7, 55, false, []int8{-1}},          // 25
	{"Fe", 8, 56, false, []int8{-1}},          // 26
	{"Co", 9, 59, false, []int8{-1}},          // 27
	{"Ni", 10, 58, false, []int8{-1}},         // 28
	{"Cu", 11, 63, false, []int8{-1}},         // 29
	{"Zn", 2, 64, true, []int8{-1}},           // 30
	{"Ga", 3, 69, true, []int8{3}},            // 31
	{"Ge", 4, 74, true, []int8{4}},            // 32
	{"As", 5, 75, false, []int8{3, 5, 7}},     // 33
	{"Se", 6, 80, false, []int8{2, 4, 6}},     // 34
	{"Br", 7, 79, false, []int8{1}},           // 35
	{"Kr", 8, 84, false, []int8{0}},           // 36
	{"Rb", 1, 85, true, []int8{1}},            // 37
	{"Sr", 2, 88, true, []int8{2, -1}},        // 38
	{"Y", 3, 89, true, []int8{-1}},            // 39
	{"Zr", 4, 90, true, []int8{-1}},           // 40
	{"Nb", 5, 93, true, []int8{-1}},           // 41
	{"Mo", 6, 98, false, []int8{-1}},          // 42
	{"Tc", 7, 97, false, []int8{-1}},          // 43
	{"Ru", 8, 102, false, []int8{-1}},         // 44
	{"Rh", 9, 103, false, []int8{-1}},         // 45
	{"Pd", 10, 106, false, []int8{-1}},        // 46
	{"Ag", 11, 107, false, []int8{-1}},        // 47
	{"Cd", 2, 114, true, []int8{-1}},          // 48
	{"In", 3, 115, true, []int8{3}},           // 49
	{"Sn", 4, 120, true, []int8{2, 4}},        // 50
	{"Sb", 5, 121, true, []int8{3, 5, 7}},     // 51
	{"Te", 6, 130, false, []int8{2, 4, 6}},    // 52
	{"I", 7, 127, false, []int8{1, 3, 5}},     // 53
	{"Xe", 8, 132, false, []int8{0, 2, 4, 6}}, // 54
	{"Cs", 1, 133, true, []int8{1}},           // 55
	{"Ba", 2, 138, true, []int8{2, -1}},       // 56
	{"La", 3, 139, true, []int8{-1}},          // 57
	{"Ce", 4, 140, true, []int8{-1}},          // 58
	{"Pr", 3, 141, true, []int8{-1}},          // 59
	{"Nd", 4, 142, true, []int8{-1}},          // 60
	{"Pm", 5, 145, true, []int8{-1}},          // 61
	{"Sm", 6, 152, false, []int8{-1}},         // 62
	{"Eu", 7, 153, false, []int8{-1}},         // 63
	{"Gd", 8, 158, false, []int8{-1}},         // 64
	{"Tb", 9, 159, false, []int8{-1}},         // 65
	{"Dy", 10, 164, false, []int8{-1}},        // 66
	{"Ho", 11, 165, false, []int8{-1}},        // 67
	{"Er", 12, 166, false, []int8{-1}},        // 68
	{"Tm", 13, 169, false, []int8{-1}},        // 69
	{"Yb", 14, 174, false, []int8{-1}},        // 70
	{"Lu", 15, 175, false, []int8{-1}},        // 71
	{"Hf", 4, 180, true, []int8{-1}},          // 72
	{"Ta", 5, 181, true, []int8{-1}},          // 73
	{"W", 6, 184, false, []int8{-1}},          // 74
	{"Re", 7, 187, false, []int8{-1}},         // 75
	{"Os", 8, 192, false, []int8{-1}},         // 76
	{"Ir", 9, 193, false, []int8{-1}},         // 77
	{"Pt", 10, 195, false, []int8{-1}},        // 78
	{"Au", 11, 197, false, []int8{-1}},        // 79
	{"Hg", 2, 202, true, []int8{-1}},          // 80
	{"Tl", 3, 205, true, []int8{3}},           // 81
	{"Pb", 4, 208, true, []int8{2, 4}},        // 82
	{"Bi", 5, 209, true, []int8{3, 5, 7}},     // 83
	{"Po", 6, 209, false, []int8{2, 4, 6}},    // 84
	{"At", 7, 210, false, []int8{1, 3, 5}},    // 85
	{"Rn", 8, 211, false, []int8{0}},          // 86
	{"Fr", 1, 223, true, []int8{1}},           // 87
	{"Ra", 2, 223, true, []int8{2, -1}},       // 88
	{"Ac", 3, 227, true, []int8{-1}},          // 89
	{"Th", 4, 232, true, []int8{-1}},          // 90
	{"Pa", 3, 231, true, []int8{-1}},          // 91
	{"U", 4, 238, true, []int8{-1}},           // 92
	{"Np", 5, 236, true, []int8{-1}},          // 93
	{"Pu", 6, 238, false, []int8{-1}},         // 94
	{"Am", 7, 241, false, []int8{-1}},         // 95
	{"Cm", 8, 243, false, []int8{-1}},         // 96
	{"Bk", 9, 247, false, []int8{-1}},         // 97
	{"Cf", 10, 249, false, []int8{-1}},        // 98
	{"Es", 11, 252, false, []int8{-1}},        // 99
	{"Fm", 12, 257, false, []int8{-1}},        // 100
	{"Md", 13, 258, false, []int8{-1}},        // 101
	{"No", 14, 259, false, []int8{-1}},        // 102
	{"Lr", 15, 262, false, []int8{-1}},        // 103
	{"Rf", 2, 267, true, []int8{-1}},          // 104
	{"Db", 2, 268, true, []int8{-1}},          // 105
	{"Sg", 2, 271, true, []int8{-1}},          // 106
	{"Bh", 2, 270, true, []int8{-1}},          // 107
	{"Hs", 2, 269, true, []int8{-1}},          // 108
	{"Mt", 2, 278, true, []int8{-1}},          // 109
	{"Ds", 2, 281, true, []int8{-1}},          // 110
	{"Rg", 2, 281, true, []int8{-1}},          // 111
	{"Cn", 2, 285, true, []int8{-1}},          // 112
	{"Nh", 2, 284, true, []int8{-1}},          // 113
	{"Fl", 2, 289, true, []int8{-1}},          // 114
	{"Mc", 2, 288, true, []int8{-1}},          // 115
	{"Lv", 2, 293, true, []int8{-1}},          // 116
	{"Ts", 2, 292, true, []int8{-1}},          // 117
	{"Og", 2, 294, true, []int8{-1}},          // 118
}

// maxAtomicNum is the largest atomic number the reader knows.
const maxAtomicNum = len(elements) - 1

// defaultValence returns RDKit's default valence of element z (-1: none).
func defaultValence(z int) int { return int(elements[z].valences[0]) }

// lastValence returns the last entry of element z's valence list (-1: unbounded).
func lastValence(z int) int {
	v := elements[z].valences
	return int(v[len(v)-1])
}
