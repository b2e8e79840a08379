{{/*
"true" when the control plane is namespaced (global.scope=Namespaced), "" otherwise; fails on any other
scope so that a typo cannot silently install a cluster-wide control plane.
*/}}
{{- define "kubefed-ts.namespaced" -}}
{{- $scope := .Values.global.scope | default "Cluster" -}}
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

{{/* An image reference from {repository, image, tag, digest}; the tag defaults to appVersion. */}}
{{- define "kubefed-ts.image" -}}
{{- $c := index . 0 -}}
{{- $root := index . 1 -}}
{{- if $c.digest -}}
{{ $c.repository }}/{{ $c.image }}@{{ $c.digest }}
{{- else -}}
{{ $c.repository }}/{{ $c.image }}:{{ $c.tag | default $root.Chart.AppVersion }}
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

{{/* Enabled or Disabled from a string or a boolean value; anything else fails the render. */}}
{{- define "kubefed-ts.mode" -}}
{{- if kindIs "bool" . -}}{{ ternary "Enabled" "Disabled" . }}
{{- else if or (eq (toString .) "Enabled") (eq (toString .) "Disabled") -}}{{ . }}
{{- else -}}{{ fail (printf "expected Enabled or Disabled, not %q" (toString .)) }}
{{- end -}}
{{- end -}}

{{/* Fields every webhook shares; called with (list $ <path> <caBundle>). */}}
{{- define "kubefed-ts.webhookCommon" -}}
{{- $ := index . 0 -}}
{{- $path := index . 1 -}}
{{- $caBundle := index . 2 -}}
admissionReviewVersions: [v1]
sideEffects: None
failurePolicy: Fail
{{- $timeout := $.Values.controllermanager.webhook.timeoutSeconds | int }}
{{- if or (lt $timeout 1) (gt $timeout 30) }}
{{- fail (printf "controllermanager.webhook.timeoutSeconds must be between 1 and 30, not %d" $timeout) }}
{{- end }}
timeoutSeconds: {{ $timeout }}
clientConfig:
  service:
    namespace: {{ $.Release.Namespace }}
    name: kubefed-admission-webhook
    path: {{ $path }}
    port: 443
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
