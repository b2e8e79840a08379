{{/*
"true" when the control plane is namespaced (global.scope=Namespaced), "" otherwise; fails on any other
scope so that a typo cannot silently install a cluster-wide control plane.
*/}}
{{- define "kubefed-ts.namespaced" -}}
{{- $scope := (.Values.global | default dict).scope | default "Cluster" -}}
{{- if eq $scope "Namespaced" -}}true
{{- else if ne $scope "Cluster" -}}
{{- fail (printf "global.scope must be Cluster, Namespaced or empty, not %q" $scope) -}}
{{- end -}}
{{- end -}}

{{/* The scope written into the KubeFedConfig. */}}
{{- define "kubefed-ts.scope" -}}
{{- if include "kubefed-ts.namespaced" . }}Namespaced{{ else }}Cluster{{ end -}}
{{- end -}}

{{/* Suffix of cluster-scoped object names: "-<release namespace>" for a namespaced control plane. */}}
{{- define "kubefed-ts.suffix" -}}
{{- if include "kubefed-ts.namespaced" . }}-{{ .Release.Namespace }}{{ end -}}
{{- end -}}

{{/* Labels on every object the chart renders. */}}
{{- define "kubefed-ts.labels" -}}
app.kubernetes.io/name: kubefed-ts
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
Value or default: the value unless it is null/missing or an empty string (as KubeFed values files leave
keys: `clusterAvailableDelay:`, `tag: ""`), printed as text (pipe it to quote or int). Unlike sprig's
`default`, false and 0 are values (`replicaCount: 0`, `enabled: false`). Called with (list value default).
*/}}
{{- define "kubefed-ts.or" -}}
{{- $v := index . 0 -}}
{{- if or (kindIs "invalid" $v) (and (kindIs "string" $v) (eq (trim $v) "")) -}}
{{ index . 1 }}
{{- else -}}
{{ $v }}
{{- end -}}
{{- end -}}

{{/* "true" unless controllermanager.enabled is false (KubeFed: the condition of its controllermanager subchart). */}}
{{- define "kubefed-ts.enabled" -}}
{{- if eq (include "kubefed-ts.or" (list (.Values.controllermanager | default dict).enabled true)) "true" -}}true{{- end -}}
{{- end -}}

{{/* "true" when {repository, image} name KubeFed's published image, which cannot run kubefed-ts. */}}
{{- define "kubefed-ts.isKubeFedImage" -}}
{{- $c := . | default dict -}}
{{- if and (eq (toString $c.repository) "quay.io/kubernetes-multicluster") (eq (toString $c.image) "kubefed") -}}true{{- end -}}
{{- end -}}

