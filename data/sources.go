package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Source is where a benchmark dataset comes from: its canonical download and the files it
// unpacks into a data directory.
type Source struct {
	// Name is the dataset's name (e.g. "ogbg-molesol"); Folder the directory name the project
	// looks for under a data root (e.g. "ogbg_molesol", as in shared/data).
	Name, Folder string
	// URL is the canonical archive (a zip), or the dataset's one file (any other name, e.g.
	// LRGB's CSV); Prefix the folder inside a zip that holds the files.
	URL, Prefix string
	// Files lists the files read, relative to the data directory, with their SHA-256 ("" when
	// Digest checks them), which Download checks.
	Files map[string]string
	// Extra lists further files to fetch as they are, beside the archive's: name → URL.
	Extra map[string]string
	// MD5 holds the MD5 sums the dataset's authors publish for the files fetched (by the name
	// of the archive, or of a file of Extra), checked as soon as each is fetched.
	MD5 map[string]string
	// Digest is the Dataset.Digest of the published dataset, pinned from the shared copies:
	// Load checks every copy it reads against it (unless told not to), and Download checks the
	// files against it where Files has no sums.
	Digest string
	// Sizes, if not zero, are the train, validation and test sizes the dataset must read with,
	// when neither per-file sums nor a digest can be pinned.
	Sizes [3]int
	// Pending, if not empty, says why the download cannot be checked yet (sums not pinned):
	// Download then refuses, saying which files to fetch by hand and where to put them.
	Pending string
	// convert, if set, turns the fetched files in a folder into Files, in the same folder.
	convert func(dir string) error
	read    func(dir string) (*Dataset, error)
}

// zincURL is benchmarking-gnns' molecules.zip, the pickles of ZINC-full, from which PyG builds
// ZINC and ZINC-full.
const zincURL = "https://www.dropbox.com/s/feo9qle74kg48gy/molecules.zip?dl=1"

// LRGB's downloads of the Peptides datasets and the MD5 sums its loaders check
// (graphgps/loader/dataset/peptides_functional.py and peptides_structural.py, in
// vijaydwivedi75/lrgb and rampasek/GraphGPS): each dataset's CSV, and its split as a pickle
// (both splits have the same MD5: the same split).
const (
	lrgbFuncURL        = "https://www.dropbox.com/s/ol2v01usvaxbsr8/peptide_multi_class_dataset.csv.gz?dl=1"
	lrgbFuncMD5        = "701eb743e899f4d793f0e13c8fa5a1b4"
	lrgbFuncSplitURL   = "https://www.dropbox.com/s/j4zcnx2eipuo0xz/splits_random_stratified_peptide.pickle?dl=1"
	lrgbStructURL      = "https://www.dropbox.com/s/464u3303eu2u4zp/peptide_structure_dataset.csv.gz?dl=1"
	lrgbStructMD5      = "9786061a34298a0684150f2e4ff13f47"
	lrgbStructSplitURL = "https://www.dropbox.com/s/9dfifzft1hqgow6/splits_random_stratified_peptide_structure.pickle?dl=1"
	lrgbSplitMD5       = "5a0114bdadc80b94fc7ae974f13ef061"
)

// peptides is the source of one of LRGB's Peptides datasets: its CSV and its split pickle,
// fetched as LRGB's loader fetches them and checked against the MD5 sums it publishes.
func peptides(name, folder, csvURL, csvName, csvMD5, splitURL, splitBase string, read func(string) (*Dataset, error)) Source {
	return Source{
		Name: name, Folder: folder, URL: csvURL,
		Files: map[string]string{csvName: "", splitBase + ".pickle": ""},
		Extra: map[string]string{splitBase + ".pickle": splitURL},
		MD5:   map[string]string{csvName: csvMD5, splitBase + ".pickle": lrgbSplitMD5},
		read:  read,
	}
}

