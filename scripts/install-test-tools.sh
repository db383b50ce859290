#!/usr/bin/env bash
# Installs the Debian packages some tests use when they are missing: Podman with runc (a real container
# engine for the image workload tests), busybox-static (offline images) and docker-registry (a local
# OCI registry). Never fatal: without them those tests say so and the rest still run.
set -u

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
[ -x /usr/sbin/runc ] || missing+=(runc)
[ -x /bin/busybox ] || missing+=(busybox-static)
command -v docker-registry >/dev/null 2>&1 || missing+=(docker-registry)
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-tools: ${missing[*]} missing (install them with apt-get as root); their tests will say so"
  exit 0
fi
echo "install-test-tools: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1 ||
  echo "install-test-tools: could not install ${missing[*]}; their tests will say so"
exit 0
