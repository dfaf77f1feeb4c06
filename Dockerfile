# syntax=docker/dockerfile:1
#
# One image for the three processes; the first argument picks which:
#   docker run IMAGE worker  [--flag=value ...]
#   docker run IMAGE watcher [--flag=value ...]
#   docker run IMAGE sidecar [--flag=value ...]
# Each process runs on its own module's runtime classpath (written at build time as a java
# argument file), so no process sees another's logback configuration or dependencies.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# The Maven repository is a cache mount: rebuilds download nothing that did not change.
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -ntp -pl worker,watcher,sidecar -am -DskipTests \
      package dependency:copy-dependencies -DincludeScope=runtime
# All jars in one directory (a jar two processes share is stored once), and per process an
# argument file: its own jar first, then its dependencies.
RUN set -eu; mkdir -p /out/lib; \
    for p in worker watcher sidecar; do \
      jar=$(ls "$p"/target/failover-"$p"-*.jar); \
      cp "$jar" /out/lib/; \
      cp="/app/lib/$(basename "$jar")"; \
      for d in "$p"/target/dependency/*.jar; do \
        [ -e "/out/lib/$(basename "$d")" ] || cp "$d" /out/lib/; \
        cp="$cp:/app/lib/$(basename "$d")"; \
      done; \
      printf -- '-cp %s\n' "$cp" > "/out/$p.args"; \
    done

FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 failover \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin failover
COPY --from=build /out/lib/ /app/lib/
COPY --from=build /out/*.args /app/
COPY --chmod=0755 <<'EOF' /app/bin/failover
#!/bin/sh
# Starts worker, watcher or sidecar. JAVA_OPTS, when set, replaces the default JVM options.
set -eu
case "${1:-}" in
  worker) main=io.shipstream.failover.worker.WorkerApp ;;
  watcher) main=io.shipstream.failover.watcher.WatcherApp ;;
  sidecar) main=io.shipstream.failover.sidecar.SidecarMain ;;
  *) echo "usage: worker|watcher|sidecar [--flag=value ...] (worker --help, watcher --help list their settings)" >&2; exit 64 ;;
esac
process=$1
shift
# JAVA_OPTS is split on spaces on purpose: it holds several options.
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:--XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError} "@/app/$process.args" "$main" "$@"
EOF
# Numeric, so that Kubernetes can check runAsNonRoot without reading /etc/passwd.
USER 10001:10001
ENTRYPOINT ["/app/bin/failover"]
