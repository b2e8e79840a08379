#!/usr/bin/env bash
# Builds the real Kubernetes binaries that kubefed-ts runs its tests and local
# federation against, from published Go modules (no Docker, no downloads from
# release buckets). See docs/k8s-binaries.md for why it is done this way and
# what it costs.
#
# Output: $KUBEFED_TS_CACHE/<k8s-version>/bin/{kube-apiserver,kube-controller-manager,
#         kube-scheduler,kubectl,etcd,kwok,kwokctl}
# Also runs hack/install-dns-tools.sh (ExternalDNS + BIND9 for the DNS tests; only its log, on stderr, is shown,
# so the last stdout line stays the directory above).
# Idempotent: a binary whose version stamp matches is never rebuilt.
#
# Environment:
#   KUBEFED_TS_BIN_DIR  a directory that already holds the binaries; when it has
#                       all of them nothing is built and it is printed instead.
#   KUBEFED_TS_CACHE    cache root (default: ${XDG_CACHE_HOME:-~/.cache}/kubefed-ts)
#   K8S_VERSION, ETCD_VERSION, KWOK_VERSION   override the pinned versions.
#   KUBEFED_TS_SKIP_DNS_TOOLS=1  do not install the DNS tools (the DNS tests install them on demand).
#   KUBEFED_TS_SKIP_KUBEFED=1    do not build KubeFed's controller-manager (hack/install-kubefed.sh; the
#                                benchmark and its smoke test build it on demand).
#   KUBEFED_TS_SKIP_HELM=1       do not build Helm (hack/install-helm.sh; the chart tests build it on demand).
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.14}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
CACHE_ROOT="${KUBEFED_TS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubefed-ts}"
OUT="$CACHE_ROOT/$K8S_VERSION"
BIN="$OUT/bin"
ALL=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwokctl)

log() { printf '[install-k8s-binaries] %s\n' "$*" >&2; }
now() { date +%s; }
HACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# `make binaries` (and so `make test` on a fresh CI machine) must leave the DNS tools, KubeFed and Helm installed too.
extra_tools() {
  [[ "${KUBEFED_TS_SKIP_DNS_TOOLS:-}" == 1 ]] || bash "$HACK_DIR/install-dns-tools.sh" >/dev/null
  [[ "${KUBEFED_TS_SKIP_KUBEFED:-}" == 1 ]] || bash "$HACK_DIR/install-kubefed.sh" >/dev/null
  [[ "${KUBEFED_TS_SKIP_HELM:-}" == 1 ]] || bash "$HACK_DIR/install-helm.sh" >/dev/null
}

