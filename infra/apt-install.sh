# Sourced by the install-*-tools.sh scripts: `apt_install WHAT PACKAGE...` installs the Debian packages
# given (the caller lists only missing ones), as root or with passwordless sudo; otherwise it says what
# to install and exits 1.
apt_install() {
  local what="$1"
  shift
  [ $# -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if sudo -n true 2>/dev/null; then sudo=(sudo -n); else
      echo "setup: ${what} need(s) $* (Debian packages); install them, e.g. sudo apt-get install $*" >&2
      exit 1
    fi
  fi
  echo "setup: apt-get install $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  # A fresh machine may have no package lists yet: read them once and try again.
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
    { "${sudo[@]}" apt-get update -qq >/dev/null && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
}
