{{/* Names, labels and the pieces both Deployments share. */}}

{{- define "failover.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name; component names add "-worker" or "-watcher", so it stays under 52. */}}
{{- define "failover.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "failover.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object; call with (dict "ctx" $ "component" "worker"). */}}
{{- define "failover.labels" -}}
helm.sh/chart: {{ include "failover.chart" .ctx }}
{{ include "failover.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: mysql-failover
{{- end }}

{{/* The labels a Deployment, Service, PDB or NetworkPolicy selects its pods by. */}}
{{- define "failover.selectorLabels" -}}
app.kubernetes.io/name: {{ include "failover.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{- define "failover.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "failover.workerServiceAccount" -}}
{{- default (printf "%s-worker" (include "failover.fullname" .)) .Values.serviceAccount.workerName }}
{{- end }}

{{- define "failover.watcherServiceAccount" -}}
{{- default (printf "%s-watcher" (include "failover.fullname" .)) .Values.serviceAccount.watcherName }}
{{- end }}

{{- define "failover.sidecarTokenSecret" -}}
{{- default (printf "%s-sidecar-token" (include "failover.fullname" .)) .Values.sidecarToken.secretName }}
{{- end }}

{{/*
The sidecars' shared token, as both processes read it (runtime's SharedToken): the watcher checks
it on /active-site, the worker presents it to the sidecars' POST /tick and GET /status. A mounted
file rather than an environment variable, so the value never shows in the pod spec.
*/}}
{{- define "failover.sidecarTokenEnv" -}}
- name: AUTH_TOKEN_FILE
  value: /etc/failover/sidecar-token/token
{{- end }}

{{- define "failover.sidecarTokenMount" -}}
- name: sidecar-token
  mountPath: /etc/failover/sidecar-token
  readOnly: true
{{- end }}

{{- define "failover.sidecarTokenVolume" -}}
- name: sidecar-token
  secret:
    secretName: {{ include "failover.sidecarTokenSecret" . }}
    defaultMode: 0440
    items:
      - key: {{ .Values.sidecarToken.key }}
        path: token
{{- end }}

{{- define "failover.leaseName" -}}
{{- default (printf "%s-watcher" (include "failover.fullname" .)) .Values.watcher.leaderElection.leaseName }}
{{- end }}

{{/* Whether a client certificate is mounted (mTLS). */}}
{{- define "failover.temporalMutualTls" -}}
{{- if and .Values.temporal.tls.secretName .Values.temporal.tls.certKey }}true{{ end }}
{{- end }}

{{/*
The Temporal connection, the same for both processes (WorkerConfig documents each variable).
Refuses at render time what the worker would refuse at startup, so a bad release fails on install
rather than in a crash loop.
*/}}
{{- define "failover.temporalEnv" -}}
{{- $t := .Values.temporal }}
{{- if and $t.apiKey.secretName (include "failover.temporalMutualTls" .) }}
{{- fail "temporal.apiKey.secretName and a client certificate (temporal.tls.secretName with certKey) are both set: authenticate with one of them" }}
{{- end }}
{{- if and $t.tls.secretName (not $t.tls.certKey) (not $t.tls.caKey) }}
{{- fail "temporal.tls.secretName is set but neither temporal.tls.certKey nor temporal.tls.caKey names a key in it" }}
{{- end }}
- name: TEMPORAL_ADDRESS
  value: {{ required "temporal.address is required" $t.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ required "temporal.namespace is required" $t.namespace | quote }}
- name: TASK_QUEUE
  value: {{ required "temporal.taskQueue is required" $t.taskQueue | quote }}
{{- if or $t.tls.enabled $t.apiKey.secretName (and $t.tls.secretName (or $t.tls.certKey $t.tls.caKey)) }}
- name: TEMPORAL_TLS
  value: "true"
{{- end }}
{{- if include "failover.temporalMutualTls" . }}
- name: TEMPORAL_TLS_CERT
  value: /etc/failover/temporal-tls/tls.crt
- name: TEMPORAL_TLS_KEY
  value: /etc/failover/temporal-tls/tls.key
{{- end }}
{{- if and $t.tls.secretName $t.tls.caKey }}
- name: TEMPORAL_TLS_CA
  value: /etc/failover/temporal-tls/ca.crt
{{- end }}
{{- if $t.apiKey.secretName }}
- name: TEMPORAL_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ $t.apiKey.secretName }}
      key: {{ $t.apiKey.key }}
{{- end }}
- name: LOG_FORMAT
  value: {{ .Values.logFormat | quote }}
{{- end }}

{{/* The TLS Secret as a volume: fixed file names, whatever the keys are called. */}}
{{- define "failover.temporalTlsVolume" -}}
{{- $tls := .Values.temporal.tls }}
{{- if $tls.secretName }}
- name: temporal-tls
  secret:
    secretName: {{ $tls.secretName }}
    defaultMode: 0440
    items:
      {{- if $tls.certKey }}
      - key: {{ $tls.certKey }}
        path: tls.crt
      - key: {{ $tls.keyKey }}
        path: tls.key
      {{- end }}
      {{- if $tls.caKey }}
      - key: {{ $tls.caKey }}
        path: ca.crt
      {{- end }}
{{- end }}
{{- end }}

{{- define "failover.temporalTlsMount" -}}
{{- if .Values.temporal.tls.secretName }}
- name: temporal-tls
  mountPath: /etc/failover/temporal-tls
  readOnly: true
{{- end }}
{{- end }}

{{/*
Probes on the process's own HTTP port. The startup probe gives the JVM a minute to come up, so
the liveness probe can be strict from then on.
*/}}
{{- define "failover.probes" -}}
startupProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 2
  failureThreshold: 30
livenessProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: http
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- end }}

