# syntax=docker/dockerfile:1
# The kubefed-ts image: controller manager, admission webhook, kubefedctl and the pull-mode member agent
# kubefed-agent, run from their TypeScript sources by Node.js 24 (type stripping; no build step). One image for
# every Deployment of the Helm charts (charts/kubefed-ts, charts/kubefed-agent) and of `kubefedctl join --mode pull`:
#   node /app/src/cmd/controller-manager.ts    node /app/src/cmd/webhook.ts    node /app/src/cli/kubefedctl.ts
#   node /app/src/cmd/agent.ts
# and, under KubeFed's names, /hyperfed/controller-manager, /hyperfed/webhook, /hyperfed/kubefedctl (on PATH),
# plus /hyperfed/agent.
#
#   docker build -t ghcr.io/kubefed-ts/kubefed-ts:0.1.0 .
#
# The application tree is assembled by hack/image/build-app.sh, which the tests also run outside a
# container (test/integration/image-build.test.ts). See docs/install.md ("The image").
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY hack/image/build-app.sh hack/image/build-app.sh
COPY config/ config/
COPY src/ src/
RUN --mount=type=cache,target=/root/.npm bash hack/image/build-app.sh /app

FROM ${NODE_IMAGE}
LABEL org.opencontainers.image.title="kubefed-ts" \
      org.opencontainers.image.description="Multi-cluster Kubernetes federation control plane in TypeScript, wire-compatible with KubeFed v0.10" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="0.1.0"
# Owned by root and not writable by the runtime user: the pods run with a read-only root filesystem and
# nothing is written at run time. HOME points at /tmp (an emptyDir in the chart) so that nothing looks
# for a writable home elsewhere.
COPY --from=build /app /app
# KubeFed's paths too: its chart and tooling exec /hyperfed/controller-manager (and webhook, kubefedctl),
# and its e2e framework execs `controller-manager` from PATH.
RUN ln -s /app/hyperfed /hyperfed
ENV NODE_ENV=production \
    HOME=/tmp \
    PATH=/hyperfed:$PATH
WORKDIR /app
# The numeric uid/gid the chart's securityContext also sets (runAsNonRoot needs a number to verify).
USER 65532:65532
CMD ["node", "/app/src/cmd/controller-manager.ts"]
