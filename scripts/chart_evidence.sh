#!/bin/sh
# Renders the report's charts to PNG so a person can look at them: the chart tests write their SVGs
# (tests/report/charts_test.cpp, WARPFORGE_CHART_EVIDENCE), chromium screenshots each one.
# Usage: scripts/chart_evidence.sh [build-dir]   (default build); PNGs in <build-dir>/evidence/charts/.
set -eu
build=${1:-build}
out="$build/evidence/charts"
mkdir -p "$out"
WARPFORGE_CHART_EVIDENCE="$out" "$build/tests/report/report_tests" --gtest_filter='Charts.*' >/dev/null
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "chart_evidence: no chromium on PATH; the SVGs are in $out" >&2
  exit 1
fi
for svg in "$out"/*.svg; do
  png="${svg%.svg}.png"
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=520,320 \
    --screenshot="$(realpath -m "$png")" "file://$(realpath "$svg")" >/dev/null 2>&1
  echo "$png"
done
