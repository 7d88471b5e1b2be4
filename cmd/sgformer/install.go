package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"

	"github.com/sgformer/sgformer/data"
	"github.com/sgformer/sgformer/sgformer/backend"
)

// installXLACmd installs backend.CPUPlugin into the plugin folder (data.Source.Download: resumed,
// checked against its SHA-256, moved into place only whole) and checks that it computes.
func installXLACmd(args []string, io stdio) error {
	fs := newFlagSet("install-xla")
	root := fs.String("pjrt-dir", "", "folder for PJRT plugins, which go into its lib/ (default: $SGFORMER_PJRT_DIR, else the user cache's "+
		"sgformer/pjrt); one other than the default must be given to later commands as SGFORMER_PJRT_DIR")
	if err := parse(fs, args, io); err != nil {
		return err
	}
	if *root != "" {
		if err := os.Setenv("SGFORMER_PJRT_DIR", *root); err != nil {
			return err
		}
	}
	dir, err := backend.PluginDir()
	if err != nil {
		return err
	}
	w := backend.CPUPlugin
	src := data.Source{
		Name: w.Package + " " + w.Version, URL: w.URL, Prefix: path.Dir(w.Member) + "/",
		Files: map[string]string{backend.CPUPluginFile: w.MemberSHA256},
	}
	if err := src.Download(context.Background(), dir, http.DefaultClient, io.err); err != nil {
		return err
	}
	if err := os.Unsetenv("PJRT_PLUGIN_LIBRARY_PATH"); err != nil { // check this plugin, not another
		return err
	}
	plugin := filepath.Join(dir, backend.CPUPluginFile)
	b, err := backend.New("xla:cpu")
	if err == nil {
		defer b.Finalize()
		err = computes(b)
	}
	if err != nil {
		// Left in place, it would be the default backend and fail every command.
		os.Remove(plugin)
		return fmt.Errorf("install-xla: %s %s %s does not work on this machine, so it was removed: %w", w.Package, w.Version, plugin, err)
	}
	return writeJSON(io.out, map[string]any{
		"plugin": plugin, "package": w.Package, "version": w.Version,
		"backend": backend.Describe(b),
	})
}

// computes checks that b adds 1 and 2.
func computes(b backends.Backend) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	exec, err := graph.NewExec(b, func(x *graph.Node) *graph.Node { return graph.AddScalar(x, 2) })
	if err != nil {
		return err
	}
	out, err := exec.Exec(float32(1))
	if err != nil {
		return err
	}
	if got := out[0].Value().(float32); got != 3 {
		return fmt.Errorf("1 + 2 = %v", got)
	}
	return nil
}