// ogb is the source of an OGB molecule dataset: OGB's own zip, whose files are checked
// against the SHA-256 sums of the copies in shared/data (OGB publishes none).
func ogb(name, zipName, digest string, sums map[string]string) Source {
	return Source{
		Name: "ogbg-" + name, Folder: "ogbg_" + name,
		URL:    "http://snap.stanford.edu/ogb/data/graphproppred/csv_mol_download/" + zipName + ".zip",
		Prefix: zipName + "/", Files: sums, Digest: digest,
		read: func(dir string) (*Dataset, error) { return OGB("ogbg-"+name, dir) },
	}
}

// Alchemy-12k's download: alchemy_full.zip where PyG's TUDataset fetches it, and the split's
// index files from Morris et al.'s repository (chrsmrrs/sparsewl, neural_higher_order/Alchemy,
// pinned to a commit), whose lists the authors' utils/data.py copies.
const (
	alchemyURL      = "https://www.chrsmrrs.com/graphkerneldatasets/alchemy_full.zip"
	alchemySplitURL = "https://raw.githubusercontent.com/chrsmrrs/sparsewl/91b691d26ca9eee957d0b518d13d88e74a64b0e5/neural_higher_order/Alchemy/"
	// alchemyUnpinned is "" for the files of alchemy_full.zip in alchemySums: their SHA-256 are
	// not pinned, because the machine this reader was written on could not reach
	// www.chrsmrrs.com. TODO(alchemy): download the zip, put the sha256sum of its five files
	// read in alchemySums, and drop alchemyPending from the source.
	alchemyUnpinned = ""
	alchemyPending  = "the SHA-256 sums of alchemy_full.zip's files are not pinned yet (a TODO in data/sources.go, alchemySums)"
)

// alchemySums are the SHA-256 sums of the files Alchemy reads. Those of the index files are
// sparsewl's at the pinned commit (their lists equal the authors' utils/data.py's, entry for
// entry); those of alchemy_full's files are not known yet (alchemyUnpinned).
var alchemySums = map[string]string{
	alchemyA:          alchemyUnpinned,
	alchemyIndicator:  alchemyUnpinned,
	alchemyNodeLabels: alchemyUnpinned,
	alchemyEdgeLabels: alchemyUnpinned,
	alchemyTargets:    alchemyUnpinned,
	alchemySplit[0]:   "5dcc5b8f39a8be7f5d82608c1fe37c0dbb11830206176fd5c3fb56dca9ffd0c9",
	alchemySplit[1]:   "009a037a6ea4387fee935feb9caf9850376433ecbbb0ccea715685d40ed60a38",
	alchemySplit[2]:   "4f4ff2507121873b485656534df0627b7812f062b50da0984025ff70f533979e",
}

