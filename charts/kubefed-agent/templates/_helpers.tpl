{{- define "kubefed-agent.labels" -}}
app.kubernetes.io/name: kubefed-agent
app.kubernetes.io/part-of: kubefed-ts
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "kubefed-agent.clusterName" -}}
{{- $c := .Values.clusterName | default "" | toString -}}
{{- if not $c -}}{{- fail "clusterName is required: the name of this cluster on the hub (kubefedctl join <name> --mode pull)" -}}{{- end -}}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $c) -}}{{- fail (printf "clusterName %q is not a valid namespace name (RFC 1123 label)" $c) -}}{{- end -}}
{{- $c -}}
{{- end -}}

{{- define "kubefed-agent.image" -}}
{{- $i := .Values.image | default dict -}}
{{- printf "%s/%s:%s" ($i.repository | default "ghcr.io/kubefed-ts") ($i.name | default "kubefed-ts") (toString ($i.tag | default .Chart.AppVersion)) -}}
{{- end -}}
