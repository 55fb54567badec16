"""The tokens of the verify fixtures (broken_api.py, graphql_api.py): base64url JSON with an HMAC,
so that a garbled or forged token is told from one the API issued. A fixture run as a script
imports this file as its neighbour."""
import base64
import hashlib
import hmac
import json


def sign(payload, key):
    body = base64.urlsafe_b64encode(json.dumps(payload, sort_keys=True).encode()).decode().rstrip("=")
    return body + "." + hmac.new(key, body.encode(), hashlib.sha256).hexdigest()[:16]


def unsign(token, key):
    """The payload of a token signed with `key`, or None for one that does not verify."""
    body, _, mac = token.partition(".")
    if not hmac.compare_digest(hmac.new(key, body.encode(), hashlib.sha256).hexdigest()[:16], mac):
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except ValueError:
        return None