// Sources are the datasets Load reads and Download fetches.
var Sources = []Source{
	{
		// ZINC-12k as PyG's ZINC(subset=True) fetches it: benchmarking-gnns' molecules.zip
		// (the pickles of ZINC-full) and the subset's indices, turned into the text export.
		Name: "zinc12k", Folder: "zinc12k",
		URL:    zincURL,
		Prefix: "molecules/",
		Files:  map[string]string{zincNodes + ".gz": "", zincEdges + ".gz": "", zincLabels + ".gz": "", zincSplits: ""},
		Extra: map[string]string{
			"train.index": "https://raw.githubusercontent.com/graphdeeplearning/benchmarking-gnns/master/data/molecules/train.index",
			"val.index":   "https://raw.githubusercontent.com/graphdeeplearning/benchmarking-gnns/master/data/molecules/val.index",
			"test.index":  "https://raw.githubusercontent.com/graphdeeplearning/benchmarking-gnns/master/data/molecules/test.index",
		},
		Digest:  "11cc6762a8545c6f55bfc7cd684004e476c030e3f7e83bb8bb7ffdfc58b44b71", // of shared/data/zinc12k
		convert: convertZINC,
		read:    ZINC,
	},
	{
		// ZINC-full as PyG's ZINC(subset=False) reads it: the pickles of molecules.zip, kept as
		// they are. No copy was at hand to pin a digest: the split sizes PyG and
		// benchmarking-gnns publish are checked instead.
		Name: "zinc-full", Folder: "zinc_full",
		URL: zincURL, Prefix: "molecules/",
		Files: map[string]string{"train.pickle": "", "val.pickle": "", "test.pickle": ""},
		Sizes: [3]int{220011, 24445, 5000},
		read:  ZINCFull,
	},
	ogb("molesol", "esol", "c4c282aa1770ff57d0035780f3f648a58024034e7af8cb2310f834bbb49692a2", map[string]string{
		"raw/num-node-list.csv.gz":    "57de66bbe53142b5bd7329e8aa5e7812dfbeffe80b6ba500b14e7d354aaa17ac",
		"raw/num-edge-list.csv.gz":    "8cc54b817d1f5c999cfd69dc9c09aebdddee942f8fd95f2462fb53699eae9ce0",
		"raw/node-feat.csv.gz":        "1500decb89013de31586a9725b3fe984b84cb2696f8411880ddbb09ecb3112f0",
		"raw/edge.csv.gz":             "d4fbb9ea8127e76ac915bb650d61db36e5e5ae2695b2e869818e7632d7bec0af",
		"raw/edge-feat.csv.gz":        "da5e2351193a7ef5cd3d4d78a9527797d52ca64e5af52ea4f14adcafdb0c1693",
		"raw/graph-label.csv.gz":      "049ab083983327bd4e2d0bcdb019d6ae4c0316ae676e6add0403a5a7e94c5cad",
		"split/scaffold/train.csv.gz": "07a08a743001b8faa61ffb62130ac60e4f89355912fd798da7a471e233cb5d1b",
		"split/scaffold/valid.csv.gz": "fc4ddf102e27ab6436128e151dc1e83c9f2cf2be3e8c4007543dcf97bd13ff53",
		"split/scaffold/test.csv.gz":  "3a2367389a4d0f2d3cada1ba19d82c83edcb4db58bd564273b14b8a33749cde2",
		"mapping/mol.csv.gz":          "9d35028b2adf47376c1a74d89bb1f21aa584605d17eca8193b37b0c88ef2515d",
	}),
	ogb("molbace", "bace", "e8549e1baf3884283bf6ba1099497fcbbacb99d563958a511637dc08087d0f6d", map[string]string{
		"raw/num-node-list.csv.gz":    "ca6e661f0d4323c90543e9539971ba8695a763aac0df2e8e1c6d141985a9a2fa",
		"raw/num-edge-list.csv.gz":    "78e201ed1abfd581096a3e5ba32a18ccca8e872f89c05bec1f9e52f25a7a5f76",
		"raw/node-feat.csv.gz":        "bd031b6fd3d699c2ee4527e778e298bc0ae52439b9b720311789f83803a6025a",
		"raw/edge.csv.gz":             "014e9475134c9c20300fda5d8115bd0c5f192185cd74c6f8921afc28f6359ce7",
		"raw/edge-feat.csv.gz":        "089c1ee7c5561a0e81623780d0808e10feb2aa789a48b1fef260ad3f3494013b",
		"raw/graph-label.csv.gz":      "a93fed4e7bf6ef1fe8b6bd79e5a4eb984d9a5ccaa4f51d6cb1accecff836b632",
		"split/scaffold/train.csv.gz": "5f20fb296650872fc91d8af37ed3afdd6d4cd32b52e53763d543bf1b6aa89b26",
		"split/scaffold/valid.csv.gz": "f06cb03da9a5f5609c4600f1e01148eb54779351086aede3305643335657bd66",
		"split/scaffold/test.csv.gz":  "8e6ede054b28f5953912996c1d59c0d8b0c7ef252b3f2679c251d205c8438755",
		"mapping/mol.csv.gz":          "7a7aed697887bbd1ddcca1aa9e83d069d39e09d800e5961d20b80f1704ba86b5",
	}),
	ogb("molhiv", "hiv", "a3315dec8b2aeca745e5b2bd258f1fb30ab5b70ca636dadf2a6527f4f9e65309", map[string]string{
		"raw/num-node-list.csv.gz":    "e26f7e29de4a3985c7f47482838c62f870c90c4d01871c57bfeae1b8d993a24b",
		"raw/num-edge-list.csv.gz":    "fa058f23514328fd69bc9c4c31fd8f5938c4ce18726855489d0c0e2dfeaddd37",
		"raw/node-feat.csv.gz":        "1e875d13c6442622d2b4f3763e7b0ef48cf2c769828b087ef0efe91c3bdb574b",
		"raw/edge.csv.gz":             "d279b2d408f553cdc6e8ff9712e8eb52ee8831e6f63d29431812e27bca119389",
		"raw/edge-feat.csv.gz":        "a59f5bcf890de811555f5d3819a96f713b4f8b6204801f286991c197afacf836",
		"raw/graph-label.csv.gz":      "88f950d08c606556cca1c1ffef05229f46d64043ad7fa617e8938a3ae9779993",
		"split/scaffold/train.csv.gz": "9f1e46e77897b3de3d19452cbd47c312e2844a0ec664c1c9dc897c10d12e42f0",
		"split/scaffold/valid.csv.gz": "eaf4d6b4630f9e689d2b203669674d0dc309673319e8ac32daa9e9ca90e2e1fa",
		"split/scaffold/test.csv.gz":  "27485729d83edd6f47eb3b8daff69fdb32c9df6b36b17204ef87f8dc1a30eab1",
		"mapping/mol.csv.gz":          "306c4ad8d54fc6cd40c71da4d0561fdcc73e1188662e6992bae0dda8f65bf6d0",
	}),
	// Peptides-func: its content digest pinned from shared/data/peptides_func (whose CSV has
	// LRGB's MD5; its split is the pickle's, as JSON).
	func() Source {
		s := peptides("peptides-func", "peptides_func", lrgbFuncURL, peptidesFuncCSV, lrgbFuncMD5, lrgbFuncSplitURL, peptidesFuncSplit, PeptidesFunc)
		s.Digest = "ee7c666ee02be31d3ab8afb96cbde0218b6582de8bea09f238ae6c7dcf962ba3"
		return s
	}(),
	// Peptides-struct: no copy was at hand to pin a digest; the download is checked by LRGB's
	// MD5 sums, and the split by its published sizes.
	func() Source {
		s := peptides("peptides-struct", "peptides_struct", lrgbStructURL, peptidesStructCSV, lrgbStructMD5, lrgbStructSplitURL, peptidesStructSplit, PeptidesStruct)
		s.Sizes = [3]int{10873, 2331, 2331}
		return s
	}(),
	{
		// Alchemy-12k as the authors read it (Alchemy): alchemy_full's TU files and the split
		// of Morris et al. No copy was at hand to pin a digest: the split sizes are checked.
		Name: "alchemy12k", Folder: "alchemy12k",
		URL: alchemyURL, Prefix: alchemyName + "/",
		Files: alchemySums,
		Extra: map[string]string{
			alchemySplit[0]: alchemySplitURL + alchemySplit[0],
			alchemySplit[1]: alchemySplitURL + alchemySplit[1],
			alchemySplit[2]: alchemySplitURL + alchemySplit[2],
		},
		Sizes:   [3]int{10000, 1000, 1000},
		Pending: alchemyPending,
		read:    Alchemy,
	},
}

