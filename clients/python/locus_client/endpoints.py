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


def catchup_endpoint(environ=None):
    """The hub's catch-up socket (protocol 13.2): $LOCUS_CATCHUP_ENDPOINT, else
    ipc://<runtime dir>/catchup.sock, the default of `hub.catchup`. (Not in `default_endpoints`,
    whose three keys are those the exec plugin passes to its programs, section 11.1.)"""
    env = os.environ if environ is None else environ
    return env.get("LOCUS_CATCHUP_ENDPOINT") or f"ipc://{runtime_dir(env)}/catchup.sock"
