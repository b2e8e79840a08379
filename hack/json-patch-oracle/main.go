// json-patch-oracle applies JSON patches with evanphx/json-patch v4.12.0, the library KubeFed v0.10 applies
// overrides with, so that test/integration/json-patch-oracle.test.ts can compare kubefed-ts's port with it.
// Input (stdin): a JSON array of {"doc": <document>, "patch": <RFC 6902 patch>}. Output (stdout): an array of
// {"result": <document>} or {"error": "<message>"} or {"panic": "<message>"}, one per input, in order.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	jsonpatch "github.com/evanphx/json-patch"
)

type testCase struct {
	Doc   json.RawMessage `json:"doc"`
	Patch json.RawMessage `json:"patch"`
}

func apply(c testCase) (out map[string]interface{}) {
	out = map[string]interface{}{}
	defer func() {
		if p := recover(); p != nil {
			out = map[string]interface{}{"panic": fmt.Sprint(p)}
		}
	}()
	patch, err := jsonpatch.DecodePatch(c.Patch)
	if err != nil {
		out["error"] = "decode: " + err.Error()
		return out
	}
	result, err := patch.Apply(c.Doc)
	if err != nil {
		out["error"] = err.Error()
		return out
	}
	out["result"] = json.RawMessage(result)
	return out
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "json-patch-oracle:", err)
		os.Exit(2)
	}
	results := make([]map[string]interface{}, 0, len(cases))
	for _, c := range cases {
		results = append(results, apply(c))
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, "json-patch-oracle:", err)
		os.Exit(2)
	}
}