// SourceOf returns the source of the dataset name.
func SourceOf(name string) (Source, error) {
	for _, s := range Sources {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(Sources))
	for i, s := range Sources {
		names[i] = s.Name
	}
	return Source{}, fmt.Errorf("data: unknown dataset %q (available: %s)", name, strings.Join(names, ", "))
}

// DefaultDir is where a dataset's files are looked for when no directory is given:
// $SGFORMER_DATA/FOLDER if SGFORMER_DATA is set, else ../shared/data/FOLDER relative to the
// working directory or one of its parents if it exists (the development layout, also found from
// notebooks/), else the user cache directory's sgformer/data/FOLDER (where Download puts it).
func DefaultDir(name string) (string, error) {
	s, err := SourceOf(name)
	if err != nil {
		return "", err
	}
	if root := os.Getenv("SGFORMER_DATA"); root != "" {
		return filepath.Join(root, s.Folder), nil
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			shared := filepath.Join(dir, "..", "shared", "data", s.Folder)
			if _, err := os.Stat(shared); err == nil {
				return filepath.Clean(shared), nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("data: no directory for %s: set SGFORMER_DATA or pass a data directory: %w", name, err)
	}
	return filepath.Join(cache, "sgformer", "data", s.Folder), nil
}

// searched says where DefaultDir looks for a dataset's folder, in its order.
func searched() string {
	if root := os.Getenv("SGFORMER_DATA"); root != "" {
		return "$SGFORMER_DATA = " + root
	}
	places := "$SGFORMER_DATA (not set), ../shared/data beside the working directory or one of its parents"
	if wd, err := os.Getwd(); err == nil {
		places = "$SGFORMER_DATA (not set), ../shared/data beside " + wd + " or one of its parents"
	}
	if cache, err := os.UserCacheDir(); err == nil {
		places += ", " + filepath.Join(cache, "sgformer", "data")
	}
	return places
}

// Ensure returns DefaultDir(name), the directory of the dataset's files, after downloading the
// canonical files into it (Download, reporting to progress) when it does not exist: a dataset
// arrives on first use, as in PyG and OGB. A directory that exists is left to Load to check.
// Offline, the error says what to fetch by hand and where to put it.
func Ensure(ctx context.Context, name string, progress io.Writer) (string, error) {
	s, err := SourceOf(name)
	if err != nil {
		return "", err
	}
	dir, err := DefaultDir(name)
	if err != nil {
		return "", err
	}
	return dir, s.ensure(ctx, dir, http.DefaultClient, progress)
}

// ensure downloads s into dir unless dir exists.
func (s Source) ensure(ctx context.Context, dir string, client *http.Client, progress io.Writer) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	return s.Download(ctx, dir, client, progress)
}