if [[ -n "${KUBEFED_TS_BIN_DIR:-}" ]]; then
  missing=()
  for b in "${ALL[@]}"; do [[ -x "$KUBEFED_TS_BIN_DIR/$b" ]] || missing+=("$b"); done
  if ((${#missing[@]} == 0)); then
    log "using binaries from KUBEFED_TS_BIN_DIR=$KUBEFED_TS_BIN_DIR"
    extra_tools
    echo "$KUBEFED_TS_BIN_DIR"
    exit 0
  fi
  log "KUBEFED_TS_BIN_DIR=$KUBEFED_TS_BIN_DIR lacks: ${missing[*]}; building into $BIN instead"
fi

command -v go >/dev/null || { log "error: Go is required (https://go.dev/dl); none on PATH"; exit 1; }
mkdir -p "$BIN" "$OUT/src"
# Parallel test processes may call this at once: one builds, the others wait and then find it cached.
exec 9>"$OUT/.lock"
flock 9
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
total_start=$(now)

stamp_ok() { [[ -x "$BIN/$1" && "$(cat "$BIN/.$1.version" 2>/dev/null)" == "$2" ]]; }
stamp() { echo "$2" >"$BIN/.$1.version"; }

# --- Kubernetes: a wrapper module that replaces every staging module -----------
k8s_bins=(kube-apiserver kube-controller-manager kube-scheduler kubectl)
need_k8s=0
for b in "${k8s_bins[@]}"; do stamp_ok "$b" "$K8S_VERSION" || need_k8s=1; done
if ((need_k8s)); then
  step=$(now)
  log "building Kubernetes $K8S_VERSION (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl); a cold build takes about 5 minutes on 2 cores"
  src="$OUT/src/kubernetes"
  rm -rf "$src" && mkdir -p "$src" && cd "$src"
  go mod init kubefed-ts.local/k8s-binaries >/dev/null 2>&1
  go mod edit -go=1.26.0 -require="k8s.io/kubernetes@$K8S_VERSION"
  gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  [[ -f "$gomod" ]] || { log "error: could not download k8s.io/kubernetes@$K8S_VERSION"; exit 1; }
  staging_version="v0.${K8S_VERSION#v1.}"
  # Generated, not hard-coded: the set of staging modules changes between minors.
  grep -oE '^\s*k8s.io/[a-z0-9-]+ => ./staging/src/k8s.io/[a-z0-9-]+' "$gomod" | awk '{print $1}' | sort -u |
    while read -r m; do go mod edit -replace="$m=$m@$staging_version"; done
  commit=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"Hash": "\([0-9a-f]*\)".*/\1/p' | head -1)
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z -X $pkg.gitCommit=${commit:-unknown}"
  done
  cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  log "resolving modules..."
  go mod tidy >/dev/null 2>&1 || go mod download all >/dev/null
  log "modules resolved after $(($(now) - step))s; compiling"
  go build -trimpath -tags=selinux,notest,grpcnotrace -ldflags="$ldflags" -o "$BIN/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
  for b in "${k8s_bins[@]}"; do stamp "$b" "$K8S_VERSION"; done
  log "Kubernetes built in $(($(now) - step))s"
else
  log "Kubernetes $K8S_VERSION: cached"
fi

# --- etcd: its server module has replaces too, but a plain require resolves -----
if ! stamp_ok etcd "$ETCD_VERSION"; then
  step=$(now)
  log "building etcd $ETCD_VERSION"
  src="$OUT/src/etcd"
  rm -rf "$src" && mkdir -p "$src" && cd "$src"
  go mod init kubefed-ts.local/etcd >/dev/null 2>&1
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null 2>&1
  go build -trimpath -ldflags="-s -w" -o "$BIN/etcd" go.etcd.io/etcd/server/v3
  stamp etcd "$ETCD_VERSION"
  log "etcd built in $(($(now) - step))s"
else
  log "etcd $ETCD_VERSION: cached"
fi

# --- kwok: no replaces, so go install works directly -----------------------------
if ! stamp_ok kwok "$KWOK_VERSION" || ! stamp_ok kwokctl "$KWOK_VERSION"; then
  step=$(now)
  log "building kwok and kwokctl $KWOK_VERSION"
  GOBIN="$BIN" go install -trimpath -ldflags="-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" "sigs.k8s.io/kwok/cmd/kwokctl@$KWOK_VERSION"
  stamp kwok "$KWOK_VERSION"; stamp kwokctl "$KWOK_VERSION"
  log "kwok built in $(($(now) - step))s"
else
  log "kwok $KWOK_VERSION: cached"
fi

# --- kwok stages: the kwok controller does nothing without them (kwokctl passes the same set) -------
if [[ "$(cat "$BIN/.kwok-stages.version" 2>/dev/null)" != "$KWOK_VERSION" ]]; then
  cd "$OUT"
  dir=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
  stages="$dir/kustomize/stage"
  {
    for f in "$stages"/node/fast/node-initialize.yaml "$stages"/node/heartbeat/node-heartbeat.yaml \
      "$stages"/pod/fast/pod-ready.yaml "$stages"/pod/fast/pod-complete.yaml "$stages"/pod/fast/pod-delete.yaml; do
      echo "---"
      cat "$f"
    done
  } >"$BIN/kwok-stages.yaml"
  echo "$KWOK_VERSION" >"$BIN/.kwok-stages.version"
  log "kwok stages written to $BIN/kwok-stages.yaml"
fi

# Released first: the DNS tools have their own lock, and waiting callers need only the Kubernetes binaries.
exec 9>&-
extra_tools
log "all binaries ready in $BIN ($(($(now) - total_start))s)"
echo "$BIN"
