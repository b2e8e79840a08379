#!/usr/bin/env bash
# Builds the real Kubernetes binaries that kubefed-ts runs its tests and local
# federation against, from published Go modules (no Docker, no downloads from
# release buckets). See docs/k8s-binaries.md for why it is done this way and
# what it costs.
#
# Usage: install-k8s-binaries.sh [--all]
# Output: $KUBEFED_TS_CACHE/<k8s-version>/bin/{kube-apiserver,kube-controller-manager,
#         kube-scheduler,kubectl,etcd,kwok,kwokctl}: what `make local-up` and most tests need, nothing more.
# The tools only some tests and the benchmark use (ExternalDNS + BIND9, KubeFed, Helm) are built on demand
# by src/testing/binaries.ts when a test first needs them; --all builds them here too (hack/install-dns-tools.sh,
# install-kubefed.sh, install-helm.sh; only their logs, on stderr, are shown, so the last stdout line stays
# the directory above).
# Progress: one line per step with its elapsed time on stderr, and every 30 s during a long compile a line
# with the packages compiled so far.
# Idempotent: a binary whose version stamp matches is never rebuilt.
#
# Environment:
#   KUBEFED_TS_BIN_DIR  a directory that already holds the binaries; when it has
#                       all of them nothing is built and it is printed instead.
#   KUBEFED_TS_CACHE    cache root (default: ${XDG_CACHE_HOME:-~/.cache}/kubefed-ts)
#   K8S_VERSION, ETCD_VERSION, KWOK_VERSION   override the pinned versions.
#   KUBEFED_TS_PROGRESS_SECONDS  seconds between progress lines of a long step (default 30).
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.14}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
CACHE_ROOT="${KUBEFED_TS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubefed-ts}"
OUT="$CACHE_ROOT/$K8S_VERSION"
BIN="$OUT/bin"
ALL=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwokctl)

all=0
case "${1:-}" in
  --all) all=1 ;;
  "") ;;
  *) echo "usage: $0 [--all]" >&2; exit 2 ;;
esac

log() { printf '[install-k8s-binaries] %s\n' "$*" >&2; }
now() { date +%s; }
# 95 -> 1m35s
dur() { if (($1 >= 60)); then printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); else printf '%ds' "$1"; fi; }
HACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROGRESS_SECONDS="${KUBEFED_TS_PROGRESS_SECONDS:-30}"
# The test-only tools, with --all: each script has its own cache, stamp and lock, and tests call them on demand.
extra_tools() {
  ((all)) || return 0
  bash "$HACK_DIR/install-dns-tools.sh" >/dev/null
  bash "$HACK_DIR/install-kubefed.sh" >/dev/null
  bash "$HACK_DIR/install-helm.sh" >/dev/null
}