// LoadOptions adjust Load.
type LoadOptions struct {
	// NoVerify accepts a copy that differs from the published dataset — data modified on
	// purpose: it skips the checks against the pinned content digest and for files that look
	// truncated. The checks of the file format itself are always made.
	NoVerify bool
}

// Load reads the dataset name from dir (DefaultDir if empty) and checks that it is the
// published dataset; see LoadWith.
func Load(name, dir string) (*Dataset, error) { return LoadWith(name, dir, LoadOptions{}) }

// LoadWith reads the dataset name from dir (DefaultDir if empty). When the directory lacks the
// dataset's files, the error says what to download and where to put it. Unless opt.NoVerify,
// the copy must be the published dataset: a copy whose files look cut at a line boundary (the
// last graphs without edges, graphs in no part of the split) or whose content digest
// (Dataset.Digest, a tenth of the time reading takes) differs from the pinned one is an error
// that says so.
func LoadWith(name, dir string, opt LoadOptions) (*Dataset, error) {
	s, err := SourceOf(name)
	if err != nil {
		return nil, err
	}
	defaulted := dir == ""
	if defaulted {
		if dir, err = DefaultDir(name); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(dir); err != nil {
		if defaulted {
			return nil, fmt.Errorf("data: %s: no copy found (looked for %s in %s)\n%s", name, s.Folder, searched(), s.missing(dir))
		}
		return nil, fmt.Errorf("data: %s: %w\n%s", name, err, s.missing(dir))
	}
	ds, err := s.read(dir)
	if err != nil && errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w\n%s", err, s.missing(dir))
	}
	if err != nil || opt.NoVerify {
		return ds, err
	}
	const hint = "pass --no-verify (data.LoadOptions.NoVerify) to use modified data"
	if err := ds.truncated(); err != nil {
		return nil, fmt.Errorf("data: %s (%s): %w; if this copy differs from the published dataset on purpose, %s", name, dir, err, hint)
	}
	if err := s.check(ds); err != nil {
		return nil, fmt.Errorf("data: this copy of %s (%s) differs from the published dataset (%w); %s", name, dir, err, hint)
	}
	return ds, nil
}

