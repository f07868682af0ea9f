#!/usr/bin/env bash
# Builds the real AvalancheGo node (github.com/ava-labs/avalanchego/main, pinned in go.mod beside this file), the
# example VM xsvm of the same release (github.com/ava-labs/avalanchego/vms/example/xsvm/cmd/xsvm: the L1's chain)
# and our network driver (./localnet) from the Go module proxy, once, into a cache outside the repository:
#   ${AVAX_EXPORTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/avax-exporter}/avalanchego-<version>-<key>/
# where <key> hashes go.mod and go.sum (the node) and the driver's sources (the driver, a few seconds to relink),
# so a later run reuses the build and a change to any of them builds anew what it changed. The directory is
# printed on standard output (nothing else is); progress, the first build's time and size, and errors go to
# standard error. --quiet prints nothing on standard output.
# Run by `npm test` before the suite (package.json "pretest"); test/helpers/local-network.ts calls it too and
# gets the directory back at once when the build is cached.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1

say() { echo "avalanchego: $*" >&2; }
die() {
  say "$1"
  say "Then run again: bash test/avalanchego/build.sh"
  exit 1
}

version="$(awk '$1 == "require" && $2 == "github.com/ava-labs/avalanchego" { print $3 }' "$here/go.mod")"
[ -n "$version" ] || die "go.mod names no github.com/ava-labs/avalanchego version."
key="$(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"
driver_key="$(cat "$here/go.mod" "$here/go.sum" "$here"/localnet/*.go | sha256sum | cut -c1-12)"
cache="${AVAX_EXPORTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/avax-exporter}"
out="$cache/avalanchego-$version-$key"
built() { [ -x "$out/avalanchego" ] && [ -x "$out/xsvm" ] && [ -x "$out/localnet" ] && [ "$(cat "$out/localnet.key" 2>/dev/null)" = "$driver_key" ]; }

if built; then
  [ "$quiet" = 1 ] || echo "$out"
  exit 0
fi

# The toolchain this machine has, never one downloaded on the fly: AvalancheGo v1.14.2 needs Go 1.25.8.
export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || die "Go is not installed. Install Go 1.25.8 or newer (the machines have 1.26) and put it on PATH."
need="$(awk '$1 == "go" { print $2; exit }' "$here/go.mod")"
have="$(go env GOVERSION | sed 's/^go//')"
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n1)" != "$need" ]; then
  die "Go $have is too old: go.mod needs $need or newer. Install a newer Go and put it on PATH."
fi
command -v "${CC:-gcc}" >/dev/null 2>&1 || die "AvalancheGo needs cgo and this machine has no C compiler (${CC:-gcc}): apt-get install -y gcc"

mkdir -p "$cache"
exec 9>"$cache/.build.lock"
flock 9 # one build at a time; a second caller waits for the first and then finds it done
if built; then
  [ "$quiet" = 1 ] || echo "$out"
  exit 0
fi

start=$(date +%s)
tmp="$(mktemp -d "$cache/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
log="$tmp/build.log"
cd "$here"
mkdir -p "$out"
failed() {
  tail -n 20 "$log" >&2
  die "the build failed (above). If it could not download modules, check that GOPROXY ($(go env GOPROXY)) reaches the Go module proxy."
}
# -mod=readonly: exactly the versions go.sum records. A proxy that cannot be reached fails here.
if [ ! -x "$out/avalanchego" ]; then
  say "building AvalancheGo $version from the Go module proxy into $out (once; about 6 minutes on 2 cores)"
  go build -mod=readonly -trimpath -o "$tmp/avalanchego" github.com/ava-labs/avalanchego/main >"$log" 2>&1 || failed
  mv "$tmp/avalanchego" "$out/"
fi
if [ ! -x "$out/xsvm" ]; then
  say "building the xsvm VM plugin $version"
  go build -mod=readonly -trimpath -o "$tmp/xsvm" github.com/ava-labs/avalanchego/vms/example/xsvm/cmd/xsvm >"$log" 2>&1 || failed
  mv "$tmp/xsvm" "$out/"
fi
say "building the network driver (test/avalanchego/localnet)"
go build -mod=readonly -trimpath -o "$tmp/localnet" ./localnet >"$log" 2>&1 || failed
mv "$tmp/localnet" "$out/"
echo "$driver_key" >"$out/localnet.key"
secs=$(($(date +%s) - start))
say "built in ${secs} s: $("$out/avalanchego" --version), $(du -sh "$out" | cut -f1) in $out"
[ "$quiet" = 1 ] || echo "$out"