{{/* Whole seconds of a Go-style duration (30s, 2m, 1m30s, 500ms rounds up), as WorkerConfig reads it. */}}
{{- define "failover.seconds" -}}
{{- $d := toString . }}
{{- if not (regexMatch "^([0-9]+(ms|s|m|h))+$" $d) }}
{{- fail (printf "%q is not a duration the chart can read: use whole numbers with units, e.g. 30s, 2m, 1m30s" $d) }}
{{- end }}
{{- $total := 0 }}
{{- range $part := regexFindAll "[0-9]+(ms|s|m|h)" $d -1 }}
{{- if hasSuffix "ms" $part }}
{{- $total = add $total (div (add (trimSuffix "ms" $part | int) 999) 1000) }}
{{- else if hasSuffix "s" $part }}
{{- $total = add $total (trimSuffix "s" $part | int) }}
{{- else if hasSuffix "m" $part }}
{{- $total = add $total (mul (trimSuffix "m" $part | int) 60) }}
{{- else }}
{{- $total = add $total (mul (trimSuffix "h" $part | int) 3600) }}
{{- end }}
{{- end }}
{{- $total }}
{{- end }}

{{/* The Secret with the watcher's control-plane certificate (tls.crt, tls.key) and the CA (ca.crt). */}}
{{- define "failover.controlPlaneTlsSecret" -}}
{{- default (printf "%s-watcher-tls" (include "failover.fullname" .)) .Values.controlPlaneTls.secretName }}
{{- end }}

{{/*
The control plane's TLS settings (runtime's ControlPlaneTls): the watcher serves /active-site over
HTTPS with its certificate, and both processes verify the sidecars' https URLs with the CA.
*/}}
{{- define "failover.controlPlaneTlsEnv" -}}
{{- if .ctx.Values.controlPlaneTls.enabled }}
{{- if .serve }}
- name: TLS_CERT_FILE
  value: /etc/failover/control-plane-tls/tls.crt
- name: TLS_KEY_FILE
  value: /etc/failover/control-plane-tls/tls.key
- name: HTTPS_PORT
  value: {{ .ctx.Values.controlPlaneTls.httpsPort | quote }}
{{- end }}
- name: TLS_CA_FILE
  value: /etc/failover/control-plane-tls/ca.crt
{{- end }}
{{- end }}

{{- define "failover.controlPlaneTlsMount" -}}
{{- if .Values.controlPlaneTls.enabled }}
- name: control-plane-tls
  mountPath: /etc/failover/control-plane-tls
  readOnly: true
{{- end }}
{{- end }}

{{/* The worker needs the CA only: it mounts no key. */}}
{{- define "failover.controlPlaneTlsVolume" -}}
{{- if .ctx.Values.controlPlaneTls.enabled }}
- name: control-plane-tls
  secret:
    secretName: {{ include "failover.controlPlaneTlsSecret" .ctx }}
    defaultMode: 0440
    {{- if not .serve }}
    items:
      - key: ca.crt
        path: ca.crt
    {{- end }}
{{- end }}
{{- end }}
