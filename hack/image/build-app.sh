#!/usr/bin/env bash
# Assembles the application tree of the kubefed-ts image: the Dockerfile RUNs this in its build stage
# (`build-app.sh /app`), and test/integration/image-build.test.ts runs the very same script outside a
# container and starts the result, so what the image holds is tested without Docker.
#
# Usage: build-app.sh <outdir>      (<outdir> must not exist, or be an empty directory)
# Result: <outdir>/{package.json,package-lock.json,src/,config/,node_modules/,hyperfed/} with production
#         dependencies only. No Node.js: the image's base provides it (the `node` devDependency, which
#         installs a Node binary into node_modules for development, is left out with the other dev ones).
#
# Environment: npm's own (npm_config_cache etc.). npm's cache makes a second run take seconds.
set -euo pipefail

out="${1:-}"
[[ -n "$out" ]] || { echo "usage: $0 <outdir>" >&2; exit 2; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { printf '[build-app] %s\n' "$*" >&2; }
now() { date +%s; }
start=$(now)

if [[ -e "$out" && -n "$(ls -A "$out" 2>/dev/null)" ]]; then
  echo "$0: $out exists and is not empty" >&2
  exit 1
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)" # absolute: the script changes directory below

# Only what runs: sources (TypeScript, run by Node's type stripping, so there is no build step), the
# generated CRDs (kubefedctl enable/local-up read them), and the manifests npm needs.
cp -R "$ROOT/src" "$ROOT/config" "$ROOT/package.json" "$ROOT/package-lock.json" "$out/"

# KubeFed's image layout (images/kubefed/Dockerfile: /hyperfed/{controller-manager,kubefedctl,webhook}, the
# names its chart and its e2e framework exec; `agent` is kubefed-ts's pull-mode kubefed-agent): one launcher per name, each running our entry point on the
# image's node. They find the tree through their own resolved path, so /hyperfed can be a symlink to it.
mkdir "$out/hyperfed"
for entry in controller-manager:src/cmd/controller-manager.ts webhook:src/cmd/webhook.ts kubefedctl:src/cli/kubefedctl.ts agent:src/cmd/agent.ts; do
  name="${entry%%:*}"
  cat >"$out/hyperfed/$name" <<SH
#!/bin/sh
# KubeFed's /hyperfed/$name, as kubefed-ts: node <app>/${entry#*:}
app="\$(cd "\$(dirname "\$(readlink -f "\$0")")/.." && pwd)"
exec node "\$app/${entry#*:}" "\$@"
SH
  chmod 0755 "$out/hyperfed/$name"
done

cd "$out"
# --ignore-scripts: no production dependency has an install script (only the dev-only `node` package does),
# and an image build should run none. --prefer-offline: reuse npm's cache without revalidating it.
npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --no-update-notifier --loglevel=warn >&2

# The tree must not depend on anything of the developer's: no dev dependency may have slipped in.
for dev in typescript @biomejs/biome node; do
  if [[ -e "node_modules/$dev" ]]; then
    log "error: dev dependency $dev in node_modules"
    exit 1
  fi
done
log "app tree ready in $out ($(du -sh "$out" | cut -f1), $(($(now) - start))s)"
