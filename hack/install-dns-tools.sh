#!/usr/bin/env bash
# Installs what the multi-cluster DNS tests run against: real ExternalDNS builds from their Go module,
# BIND9 (named, plus dig for debugging) and PowerDNS Authoritative (pdns_server, pdnsutil, the SQLite
# backend) from the Debian packages. See docs/k8s-binaries.md ("DNS tools").
#
# Two ExternalDNS versions, each in $KUBEFED_TS_CACHE/external-dns-<version>/bin/ with ExternalDNS's own
# DNSEndpoint CRD (dnsendpoints.externaldns.k8s.io.yaml) next to the binary:
#   current  v0.22.0, the latest release;
#   legacy   v0.20.0, the last one that honours --crd-source-apiversion/--crd-source-kind, i.e. that can
#            read KubeFed's multiclusterdns.kubefed.io DNSEndpoints (kubernetes-sigs/external-dns#6414).
# named, dig and pdns_server stay where the packages put them (/usr/sbin/named, /usr/bin/dig,
# /usr/sbin/pdns_server). Idempotent: a stamped binary is never rebuilt, and apt-get runs only when one of
# them (or the SQLite backend) is missing.
#
# Usage: install-dns-tools.sh [--only current|legacy]
# Output (stdout): the bin directory of each version installed, one a line, current last.
#
# Environment:
#   KUBEFED_TS_BIN_DIR      a directory that already holds external-dns (current) and the CRD file: used as is.
#   KUBEFED_TS_CACHE        cache root (default: ${XDG_CACHE_HOME:-~/.cache}/kubefed-ts)
#   EXTERNAL_DNS_VERSION, EXTERNAL_DNS_LEGACY_VERSION   override the pinned versions.
#   KUBEFED_TS_SKIP_APT=1   never call apt-get (fail instead when named/dig/pdns_server are missing).
set -euo pipefail

EXTERNAL_DNS_VERSION="${EXTERNAL_DNS_VERSION:-v0.22.0}"
EXTERNAL_DNS_LEGACY_VERSION="${EXTERNAL_DNS_LEGACY_VERSION:-v0.20.0}"
CACHE_ROOT="${KUBEFED_TS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubefed-ts}"
CRD_FILE=dnsendpoints.externaldns.k8s.io.yaml
only=""
case "${1:-}" in
  --only) only="${2:-}"; [[ "$only" == current || "$only" == legacy ]] || { echo "usage: $0 [--only current|legacy]" >&2; exit 2; } ;;
  "") ;;
  *) echo "usage: $0 [--only current|legacy]" >&2; exit 2 ;;
esac

log() { printf '[install-dns-tools] %s\n' "$*" >&2; }
now() { date +%s; }
total_start=$(now)