{{/*
An image reference from {repository, image, tag, digest}; empty or null parts take the chart's defaults
and the tag defaults to appVersion. KubeFed's own image (quay.io/kubernetes-multicluster/kubefed, whatever
tag, as a values file written for KubeFed's chart names it) is replaced by kubefed-ts's at appVersion,
and NOTES.txt says so.
*/}}
{{- define "kubefed-ts.image" -}}
{{- $c := index . 0 | default dict -}}
{{- $root := index . 1 -}}
{{- if include "kubefed-ts.isKubeFedImage" $c -}}
ghcr.io/kubefed-ts/kubefed-ts:{{ $root.Chart.AppVersion }}
{{- else -}}
{{- $base := printf "%s/%s" (toString ($c.repository | default "ghcr.io/kubefed-ts")) (toString ($c.image | default "kubefed-ts")) -}}
{{- if $c.digest -}}
{{ $base }}@{{ $c.digest }}
{{- else -}}
{{ $base }}:{{ toString ($c.tag | default $root.Chart.AppVersion) }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Pod security context: non-root (the image's uid 65532), RuntimeDefault seccomp. */}}
{{- define "kubefed-ts.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
# Group of mounted Secret files (mode 0440): the serving key is readable by the process and no one else.
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Container security context: read-only root filesystem, no privilege escalation, no capability. */}}
{{- define "kubefed-ts.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop:
    - ALL
{{- end -}}

{{/* Names of the webhook configurations. */}}
{{- define "kubefed-ts.validatingWebhookName" -}}
validations.core.kubefed.io{{ include "kubefed-ts.suffix" . }}
{{- end -}}
{{- define "kubefed-ts.mutatingWebhookName" -}}
mutation.core.kubefed.io{{ include "kubefed-ts.suffix" . }}
{{- end -}}

{{/*
Enabled or Disabled from (list value default): a string or a boolean (true is Enabled, false Disabled);
null or "" is the default; anything else fails the render.
*/}}
{{- define "kubefed-ts.mode" -}}
{{- $v := index . 0 -}}
{{- if or (kindIs "invalid" $v) (and (kindIs "string" $v) (eq (trim $v) "")) -}}{{ index . 1 }}
{{- else if kindIs "bool" $v -}}{{ ternary "Enabled" "Disabled" $v }}
{{- else if or (eq (toString $v) "Enabled") (eq (toString $v) "Disabled") -}}{{ $v }}
{{- else -}}{{ fail (printf "expected Enabled or Disabled, not %q" (toString $v)) }}
{{- end -}}
{{- end -}}

{{/*
Fields every webhook shares; called with (list $ <path> <caBundle>), or (list $ <path> <caBundle> "optional")
for a webhook that refuses nothing and must not hold a create up: failurePolicy Ignore, a 2 s timeout
(CLAIM_WEBHOOK_TIMEOUT_SECONDS in src/webhook/configurations.ts).
*/}}
{{- define "kubefed-ts.webhookCommon" -}}
{{- $ := index . 0 -}}
{{- $path := index . 1 -}}
{{- $caBundle := index . 2 -}}
{{- $optional := gt (len .) 3 -}}
admissionReviewVersions: [v1]
sideEffects: None
{{- if $optional }}
failurePolicy: Ignore
timeoutSeconds: 2
{{- else }}
failurePolicy: Fail
{{- $timeout := include "kubefed-ts.or" (list ((($.Values.controllermanager | default dict).webhook | default dict).timeoutSeconds) 10) | int }}
{{- if or (lt $timeout 1) (gt $timeout 30) }}
{{- fail (printf "controllermanager.webhook.timeoutSeconds must be between 1 and 30, not %d" $timeout) }}
{{- end }}
timeoutSeconds: {{ $timeout }}
{{- end }}
clientConfig:
  {{- if include "kubefed-ts.federationApiServer" $ }}
  # The federation API server runs in this cluster, but resolves Services in its own (empty) API: it calls
  # the webhook by this cluster's DNS name, as karmada-apiserver calls karmada-webhook.
  url: https://kubefed-admission-webhook.{{ $.Release.Namespace }}.svc:443{{ $path }}
  {{- else }}
  service:
    namespace: {{ $.Release.Namespace }}
    name: kubefed-admission-webhook
    path: {{ $path }}
    port: 443
  {{- end }}
  {{- if $caBundle }}
  caBundle: {{ $caBundle }}
  {{- end }}
{{- if include "kubefed-ts.namespaced" $ }}
# Only objects in the release namespace, selected by the label the API server puts on every namespace
# (KubeFed selected on a `name` label that had to be set by hand).
namespaceSelector:
  matchLabels:
    kubernetes.io/metadata.name: {{ $.Release.Namespace }}
{{- end }}
{{- end -}}

{{/*
"true" when federationApiServer.enabled: the chart deploys a federation API server and the controller
manager serves it (docs/federation-apiserver.md). It needs the controller manager.
*/}}
{{- define "kubefed-ts.federationApiServer" -}}
{{- if (.Values.federationApiServer | default dict).enabled -}}
{{- if not (include "kubefed-ts.enabled" .) -}}
{{- fail "federationApiServer.enabled needs controllermanager.enabled: the federation API server is served by the controller manager" -}}
{{- end -}}
true
{{- end -}}
{{- end -}}

{{/* The federation API server's address inside the installing cluster (its Service, port 443). */}}
{{- define "kubefed-ts.federationApiServerUrl" -}}
https://kubefed-federation-apiserver.{{ .Release.Namespace }}.svc:443
{{- end -}}

{{/* An image reference from {repository, tag}: the federation API server's components. */}}
{{- define "kubefed-ts.componentImage" -}}
{{- $i := . | default dict -}}
{{ required "an image repository" $i.repository }}:{{ required "an image tag" $i.tag | toString }}
{{- end -}}

{{/*
A kubeconfig for the federation API server; called with (list <server> <base64 CA> <token>). Its one
context is named federation-apiserver.
*/}}
{{- define "kubefed-ts.federationKubeconfig" -}}
apiVersion: v1
kind: Config
clusters:
  - name: federation-apiserver
    cluster:
      server: {{ index . 0 }}
      certificate-authority-data: {{ index . 1 }}
users:
  - name: federation-apiserver
    user:
      token: {{ index . 2 }}
contexts:
  - name: federation-apiserver
    context:
      cluster: federation-apiserver
      user: federation-apiserver
current-context: federation-apiserver
{{- end -}}

{{/*
The federation API server's kube-controller-manager --controllers from a list; fails on an empty list and
on `*` or any workload controller (canonical name or pre-v1.28 alias), which would run the templates and
overwrite their status (src/install/federation-apiserver.ts has the same list).
*/}}
{{- define "kubefed-ts.federationControllers" -}}
{{- $list := . | default list -}}
{{- if not $list -}}
{{- fail "federationApiServer.controllerManager.controllers must name the controllers to run" -}}
{{- end -}}
{{- $workload := list "*" "deployment-controller" "deployment" "replicaset-controller" "replicaset" "statefulset-controller" "statefulset" "daemonset-controller" "daemonset" "job-controller" "job" "cronjob-controller" "cronjob" "replicationcontroller-controller" "replicationcontroller" "horizontal-pod-autoscaler-controller" "horizontalpodautoscaling" "disruption-controller" "disruption" -}}
{{- range $list -}}
{{- if has (toString .) $workload -}}
{{- fail (printf "federationApiServer.controllerManager.controllers must not run %q: templates would run on the federation API server and their status be overwritten" (toString .)) -}}
{{- end -}}
{{- end -}}
{{ join "," $list }}
{{- end -}}

{{/* "true" when the aggregated kubefed-admin/edit/view ClusterRoles are installed (aggregatedClusterRoles.enabled). */}}
{{- define "kubefed-ts.aggregatedClusterRoles.enabled" -}}
{{- if and (include "kubefed-ts.enabled" .) (eq (include "kubefed-ts.or" (list (.Values.aggregatedClusterRoles | default dict).enabled true)) "true") -}}true{{- end -}}
{{- end -}}

{{/*
"true" when the controller manager serves native resources (controllermanager.controller.nativeResources.enabled,
default true; never in a Namespaced control plane), else "".
*/}}
{{- define "kubefed-ts.nativeResources" -}}
{{- $c := ((.Values.controllermanager | default dict).controller | default dict) -}}
{{- $n := $c.nativeResources | default dict -}}
{{- if and (ne (toString $n.enabled) "false") (not (include "kubefed-ts.namespaced" .)) -}}true{{- end -}}
{{- end -}}

{{/* The template kinds the controller may read and write by default (values.yaml nativeResources.templateRules). */}}
{{- define "kubefed-ts.defaultTemplateRules" -}}
- apiGroups: [""]
  resources: [configmaps, services, serviceaccounts, persistentvolumeclaims, namespaces]
- apiGroups: [apps]
  resources: [deployments, statefulsets, replicasets, daemonsets]
- apiGroups: [batch]
  resources: [jobs, cronjobs]
- apiGroups: [networking.k8s.io]
  resources: [ingresses]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
{{- end -}}
