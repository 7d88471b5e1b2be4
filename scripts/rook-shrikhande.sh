#!/usr/bin/env bash
# The rook's graph against the Shrikhande graph (docs/design.md): TestRookShrikhande (sgformer/model)
# with SGFORMER_RECORD=1, each model's |f(rook) − f(Shrikhande)| / |f| over its random
# initialisations, the parts "MODEL K=K". Writes OUT's records (default
# results/expressivity/rook-shrikhande.jsonl; internal/record), which internal/cmd/readme renders.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/expressivity/rook-shrikhande.jsonl}
source scripts/lib/record.sh
{
	record_header scripts/rook-shrikhande.sh
	echo "# setup: $(go version | cut -d' ' -f3), backend ${GOMLX_BACKEND:-the default}"
	SGFORMER_RECORD=1 go test -count=1 -v -run '^TestRookShrikhande$' ./sgformer/model/
} | record_write "$out"
