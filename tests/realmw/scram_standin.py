"""The server's side of auth.login_ex's SCRAM for the launcher's login stand-in (standins.py), on TrueNAS 26:
TrueNAS checks the proof in its PAM module (pam_truenas, native: not here), so this stand-in does what it does,
RFC 5802 SCRAM-SHA-512 with the key's material derived as 26's api_key plugin derives it (PBKDF2-HMAC-SHA512 of
the key's secret with a 16-byte salt, 500,000 rounds), in 26's own message forms: the client-first names
``user:KEY_ID``, TrueNAS joins its 32-byte nonce to the client's 32 bytes. The request and the answers pass
through 26's own auth.login_ex models (AuthSCRAM, AuthRespScram)."""
from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

ROUNDS = 500_000  # what 26's api_key plugin stores (utils/crypto.generate_api_key_auth_data)
SALT = b"tengigStandin.16"  # 16 bytes, as 26's salts
NONCE_BYTES = 32


@functools.lru_cache(maxsize=4)
def _material(secret: str) -> tuple[bytes, bytes]:
    """(StoredKey, ServerKey) of a key's secret part."""
    salted = hashlib.pbkdf2_hmac("sha512", secret.encode(), SALT, ROUNDS)
    client_key = hmac.digest(salted, b"Client Key", "sha512")
    return hashlib.sha512(client_key).digest(), hmac.digest(salted, b"Server Key", "sha512")


def _attrs(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split(",") if "=" in part)


def _refused() -> tuple[dict, None]:
    return {"response_type": "AUTH_ERR"}, None


def scram_step(app, data: dict, username: str, api_key: str) -> tuple[dict, str | None]:
    """One SCRAM message of ``app``'s session: (the answer, the user logged in by it or None)."""
    key_id, _, secret = api_key.partition("-")
    if data["scram_type"] == "CLIENT_FIRST_MESSAGE":
        header, _, bare = data["rfc_str"].partition(",,")
        attrs = _attrs(bare)
        if header != "n" or attrs.get("n") != f"{username}:{key_id}":
            return _refused()
        try:
            client_nonce = base64.b64decode(attrs.get("r", ""), validate=True)
        except ValueError:
            return _refused()
        if len(client_nonce) != NONCE_BYTES:
            return _refused()
        nonce = base64.b64encode(client_nonce + secrets.token_bytes(NONCE_BYTES)).decode()
        server_first = f"r={nonce},s={base64.b64encode(SALT).decode()},i={ROUNDS}"
        app._tengig_scram = (bare, server_first, nonce)
        return {"response_type": "SCRAM_RESPONSE", "scram_type": "SERVER_FIRST_RESPONSE", "rfc_str": server_first,
                "user_info": None}, None
    state = getattr(app, "_tengig_scram", None)
    app._tengig_scram = None
    if state is None:
        return _refused()
    bare, server_first, nonce = state
    without_proof, _, proof_part = data["rfc_str"].rpartition(",p=")
    attrs = _attrs(without_proof)
    if attrs.get("c") != "biws" or attrs.get("r") != nonce:
        return _refused()
    stored_key, server_key = _material(secret)
    auth_message = f"{bare},{server_first},{without_proof}".encode()
    try:
        proof = base64.b64decode(proof_part, validate=True)
    except ValueError:
        return _refused()
    signature = hmac.digest(stored_key, auth_message, "sha512")
    client_key = bytes(a ^ b for a, b in zip(proof, signature))
    if len(proof) != len(signature) or not hmac.compare_digest(hashlib.sha512(client_key).digest(), stored_key):
        return _refused()
    verifier = base64.b64encode(hmac.digest(server_key, auth_message, "sha512")).decode()
    return {"response_type": "SCRAM_RESPONSE", "scram_type": "SERVER_FINAL_RESPONSE", "rfc_str": f"v={verifier}",
            "user_info": None}, username
