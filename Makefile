# The README's two commands are `make local-up` and `make test`; both install what they need first.
NPM_STAMP := node_modules/.package-lock.json

.PHONY: local-up local-down test check unit integration binaries test-tools crds format lint typecheck clean bench bench-scale

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund

local-up: $(NPM_STAMP) ## Start host + members on this machine, install kubefed-ts, join the members
	npm run --silent local-up

local-down: $(NPM_STAMP) ## Stop the local federation
	npm run --silent local-down

test: $(NPM_STAMP) ## Typecheck, lint, CRD freshness, then unit and integration tests on real apiservers
	npm test

check: $(NPM_STAMP)
	npm run check

unit: $(NPM_STAMP)
	npm run test:unit

integration: $(NPM_STAMP)
	npm run binaries >/dev/null && npm run test:integration

bench: $(NPM_STAMP) ## kubefed-ts vs KubeFed v0.10.0 on local apiservers (docs/benchmarks.md); flags: make bench BENCH_ARGS="--objects 200"
	npm run --silent bench -- $(BENCH_ARGS)

bench-scale: $(NPM_STAMP) ## The benchmark's scale mode: 3 and 10 members, 1k/5k/10k objects, restart and failover, plot (docs/benchmarks.md#scale-mode)
	npm run --silent bench -- --scale --restart --failover --plot docs/bench-scale.png $(BENCH_ARGS)

binaries: ## Build kube-apiserver & co., etcd and kwok into ~/.cache/kubefed-ts/<version>/bin (no-op when cached)
	bash hack/install-k8s-binaries.sh

test-tools: ## Also build what only some tests and the benchmark use (ExternalDNS + BIND9, KubeFed, Helm); they build it on demand otherwise
	bash hack/install-k8s-binaries.sh --all

crds: $(NPM_STAMP) ## Regenerate config/crds from the TypeScript API
	npm run crds

format: $(NPM_STAMP)
	npm run format

lint: $(NPM_STAMP)
	npm run lint

typecheck: $(NPM_STAMP)
	npm run typecheck

clean:
	rm -rf node_modules .local-federation
