#!/usr/bin/env bash
# Builds Helm from its Go module (no release-bucket download) for the chart tests and for `helm install`
# of charts/kubefed-ts. See docs/k8s-binaries.md ("Helm").
#
# Output (stdout): the bin directory holding `helm`, i.e. $KUBEFED_TS_CACHE/helm-<version>/bin.
# Idempotent: a stamped binary is never rebuilt; parallel callers serialise on a lock and find it cached.
#
# Environment:
#   KUBEFED_TS_CACHE   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/kubefed-ts)
#   HELM_VERSION       override the pinned version (a helm.sh/helm/v3 tag).
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.22.0}"
CACHE_ROOT="${KUBEFED_TS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubefed-ts}"
OUT="$CACHE_ROOT/helm-$HELM_VERSION"
BIN="$OUT/bin"

log() { printf '[install-helm] %s\n' "$*" >&2; }
now() { date +%s; }
total_start=$(now)

mkdir -p "$BIN"
exec 9>"$OUT/.lock"
flock 9
if [[ -x "$BIN/helm" && "$(cat "$BIN/.helm.version" 2>/dev/null)" == "$HELM_VERSION" ]]; then
  log "helm $HELM_VERSION: cached"
else
  command -v go >/dev/null || { log "error: Go is required (https://go.dev/dl); none on PATH"; exit 1; }
  export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
  log "building helm $HELM_VERSION; a cold build takes about 2 minutes on 2 cores"
  # Stamped as upstream's Makefile does: `helm version` says what it is, and the default Kubernetes version
  # that `helm template` checks a chart's kubeVersion against comes from the client-go Helm is built with
  # (unstamped it is v1.20, and charts/kubefed-ts wants >= 1.27).
  gomod=$(cd "$OUT" && go mod download -json "helm.sh/helm/v3@$HELM_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  [[ -f "$gomod" ]] || { log "error: could not download helm.sh/helm/v3@$HELM_VERSION"; exit 1; }
  client_go=$(sed -n 's/^[[:space:]]*k8s.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$gomod" | head -1)
  [[ -n "$client_go" ]] || { log "error: no k8s.io/client-go requirement in $gomod"; exit 1; }
  ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
  for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
    ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$client_go"
  done
  # Into a temporary name first: a half-written binary must never look cached.
  GOBIN="$OUT/.build" go install -trimpath -ldflags="$ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  mv -f "$OUT/.build/helm" "$BIN/helm"
  rmdir "$OUT/.build" 2>/dev/null || true
  echo "$HELM_VERSION" >"$BIN/.helm.version"
  log "helm $HELM_VERSION built in $(($(now) - total_start))s"
fi
exec 9>&-
"$BIN/helm" version --short >/dev/null || { log "error: $BIN/helm does not run"; exit 1; }
echo "$BIN"
