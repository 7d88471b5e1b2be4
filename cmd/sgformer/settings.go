package main

import (
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"
)

// checkSettings returns a usage error for the first setting of -set ("name=value;…", as
// commandline.ParseContextSettings reads it) whose name is no hyperparameter of ctx, in the
// tool's terms rather than GoMLX's.
func checkSettings(ctx *context.Context, settings string) error {
	for _, setting := range strings.Split(settings, ";") {
		path, _, ok := strings.Cut(setting, "=")
		if !ok || strings.HasPrefix(setting, "file:") {
			continue // GoMLX's own message is clear
		}
		_, name := context.SplitScope(path)
		if _, found := ctx.GetParam(name); !found {
			return usagef("unknown hyperparameter %q; sgformer train -h lists them", name)
		}
	}
	return nil
}
