#!/usr/bin/env bash
# Fails on an import against pool-core's layers or a cycle between its
# modules, or a source file over 800 lines; `--graph` also prints the
# graph. See scripts/layers.py.
set -euo pipefail
exec python3 "$(dirname "$0")/layers.py" "$@"
