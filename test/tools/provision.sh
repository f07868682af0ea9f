#!/usr/bin/env bash
# Runs before `npm test`: the suite drives real system tools, so make sure they are here.
#   promtool, prometheus  Debian's prometheus (rule and config checks, rule unit tests, a live server)
#   chromium              Debian's chromium (the status page's browser test; playwright-core downloads none)
#   amtool, prometheus-alertmanager   Debian's prometheus-alertmanager (the example Alertmanager configuration,
#                         its inhibitions checked by amtool and run in a real Alertmanager)
#   iptables              Debian's iptables (the real-network incidents cut one node off from its peers:
#                         test/helpers/cut-off.ts)
# When one is missing and this is a Debian/Ubuntu machine where we may install (root, or sudo without a
# password), it runs `apt-get update` once and installs them. Otherwise it stops at once with the one
# command to run, rather than letting tens of tests fail with stack traces.
# PROMTOOL, PROMETHEUS, AMTOOL, ALERTMANAGER, CHROMIUM_PATH and IPTABLES point the suite (and this check) at other binaries.
set -euo pipefail

have() { # have <binary or path>
  case "$1" in
    */*) [ -x "$1" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

missing_packages() {
  local pkgs=()
  if ! have "${PROMTOOL:-promtool}" || ! have "${PROMETHEUS:-prometheus}"; then pkgs+=(prometheus); fi
  if ! have "${CHROMIUM_PATH:-/usr/bin/chromium}"; then pkgs+=(chromium); fi
  if ! have "${AMTOOL:-amtool}" || ! have "${ALERTMANAGER:-prometheus-alertmanager}"; then pkgs+=(prometheus-alertmanager); fi
  if ! have "${IPTABLES:-iptables}"; then pkgs+=(iptables); fi
  echo "${pkgs[*]:-}"
}

missing="$(missing_packages)"
[ -z "$missing" ] && exit 0

echo "npm test: the suite needs Debian's ${missing// /, }, which this machine lacks." >&2

sudo=()
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); fi
if ! command -v apt-get >/dev/null 2>&1 || { [ "$(id -u)" != 0 ] && [ ${#sudo[@]} -eq 0 ]; }; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "Install them with this command, then run npm test again:" >&2
    echo "  sudo sh -c 'apt-get update && apt-get install -y $missing'" >&2
  else
    echo "This is not a Debian/Ubuntu machine: install the equivalents of Debian's $missing, or point" >&2
    echo "PROMTOOL, PROMETHEUS, AMTOOL, ALERTMANAGER, CHROMIUM_PATH and IPTABLES at them, then run npm test again." >&2
  fi
  exit 1
fi

echo "Installing them with apt-get (once)..." >&2
log="$(mktemp)"
# shellcheck disable=SC2086 # $missing is a list of package names
if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
       && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "apt-get failed (above). Install them yourself, then run npm test again:" >&2
  echo "  sudo sh -c 'apt-get update && apt-get install -y $missing'" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"

still="$(missing_packages)"
if [ -n "$still" ]; then
  echo "Installed $missing, but the suite still cannot find the binaries of $still." >&2
  case " $still " in *" chromium "*) echo "On Ubuntu chromium is a snap: set CHROMIUM_PATH to a chromium or google-chrome binary." >&2 ;; esac
  exit 1
fi
echo "Installed $missing." >&2
