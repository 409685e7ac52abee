"""Where a Locus hub's sockets are (docs/protocol.md 2.1)."""

import os


def runtime_dir(environ=None):
    """$LOCUS_RUNTIME_DIR, else $XDG_RUNTIME_DIR/locus, else /tmp/locus-<uid>: the rule the
    daemon uses for its ipc sockets (empty values count as unset)."""
    env = os.environ if environ is None else environ
    if env.get("LOCUS_RUNTIME_DIR"):
        return env["LOCUS_RUNTIME_DIR"].rstrip("/") or "/"
    if env.get("XDG_RUNTIME_DIR"):
        return env["XDG_RUNTIME_DIR"].rstrip("/") + "/locus"
    return f"/tmp/locus-{os.getuid()}"


def default_endpoints(environ=None):
    """{"ingest", "publish", "control"}: the LOCUS_*_ENDPOINT variables the exec plugin sets,
    else the runtime directory's ipc sockets."""
    env = os.environ if environ is None else environ
    base = runtime_dir(env)
    return {
        name: env.get(f"LOCUS_{name.upper()}_ENDPOINT") or f"ipc://{base}/{name}.sock"
        for name in ("ingest", "publish", "control")
    }
