{{/* Kept to a small subset of Go templates (if/else, range, include, toYaml, nindent, quote, default,
printf, eq, sha256sum) so test/registry/deploy-chart.test.ts can render it without helm. */}}

{{- define "toolyard-registry.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride -}}
{{- end -}}

{{- define "toolyard-registry.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "toolyard-registry.labels" -}}
{{ include "toolyard-registry.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "toolyard-registry.serviceAccountName" -}}
{{- default (include "toolyard-registry.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* Read-only access for kubernetes sources: Services and the listed custom resources. */}}
{{- define "toolyard-registry.rbacRules" -}}
- apiGroups: [""]
  resources: [services]
  verbs: [get, list, watch]
{{- range .Values.rbac.customResources }}
- apiGroups: [{{ .group | quote }}]
  resources: [{{ .plural }}]
  verbs: [get, list, watch]
{{- end }}
{{- end -}}