// check compares a dataset read from the source's files with the published one: its content
// digest, or where none is pinned, its split sizes.
func (s Source) check(ds *Dataset) error {
	if got := ds.Digest(); s.Digest != "" && got != s.Digest {
		return fmt.Errorf("content digest %s, want %s", got, s.Digest)
	}
	if got := [3]int{len(ds.Split.Train), len(ds.Split.Valid), len(ds.Split.Test)}; s.Sizes != [3]int{} && got != s.Sizes {
		return fmt.Errorf("%v train/val/test graphs, want %v", got, s.Sizes)
	}
	return nil
}

// truncated reports the signs of a file cut at a line boundary that the formats cannot tell
// from valid data: the last graphs have nodes but no edges while earlier ones have edges (an
// edge file cut short), or graphs are in no part of the split (a split file cut short). The
// published datasets show neither, but data modified on purpose may.
func (ds *Dataset) truncated() error {
	last := len(ds.Graphs) - 1
	for last >= 0 && ds.Graphs[last].NumEdges() == 0 {
		last--
	}
	bare := 0 // graphs after the last one with edges that have two nodes or more
	for _, g := range ds.Graphs[last+1:] {
		if g.N() >= 2 {
			bare++
		}
	}
	if last >= 0 && bare > 0 {
		return fmt.Errorf("graphs %d..%d (the last %d) have nodes but no edges, while graph %d has edges: the edge file looks truncated",
			last+1, len(ds.Graphs)-1, len(ds.Graphs)-1-last, last)
	}
	in := make([]bool, len(ds.Graphs))
	for _, part := range [][]int{ds.Split.Train, ds.Split.Valid, ds.Split.Test} {
		for _, i := range part {
			in[i] = true
		}
	}
	if first := slices.Index(in, false); first >= 0 {
		missing := 0
		for _, ok := range in {
			if !ok {
				missing++
			}
		}
		return fmt.Errorf("%d graphs are in no part of the split (the first: graph %d): a split file looks truncated", missing, first)
	}
	return nil
}

// missing explains how to obtain the source's files in dir.
func (s Source) missing(dir string) string {
	if s.Pending != "" {
		return fmt.Sprintf("sgformer download cannot fetch %s yet: %s.\n%s", s.Name, s.Pending, s.offline(dir))
	}
	return fmt.Sprintf("Where there is internet, run: sgformer download --dataset %s --data-dir %s\n%s", s.Name, dir, s.offline(dir))
}

// offline explains how to put the source's files in dir by hand.
func (s Source) offline(dir string) string {
	if !s.zipped() {
		fetches := []string{fmt.Sprintf("%s (as %s)", s.URL, s.archiveName())}
		for _, name := range slices.Sorted(maps.Keys(s.Extra)) {
			fetches = append(fetches, fmt.Sprintf("%s (as %s)", s.Extra[name], name))
		}
		var sums []string
		for _, name := range slices.Sorted(maps.Keys(s.MD5)) {
			sums = append(sums, fmt.Sprintf("%s  %s", s.MD5[name], name))
		}
		return fmt.Sprintf("Offline, fetch %s on another machine and put the files into %s; their MD5 sums must be:\n  %s",
			strings.Join(fetches, " and "), dir, strings.Join(sums, "\n  "))
	}
	if s.convert != nil {
		extra := slices.Sorted(maps.Keys(s.Extra))
		for i, name := range extra {
			extra[i] = s.Extra[name]
		}
		return fmt.Sprintf("Offline, fetch %s and %s on another machine and put the files of the archive's %s folder and the "+
			"others into %s (the layout of PyG's dataset folder, which is read as well).",
			s.URL, strings.Join(extra, ", "), s.Prefix, filepath.Join(dir, "raw"))
	}
	files := slices.Sorted(maps.Keys(s.Files))
	var extra string
	for _, name := range slices.Sorted(maps.Keys(s.Extra)) {
		extra += fmt.Sprintf(", fetch %s (as %s)", s.Extra[name], name)
	}
	if extra != "" {
		extra += " into the same folder"
	}
	return fmt.Sprintf("Offline, fetch %s on another machine and unpack the contents of its %s folder into %s%s, so that it holds:\n  %s",
		s.URL, s.Prefix, dir, extra, strings.Join(files, "\n  "))
}
