#!/usr/bin/env bash
# System packages the test suite needs, from Debian's packages; installs only what is missing.
# - python3.11 (+ venv): the project's Python.
# - bubblewrap: wraps every batch run (docs/confinement.md); socat lets Claude Code's own sandbox run
#   nested inside it (without socat that sandbox disables itself).
# - ripgrep: OpenCode's skill and search tools run `rg`; with none on PATH it downloads ripgrep from
#   GitHub, which fails offline ("ripgrep execution failed").
# - npm/node: the real host CLIs are installed from the npm registry by `workbench hosts install`.
# - chromium: Debian's headless browser loads `workbench report` pages in the tests (tests/test_report_browser.py).
set -euo pipefail
missing=()
command -v python3.11 >/dev/null 2>&1 || missing+=(python3.11 python3.11-venv)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "system-deps: missing ${missing[*]}; install them (as root: apt-get install ${missing[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