# Runs a Go command with its output in a log file, so a user sees progress lines instead of Go's noise: every
# PROGRESS_SECONDS the step's elapsed time and, for builds run with -v, how many packages are compiled so far
# (out of `total` when known). On failure the end of the log is shown.
#   run_step <what> <total or ""> <log file> <command...>
run_step() {
  local what=$1 total=$2 logfile=$3
  shift 3
  local start pid ticks=0 n
  start=$(now)
  "$@" >"$logfile" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    ((++ticks % PROGRESS_SECONDS == 0)) || continue
    kill -0 "$pid" 2>/dev/null || break
    # `go build -v` prints the import path of each package it compiles, one a line; errors have spaces.
    n=$(grep -cE '^[A-Za-z0-9._~/-]+$' "$logfile" || true)
    if ((n > 0)); then
      log "  $what: $n${total:+ of $total} packages compiled, $(dur $(($(now) - start)))"
    else
      log "  $what: $(dur $(($(now) - start)))"
    fi
  done
  if ! wait "$pid"; then
    log "error: $what failed after $(dur $(($(now) - start))); the end of $logfile:"
    grep -vE '^[A-Za-z0-9._~/-]+$' "$logfile" | tail -n 40 >&2 || true
    exit 1
  fi
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
if ! flock -n 9; then
  log "waiting for another build of these binaries to finish (lock $OUT/.lock)"
  flock 9
fi
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
total_start=$(now)

stamp_ok() { [[ -x "$BIN/$1" && "$(cat "$BIN/.$1.version" 2>/dev/null)" == "$2" ]]; }
stamp() { echo "$2" >"$BIN/.$1.version"; }

k8s_bins=(kube-apiserver kube-controller-manager kube-scheduler kubectl)
need_k8s=0 need_etcd=0 need_kwok=0
for b in "${k8s_bins[@]}"; do stamp_ok "$b" "$K8S_VERSION" || need_k8s=1; done
stamp_ok etcd "$ETCD_VERSION" || need_etcd=1
{ stamp_ok kwok "$KWOK_VERSION" && stamp_ok kwokctl "$KWOK_VERSION"; } || need_kwok=1
todo=()
((need_k8s)) && todo+=("Kubernetes $K8S_VERSION")
((need_etcd)) && todo+=("etcd $ETCD_VERSION")
((need_kwok)) && todo+=("kwok $KWOK_VERSION")
steps=${#todo[@]} step_no=0
if ((steps > 0)); then
  log "building ${todo[*]} from Go modules into $BIN (once: about 8 minutes on 2 idle cores with empty Go caches)"
fi

# --- Kubernetes: a wrapper module that replaces every staging module -----------
if ((need_k8s)); then
  step=$(now)
  log "[$((++step_no))/$steps] Kubernetes $K8S_VERSION (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl): resolving modules"
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
  k8s_pkgs=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
  tags=selinux,notest,grpcnotrace
  run_step "Kubernetes: resolving modules" "" "$src/resolve.log" \
    bash -c 'go mod tidy || go mod download all'
  # The number of packages to compile, so the progress lines can say "n of total".
  total=$(go list -deps -tags="$tags" "${k8s_pkgs[@]}" 2>/dev/null | wc -l) || total=""
  log "  modules resolved in $(dur $(($(now) - step))); compiling${total:+ $total packages} (about 5 minutes on 2 cores when nothing is cached)"
  run_step "Kubernetes" "${total:-}" "$src/build.log" \
    go build -v -trimpath -tags="$tags" -ldflags="$ldflags" -o "$BIN/" "${k8s_pkgs[@]}"
  for b in "${k8s_bins[@]}"; do stamp "$b" "$K8S_VERSION"; done
  log "  Kubernetes built in $(dur $(($(now) - step)))"
else
  log "Kubernetes $K8S_VERSION: cached"
fi

# --- etcd: its server module has replaces too, but a plain require resolves -----
if ((need_etcd)); then
  step=$(now)
  log "[$((++step_no))/$steps] etcd $ETCD_VERSION"
  src="$OUT/src/etcd"
  rm -rf "$src" && mkdir -p "$src" && cd "$src"
  go mod init kubefed-ts.local/etcd >/dev/null 2>&1
  run_step "etcd: resolving modules" "" "$src/resolve.log" go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
  total=$(go list -deps go.etcd.io/etcd/server/v3 2>/dev/null | wc -l) || total=""
  run_step "etcd" "${total:-}" "$src/build.log" \
    go build -v -trimpath -ldflags="-s -w" -o "$BIN/etcd" go.etcd.io/etcd/server/v3
  stamp etcd "$ETCD_VERSION"
  log "  etcd built in $(dur $(($(now) - step)))"
else
  log "etcd $ETCD_VERSION: cached"
fi

# --- kwok: no replaces, so go install works directly -----------------------------
if ((need_kwok)); then
  step=$(now)
  log "[$((++step_no))/$steps] kwok and kwokctl $KWOK_VERSION"
  mkdir -p "$OUT/src"
  run_step "kwok" "" "$OUT/src/kwok-build.log" env GOBIN="$BIN" go install -v -trimpath -ldflags="-s -w" \
    "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" "sigs.k8s.io/kwok/cmd/kwokctl@$KWOK_VERSION"
  stamp kwok "$KWOK_VERSION"; stamp kwokctl "$KWOK_VERSION"
  log "  kwok built in $(dur $(($(now) - step)))"
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

# Released first: the other tools have their own locks, and waiting callers need only the Kubernetes binaries.
exec 9>&-
if ((steps > 0)); then log "Kubernetes, etcd and kwok ready in $BIN ($(dur $(($(now) - total_start))))"; fi
extra_tools
echo "$BIN"
