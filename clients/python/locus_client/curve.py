"""CURVE keys for a Locus hub's tcp endpoints (the certificates `locus keygen` writes).

    options = curve_options("keys/server.key", "keys/alice.key_secret")
    apply_curve(socket, options)        # before socket.connect(...)

The server's public key is its NAME.key certificate or the 40-character Z85 key; the client's
key is its NAME.key_secret, whose NAME.key is in the server's `authorized_keys`. Either falls
back to $LOCUS_SERVER_KEY / $LOCUS_CLIENT_KEY, as for `locus sub --server-key/--key`.
"""

import os
import struct

import zmq
import zmq.auth
from zmq.utils import z85


class CurveKeyError(ValueError):
    """A CURVE key cannot be used: missing, unreadable, not a certificate, only one of the two
    keys given, or a public certificate (NAME.key) where the secret one is needed."""


def uses_curve(endpoint):
    """True for the endpoints Locus encrypts: tcp only. Its ipc sockets are protected by file
    permissions and never speak CURVE, so keys from the environment (which a program run by
    the exec plugin inherits along with an ipc endpoint) must not be applied to them."""
    return endpoint.startswith("tcp://")


def _is_z85_key(text):
    if len(text) != 40:
        return False
    try:
        return len(z85.decode(text)) == 32
    except (ValueError, KeyError, TypeError, struct.error):  # a character outside Z85, or a group over 2**32
        return False


def _load(path, what, expected):
    """(public, secret or None) of a certificate, as Z85 text; `expected` names the file wanted."""
    if not os.path.exists(path):
        raise CurveKeyError(f"{what} {path} does not exist; expected {expected}")
    if not os.path.isfile(path):
        raise CurveKeyError(f"{what} {path} is not a file; expected {expected}")
    try:
        public, secret = zmq.auth.load_certificate(path)
    except OSError as e:
        raise CurveKeyError(f"{what} {path} cannot be read: {e.strerror or e}") from None
    except (ValueError, IndexError):  # no public-key line, or a key line without "="
        raise CurveKeyError(f"{what} {path} is not a CURVE certificate; expected {expected}") from None
    public = public.decode("ascii", "replace")
    secret = secret.decode("ascii", "replace") if secret is not None else None
    if not _is_z85_key(public):
        raise CurveKeyError(f"{what} {path} has a public-key that is not 40 characters of Z85")
    if secret is not None and not _is_z85_key(secret):
        raise CurveKeyError(f"{what} {path} has a secret-key that is not 40 characters of Z85")
    return public, secret


def curve_options(server_key=None, key=None, environ=None):
    """The three pyzmq socket options for a CURVE client, {"curve_serverkey",
    "curve_publickey", "curve_secretkey"} (Z85 bytes), or None when neither key is given nor
    in the environment. Raises CurveKeyError when only one is, or one cannot be used."""
    env = os.environ if environ is None else environ
    server_key = server_key or env.get("LOCUS_SERVER_KEY") or None
    key = key or env.get("LOCUS_CLIENT_KEY") or None
    if server_key is None and key is None:
        return None
    if server_key is None:
        raise CurveKeyError("a client key needs the server's public key too: server_key= (the server's NAME.key) "
                            "or $LOCUS_SERVER_KEY")
    if key is None:
        raise CurveKeyError("a server key needs this client's key too: key= (a NAME.key_secret from `locus keygen`, "
                            "whose NAME.key is in the server's authorized_keys) or $LOCUS_CLIENT_KEY")
    if not zmq.has("curve"):
        raise CurveKeyError(f"this libzmq ({zmq.zmq_version()}) is built without CURVE; install one with libsodium")
    server_key, key = os.fsdecode(server_key), os.fsdecode(key)
    if _is_z85_key(server_key):
        server_public = server_key
    else:
        server_public, _ = _load(server_key, "server key", "the server's NAME.key or its 40-character Z85 key")
    public, secret = _load(key, "client key", "this client's NAME.key_secret from `locus keygen`")
    if secret is None:
        raise CurveKeyError(f"client key {key} has no secret-key: give the NAME.key_secret file, not NAME.key")
    if zmq.curve_public(secret.encode()).decode() != public:
        raise CurveKeyError(f"client key {key} has a secret-key that does not belong to its public-key")
    return {"curve_serverkey": server_public.encode(), "curve_publickey": public.encode(),
            "curve_secretkey": secret.encode()}


def apply_curve(socket, options):
    """Sets `options` (from curve_options; None: nothing) on a socket not yet connected."""
    for name, value in (options or {}).items():
        setattr(socket, name, value)
