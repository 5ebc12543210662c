# Makes this shell use a Node.js that indiestack supports (Node 22.19 or newer; 24 recommended).
#
# Source it from the repository root, it changes the shell it runs in (like `nvm use`):
#
#   . scripts/use-node.sh        # the Node on PATH if it is supported, else Node 24 from the npm registry
#   . scripts/use-node.sh 24     # Node 24 from the npm registry, whatever is on PATH (CI uses 24 and 22)
#
# A fetched Node is the npm registry's node-<os>-<arch> package (the official binary with its C headers),
# unpacked once into .node/<major>/ of this clone and put first on PATH; npm_config_nodedir is pointed at
# its headers so native modules (better-sqlite3) are built for it, offline. Needs an npm of any version.
# Plain POSIX sh: it must run in whatever shell sources it, and never exits that shell.

INDIESTACK_NODE_MINIMUM='22.19.0' # keep in step with "engines" in package.json (a test checks)
INDIESTACK_NODE_DEFAULT='24'

indiestack_use_node() {
  _want="$1"
  if [ -z "$_want" ] && command -v node >/dev/null 2>&1 &&
    node -e 'var v=process.versions.node.split(".").map(Number), m=process.argv[1].split(".").map(Number); process.exit(v[0]>m[0]||(v[0]===m[0]&&(v[1]>m[1]||(v[1]===m[1]&&v[2]>=m[2])))?0:1)' "$INDIESTACK_NODE_MINIMUM"; then
    echo "use-node: using $(command -v node) v$(node -p process.versions.node)" >&2
    return 0
  fi
  if [ -z "$_want" ]; then
    echo "use-node: $(node -p '"v" + process.versions.node' 2>/dev/null || echo 'no node') on PATH; indiestack needs $INDIESTACK_NODE_MINIMUM or newer: fetching Node $INDIESTACK_NODE_DEFAULT" >&2
    _want="$INDIESTACK_NODE_DEFAULT"
  fi
  case "$(uname -s)" in Linux) _os=linux ;; Darwin) _os=darwin ;; *) _os='' ;; esac
  case "$(uname -m)" in x86_64 | amd64) _arch=x64 ;; aarch64 | arm64) _arch=arm64 ;; *) _arch='' ;; esac
  if [ -z "$_os" ] || [ -z "$_arch" ]; then
    echo "use-node: no Node.js package for $(uname -s) $(uname -m) on the npm registry; install Node.js $INDIESTACK_NODE_DEFAULT from https://nodejs.org/" >&2
    return 1
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "use-node: npm is needed to fetch Node.js; install Node.js $INDIESTACK_NODE_DEFAULT from https://nodejs.org/" >&2
    return 1
  fi
  _root="$(pwd)/.node/$_want"
  _home="$_root/node_modules/node-$_os-$_arch"
  if [ ! -x "$_home/bin/node" ]; then
    echo "use-node: installing node-$_os-$_arch@$_want from the npm registry into .node/$_want" >&2
    mkdir -p "$_root" &&
      npm install --prefix "$_root" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-$_os-$_arch@$_want" >&2 &&
      [ -x "$_home/bin/node" ] || {
      echo "use-node: could not install node-$_os-$_arch@$_want; install Node.js $_want from https://nodejs.org/" >&2
      return 1
    }
  fi
  PATH="$_home/bin:$PATH"
  export PATH
  if [ -f "$_home/include/node/node_api.h" ]; then
    npm_config_nodedir="$_home"
    export npm_config_nodedir
  fi
  hash -r 2>/dev/null
  echo "use-node: using $_home/bin/node v$(node -p process.versions.node)" >&2
}

if [ ! -f package.json ] || [ ! -f scripts/use-node.sh ]; then
  echo "use-node: run it from the root of the indiestack clone: . scripts/use-node.sh" >&2
  false
else
  indiestack_use_node "${1:-}"
fi
_status=$?
unset -f indiestack_use_node
unset _want _os _arch _root _home INDIESTACK_NODE_MINIMUM INDIESTACK_NODE_DEFAULT
case "$_status" in 0) unset _status; true ;; *) unset _status; false ;; esac
