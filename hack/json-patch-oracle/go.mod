module kubefed-ts.local/json-patch-oracle

go 1.26

require (
	github.com/evanphx/json-patch v4.12.0+incompatible
	github.com/pkg/errors v0.9.1
)
