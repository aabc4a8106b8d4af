#!/usr/bin/env bash
# Fetches the pinned uPlot release from the npm registry and copies its dist
# files into this folder, after checking them against SHA256SUMS.
#
# The fetched files are committed, so a plain `go build` needs only Go; run
# this script only to re-fetch or, with a new VERSION and new sums, to upgrade.
# To upgrade: set VERSION, run with UPDATE_SUMS=1, review the diff, commit.
set -euo pipefail

VERSION=1.6.32
FILES=(uPlot.iife.min.js uPlot.min.css LICENSE)

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "uplot@${VERSION}" >/dev/null)
tar -xzf "$tmp/uplot-${VERSION}.tgz" -C "$tmp"
mkdir "$tmp/out"
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$tmp/out/"
cp "$tmp/package/LICENSE" "$tmp/out/LICENSE"

if [[ "${UPDATE_SUMS:-0}" == 1 ]]; then
	(cd "$tmp/out" && sha256sum "${FILES[@]}") >"$here/SHA256SUMS"
fi
# Check before copying, so a bad download never replaces the committed files.
(cd "$tmp/out" && sha256sum --check --quiet "$here/SHA256SUMS")
for f in "${FILES[@]}"; do
	cp "$tmp/out/$f" "$here/$f"
done
echo "uplot@${VERSION}: ${FILES[*]} verified and copied to $here"
