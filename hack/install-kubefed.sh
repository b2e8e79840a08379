#!/usr/bin/env bash
# Builds KubeFed's own controller-manager from its Go module, for the side-by-side benchmark (bench/, see
# docs/benchmarks.md) and its smoke test. See docs/k8s-binaries.md ("KubeFed v0.10.0").
#
# Output: $KUBEFED_TS_CACHE/kubefed-<version>/bin/ with
#   controller-manager                 KubeFed's controller manager (sigs.k8s.io/kubefed/cmd/controller-manager)
#   crds.yaml                          its core CRDs (charts/kubefed/charts/controllermanager/crds/crds.yaml)
#   federated-crds.yaml                the ten Federated* CRDs (charts/kubefed/crds/crds.yaml)
#   federatedtypeconfig.yaml           the chart's FTCs for those types (charts/kubefed/templates/, plain YAML)
#   chart/                             KubeFed's Helm chart (charts/kubefed, with its controllermanager subchart)
# and prints that directory on its last stdout line.
# Idempotent: a stamped binary is never rebuilt.
#
# Not a plain `go install sigs.k8s.io/kubefed/cmd/controller-manager@v0.10.0`: its go.sum pins
# github.com/modern-go/reflect2 v1.0.1, which crashes on Go >= 1.18 (and 1.0.2 on Go >= 1.24's maps) when
# json-iterator walks a map. A wrapper module requires KubeFed plus the reflect2 Kubernetes 1.36 pins and
# json-iterator v1.1.12; everything else is KubeFed's 2021 dependency set.
#
# Environment:
#   KUBEFED_TS_CACHE   cache root (default: ${XDG_CACHE_HOME:-~/.cache}/kubefed-ts)
#   KUBEFED_VERSION    override the pinned version.
set -euo pipefail

KUBEFED_VERSION="${KUBEFED_VERSION:-v0.10.0}"
REFLECT2_VERSION=v1.0.3-0.20250322232337-35a7c28c31ee
JSONITER_VERSION=v1.1.12
CACHE_ROOT="${KUBEFED_TS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubefed-ts}"
OUT="$CACHE_ROOT/kubefed-$KUBEFED_VERSION"
BIN="$OUT/bin"

log() { printf '[install-kubefed] %s\n' "$*" >&2; }
now() { date +%s; }
total_start=$(now)

command -v go >/dev/null || { log "error: Go is required (https://go.dev/dl); none on PATH"; exit 1; }
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
mkdir -p "$BIN"
# Parallel test processes may call this at once: one builds, the others wait and then find it cached.
exec 9>"$OUT/.lock"
flock 9

src="$OUT/src"
moddir() { go mod download -json "sigs.k8s.io/kubefed@$KUBEFED_VERSION" | sed -n 's/.*"Dir": "\(.*\)",/\1/p'; }

if [[ -x "$BIN/controller-manager" && "$(cat "$BIN/.controller-manager.version" 2>/dev/null)" == "$KUBEFED_VERSION" ]]; then
  log "kubefed controller-manager $KUBEFED_VERSION: cached"
else
  step=$(now)
  log "building kubefed controller-manager $KUBEFED_VERSION; a cold build takes about 2 minutes on 2 cores"
  rm -rf "$src" && mkdir -p "$src" && cd "$src"
  go mod init kubefed-ts.local/kubefed >/dev/null 2>&1
  go mod edit -go=1.26.0 -require="sigs.k8s.io/kubefed@$KUBEFED_VERSION" \
    -require="github.com/modern-go/reflect2@$REFLECT2_VERSION" -require="github.com/json-iterator/go@$JSONITER_VERSION"
  cat >tools.go <<'GO'
//go:build tools

package tools

import _ "sigs.k8s.io/kubefed/cmd/controller-manager"
GO
  # The version is stamped as upstream's Makefile does, so the startup banner says what it is.
  ldflags="-s -w -X sigs.k8s.io/kubefed/pkg/version.version=$KUBEFED_VERSION"
  ldflags+=" -X sigs.k8s.io/kubefed/pkg/version.gitTreeState=clean"
  go build -trimpath -ldflags="$ldflags" -o "$BIN/controller-manager" sigs.k8s.io/kubefed/cmd/controller-manager
  echo "$KUBEFED_VERSION" >"$BIN/.controller-manager.version"
  log "kubefed controller-manager $KUBEFED_VERSION built in $(($(now) - step))s"
fi

if [[ "$(cat "$BIN/.manifests.version" 2>/dev/null)" != "$KUBEFED_VERSION" || ! -f "$BIN/chart/Chart.yaml" ]]; then
  mkdir -p "$src" && cd "$src"
  [[ -f go.mod ]] || go mod init kubefed-ts.local/kubefed >/dev/null 2>&1
  dir=$(moddir)
  chart="$dir/charts/kubefed"
  [[ -f "$chart/charts/controllermanager/crds/crds.yaml" ]] || { log "error: no KubeFed chart in $dir"; exit 1; }
  # The module cache is read-only; the copies should not be.
  install -m 0644 "$chart/charts/controllermanager/crds/crds.yaml" "$BIN/crds.yaml"
  install -m 0644 "$chart/crds/crds.yaml" "$BIN/federated-crds.yaml"
  install -m 0644 "$chart/templates/federatedtypeconfig.yaml" "$BIN/federatedtypeconfig.yaml"
  # The whole chart, for `helm install` of KubeFed itself (test/integration/migration.test.ts).
  rm -rf "$BIN/chart" && cp -R "$chart" "$BIN/chart" && chmod -R u+w "$BIN/chart"
  echo "$KUBEFED_VERSION" >"$BIN/.manifests.version"
  log "KubeFed $KUBEFED_VERSION CRDs and FTCs copied to $BIN"
fi
exec 9>&-
log "kubefed ready in $BIN ($(($(now) - total_start))s)"
echo "$BIN"
