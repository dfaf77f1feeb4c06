{{/*
The RBAC rules: exactly the API calls the code makes, no more. HelmChartTest holds the same list,
runs the code against a mock API server and checks every request it makes against these rules.

fabric8 (7.5) reads an object before it sends a JSON patch to it by name (patch(context, json) on
withName(...)), so every patched resource needs get, and a status patch needs get on the resource
itself plus patch on its status subresource.
*/}}

{{/* Worker, in the groups' namespaces: activities/kubernetes/* and SecretCredentialsProvider. */}}
{{- define "failover.rules.worker" -}}
# GroupStore: the snapshot (get) and the removal of the planned-failover annotation (JSON patch).
- apiGroups: ["shipstream.io"]
  resources: ["mysqlfailovergroups"]
  verbs: ["get", "patch"]
# GroupStore.patchStatusFields: plannedFailover, workflow, activeSite, lastFailover... (JSON patch).
- apiGroups: ["shipstream.io"]
  resources: ["mysqlfailovergroups/status"]
  verbs: ["patch"]
# GroupEvents: a new Event is created, a repeated one has its count bumped (JSON patch).
- apiGroups: [""]
  resources: ["events"]
  verbs: ["get", "create", "patch"]
# SiteRoles: the pods of a site's podSelector are listed and relabelled (JSON patch); StoreRoles
# likewise the session-store pods (shipstream.io/group + shipstream.io/store-site).
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "patch"]
# SiteRoles: Service mysql-<group>-primary is created when missing, never changed; StoreRoles:
# Service dragonfly-<group>-active likewise.
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "create"]
# SecretCredentialsProvider: the group's spec.credentialsSecretRef; SidecarCredentials: its
# spec.sidecar.tokenSecretRef, the credential the sidecar activities present.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
# DnsRecords: DNSEndpoint <group>-primary is created, then repointed (JSON patch).
- apiGroups: ["externaldns.k8s.io"]
  resources: ["dnsendpoints"]
  verbs: ["get", "create", "patch"]
{{- end }}

{{/* Worker, cluster-wide: NodeTaints lists the nodes of each site and patches their taints. */}}
{{- define "failover.rules.workerNodes" -}}
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "patch"]
{{- end }}

{{/*
Watcher, in the groups' namespaces: WatcherApp's informer, RequestRejections and, when
watcher.topologyMonitor.enabled, the topology monitor (SecretCredentialsProvider, KubeEffects).
*/}}
{{- define "failover.rules.watcher" -}}
# The informer lists and watches; RequestRejections reads the group (editStatus) and removes the
# refused annotation (JSON patch); DrainWatch sets the planned-failover annotation (JSON patch);
# GroupFinalizer reads the group and adds and removes its finalizer (JSON patch of
# metadata.finalizers: patch on the group itself, no finalizers subresource, since nothing sets
# blockOwnerDeletion).
- apiGroups: ["shipstream.io"]
  resources: ["mysqlfailovergroups"]
  verbs: ["get", "list", "watch", "patch"]
# RequestRejections: status.plannedFailover of a refused request (editStatus sends a JSON patch);
# the monitor: status.sites and status.activeSite (JSON patch).
- apiGroups: ["shipstream.io"]
  resources: ["mysqlfailovergroups/status"]
  verbs: ["patch"]
# RequestRejections: the PlannedFailoverRejected Event; the monitor's Events; GroupFinalizer's.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
# GroupFinalizer (Tombstones): the tombstone ConfigMap <group>-failover-tombstone is written when a
# group is deleted (created, or patched over an earlier one) and removed when a group of that name
# is created again; /active-site reads it for a group the cache does not have.
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "create", "patch", "delete"]
# GroupFinalizer (RoutingOrphans): the group's Services are listed by label, read and released from
# the group's ownerReference (JSON patch), so that deleting the group leaves them in place.
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "patch"]
# GroupFinalizer (RoutingOrphans): the group's DNSEndpoint likewise.
- apiGroups: ["externaldns.k8s.io"]
  resources: ["dnsendpoints"]
  verbs: ["get", "list", "patch"]
# SidecarCredentials: the group's spec.sidecar.tokenSecretRef, which /active-site checks the
# sidecars against; SecretCredentialsProvider: spec.credentialsSecretRef, the MySQL login the
# monitor polls with.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
{{- if .Values.watcher.topologyMonitor.enabled }}
# RoutingRepair (the kube module's SiteRoles): the pods of each site's podSelector are listed and
# their role label kept right (JSON patch); DrainWatch lists the active site's pods too.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "patch"]
# RoutingRepair: Services mysql-<group>-primary and mysql-<group>-replicas are created when missing
# (read with the finalizer's grant above).
- apiGroups: [""]
  resources: ["services"]
  verbs: ["create"]
# RoutingRepair (DnsRecords): DNSEndpoint <group>-primary is created, or pointed at the active site
# (read and patched with the finalizer's grant above).
- apiGroups: ["externaldns.k8s.io"]
  resources: ["dnsendpoints"]
  verbs: ["create"]
{{- end }}
{{- end }}

{{/*
Watcher, cluster-wide: GroupFinalizer removes a deleted group's taint from the nodes (NodeTaints),
with or without the topology monitor, whose RoutingRepair keeps the taints right and whose
DrainWatch reads the nodes of the active site's pods (spec.unschedulable).
*/}}
{{- define "failover.rules.watcherNodes" -}}
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "patch"]
{{- end }}

{{/*
Watcher, in the release namespace: leader election on one Lease (fabric8 LeaseLock reads it,
creates it once and renews it with a merge patch). A create cannot be limited to a name.
*/}}
{{- define "failover.rules.watcherLease" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  resourceNames: [{{ include "failover.leaseName" . | quote }}]
  verbs: ["get", "patch"]
{{- end }}