# named lives in /usr/sbin, which a non-root PATH often lacks.
has() { PATH="$PATH:/usr/sbin:/sbin" command -v "$1" >/dev/null 2>&1; }
# A binary by name, or a file by path (a glob: the backend's module has no binary of its own).
present() { if [[ "$1" == */* ]]; then compgen -G "$1" >/dev/null; else has "$1"; fi; }

# --- BIND9 and PowerDNS from Debian packages ------------------------------------------------------
# apt_install <what> <binaries or file globs> <packages...>: installs the packages when one of the
# (space-separated) binaries or files is missing; a no-op otherwise.
apt_install() {
  local what="$1" bins="$2" step b missing=()
  shift 2
  for b in $bins; do present "$b" || missing+=("$b"); done
  if ((${#missing[@]} == 0)); then
    log "$what: $bins present"
    return
  fi
  if [[ "${KUBEFED_TS_SKIP_APT:-}" == 1 ]]; then
    log "error: ${missing[*]} missing and KUBEFED_TS_SKIP_APT=1; install the Debian packages $*"
    exit 1
  fi
  command -v apt-get >/dev/null || { log "error: ${missing[*]} missing and no apt-get; install $what ($*)"; exit 1; }
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || { log "error: installing $* needs root (or sudo)"; exit 1; }
    sudo=(sudo)
  fi
  step=$(now)
  log "installing Debian packages $*"
  # Serialise with other callers of this script; apt has its own lock for everyone else.
  mkdir -p "$CACHE_ROOT"
  exec 8>"$CACHE_ROOT/.apt.lock"
  flock 8
  missing=()
  for b in $bins; do present "$b" || missing+=("$b"); done
  if ((${#missing[@]} > 0)); then
    # The postinsts would start a system daemon (named, pdns_server) on :53, or fail trying without
    # systemd: a policy-rc.d that answers 101 ("action forbidden") stops invoke-rc.d from starting
    # anything. Ours is removed afterwards; an existing one (Docker images ship one) is left alone.
    own_policy=0
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
      "${sudo[@]}" sh -c 'printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d'
      own_policy=1
    fi
    restore_policy() {
      if ((own_policy)); then "${sudo[@]}" rm -f /usr/sbin/policy-rc.d; fi
      own_policy=0
    }
    trap restore_policy EXIT
    local apt_env=(env DEBIAN_FRONTEND=noninteractive)
    local apt_opts=(-y -q --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    # Update first only when the lists are empty (fresh image) or the install fails on stale lists.
    if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
      "${sudo[@]}" "${apt_env[@]}" apt-get update -q >&2
    fi
    if ! "${sudo[@]}" "${apt_env[@]}" apt-get install "${apt_opts[@]}" "$@" >&2; then
      "${sudo[@]}" "${apt_env[@]}" apt-get update -q >&2
      "${sudo[@]}" "${apt_env[@]}" apt-get install "${apt_opts[@]}" "$@" >&2
    fi
    restore_policy
    trap - EXIT
  fi
  exec 8>&-
  for b in $bins; do present "$b" || { log "error: $* installed but $b still not found"; exit 1; }; done
  log "$what installed in $(($(now) - step))s"
}

apt_install BIND9 'named dig' bind9 bind9-dnsutils
# PowerDNS Authoritative with its SQLite backend: the MCS DNS tests' zone server, driven by ExternalDNS's
# pdns provider, which (unlike rfc2136) reads SRV records back and so updates and deletes them.
apt_install 'PowerDNS Authoritative' 'pdns_server pdnsutil /usr/lib/*/pdns/libgsqlite3backend.so' pdns-server pdns-backend-sqlite3

# --- ExternalDNS from its Go module ----------------------------------------------------------------
# Builds (or finds cached) one version into $CACHE_ROOT/external-dns-<version>/bin and prints that dir.
# Keyed by ExternalDNS's own version, not Kubernetes': a Kubernetes bump must not rebuild it.
install_external_dns() {
  local version="$1" out="$CACHE_ROOT/external-dns-$1" bin="$CACHE_ROOT/external-dns-$1/bin" step moddir
  mkdir -p "$bin"
  # Parallel test processes may call this at once: one builds, the others wait and then find it cached.
  exec 9>"$out/.lock"
  flock 9
  if [[ -x "$bin/external-dns" && "$(cat "$bin/.external-dns.version" 2>/dev/null)" == "$version" ]]; then
    log "external-dns $version: cached"
  else
    step=$(now)
    log "building external-dns $version; a cold build takes about 4 minutes on 2 cores"
    cd "$out"
    moddir=$(go mod download -json "sigs.k8s.io/external-dns@$version" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
    [[ -f "$moddir/go.mod" ]] || { log "error: could not download sigs.k8s.io/external-dns@$version"; exit 1; }
    # The version is stamped as upstream's Makefile does, so the startup banner says what it is.
    local ldflags="-s -w -X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version=$version"
    if [[ "$version" == v0.22.* ]]; then
      build_stubbed "$version" "$moddir" "$out/src" "$bin" "$ldflags"
    else
      # v0.20's dependencies are all served: main.go is at the module root and go.mod has no replaces.
      GOBIN="$bin" go install -trimpath -ldflags="$ldflags" "sigs.k8s.io/external-dns@$version"
    fi
    echo "$version" >"$bin/.external-dns.version"
    log "external-dns $version built in $(($(now) - step))s"
  fi
  # The CRD ExternalDNS itself ships, so tests can install it and compare ours against it.
  if [[ ! -f "$bin/$CRD_FILE" || "$(cat "$bin/.crd.version" 2>/dev/null)" != "$version" ]]; then
    cd "$out"
    moddir=$(go mod download -json "sigs.k8s.io/external-dns@$version" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
    [[ -f "$moddir/config/crd/standard/$CRD_FILE" ]] || { log "error: no $CRD_FILE in $moddir"; exit 1; }
    # The module cache is read-only; the copy should not be.
    install -m 0644 "$moddir/config/crd/standard/$CRD_FILE" "$bin/$CRD_FILE"
    echo "$version" >"$bin/.crd.version"
    log "ExternalDNS $version CRD copied to $bin/$CRD_FILE"
  fi
  exec 9>&-
  echo "$bin"
}

# v0.22 as released, minus the two packages whose dependencies we cannot fetch.
build_stubbed() {
  local version="$1" moddir="$2" src="$3" bin="$4" ldflags="$5" stub
  # Not a plain `go install sigs.k8s.io/external-dns@version`: two of its dependencies are refused by the
  # module proxy we can reach (github.com/exoscale/egoscale/v3 and github.com/openshift/api, not even
  # their go.mod). Both serve code we never run (the Exoscale provider, the OpenShift Route source), so
  # we build a copy of the released module with those two files replaced by stubs that return an error,
  # and without those requirements. Everything else (CRD source, rfc2136, TXT registry) is upstream code.
  rm -rf "$src" && mkdir -p "$src"
  cp -r "$moddir" "$src/external-dns" && chmod -R u+w "$src/external-dns"
  cd "$src/external-dns"
  rm -f source/openshift_route*.go provider/exoscale/*.go internal/testutils/clientgenerator*.go
  cat >source/openshift_route.go <<'GO'
package source

import (
	"context"
	"errors"

	"github.com/openshift/client-go/route/clientset/versioned"
)

// NewOcpRouteSource is stubbed by kubefed-ts' hack/install-dns-tools.sh: github.com/openshift/api
// cannot be fetched where kubefed-ts builds ExternalDNS.
func NewOcpRouteSource(_ context.Context, _ versioned.Interface, _ *Config) (Source, error) {
	return nil, errors.New("the openshift-route source is not built into this external-dns (kubefed-ts test build)")
}
GO
  cat >provider/exoscale/exoscale.go <<'GO'
package exoscale

import (
	"context"
	"errors"

	"sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/provider"
)

// New is stubbed by kubefed-ts' hack/install-dns-tools.sh: github.com/exoscale/egoscale/v3 cannot be
// fetched where kubefed-ts builds ExternalDNS.
func New(_ context.Context, _ *externaldns.Config, _ *endpoint.DomainFilter) (provider.Provider, error) {
	return nil, errors.New("the exoscale provider is not built into this external-dns (kubefed-ts test build)")
}
GO
  # store.go only needs the client type and constructor of github.com/openshift/client-go.
  stub="$src/stubs/openshift-client-go"
  mkdir -p "$stub/route/clientset/versioned"
  printf 'module github.com/openshift/client-go\n\ngo 1.22\n' >"$stub/go.mod"
  cat >"$stub/route/clientset/versioned/clientset.go" <<'GO'
// Package versioned is a stand-in for OpenShift's route clientset (see hack/install-dns-tools.sh).
package versioned

import "errors"

type Interface interface{}

func NewForConfig[T any](_ T) (Interface, error) {
	return nil, errors.New("no OpenShift route client in this external-dns build")
}
GO
  go mod edit -droprequire=github.com/exoscale/egoscale/v3 -droprequire=github.com/openshift/api \
    -replace="github.com/openshift/client-go=$stub"
  go build -trimpath -ldflags="$ldflags" -o "$bin/external-dns" .
}

command -v go >/dev/null || { log "error: Go is required (https://go.dev/dl); none on PATH"; exit 1; }
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

if [[ "$only" != current ]]; then
  install_external_dns "$EXTERNAL_DNS_LEGACY_VERSION"
fi
if [[ "$only" != legacy ]]; then
  if [[ -n "${KUBEFED_TS_BIN_DIR:-}" && -x "$KUBEFED_TS_BIN_DIR/external-dns" && -f "$KUBEFED_TS_BIN_DIR/$CRD_FILE" ]]; then
    log "using external-dns from KUBEFED_TS_BIN_DIR=$KUBEFED_TS_BIN_DIR"
    echo "$KUBEFED_TS_BIN_DIR"
  else
    install_external_dns "$EXTERNAL_DNS_VERSION"
  fi
fi
log "DNS tools ready ($(($(now) - total_start))s)"
