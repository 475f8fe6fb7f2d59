"""The server's side of a SCRAM login of an API key, done by TrueNAS's own SCRAM code (the py_scram package of
its official API client, what its truenas_pyscram module does natively), run in that client's virtualenv. The
key's stored material is derived as TrueNAS 26's api_key plugin derives it (utils/crypto.py,
generate_api_key_auth_data): a 16-character salt, PBKDF2-HMAC-SHA512 of the key's secret part.

    python scram_server.py USERNAME ID-SECRET ITERATIONS
    stdin: the client-first message, then the client-final message (a line each)
    stdout: a JSON line per answer: {"rfc_str": ..., "user": ..., "key_id": ...} or {"error": ...}
"""
import base64
import hashlib
import json
import sys

from truenas_api_client.py_scram import (
    ClientFinalMessage, ClientFirstMessage, CryptoDatum, ScramError, ServerFinalMessage, ServerFirstMessage,
    generate_scram_auth_data, verify_client_final_message,
)


def received_client_first(text: str) -> ClientFirstMessage:
    """The client-first message as the server's side holds it (py_scram's message is built by a client, with a
    nonce of its own: here the nonce received is put in its place, and it must print back as received)."""
    header, _, bare = text.partition(",,")
    attrs = dict(part.split("=", 1) for part in bare.split(","))
    user, _, key_id = attrs["n"].partition(":")
    message = ClientFirstMessage(username=user, api_key_id=int(key_id or 0))
    message._ClientFirstMessage__nonce = CryptoDatum(base64.b64decode(attrs["r"]))
    message._ClientFirstMessage__rfc_str = message._ClientFirstMessage__generate_rfc_string()
    if header != "n" or str(message) != text:
        raise SystemExit(f"not a client-first message TrueNAS reads back: {text!r} reads {str(message)!r}")
    return message


def main():
    username, api_key, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    key_id, secret = api_key.split("-", 1)
    salt = CryptoDatum(b"tengig.Salt.0123")
    salted = CryptoDatum(hashlib.pbkdf2_hmac("sha512", secret.encode(), salt, rounds))
    auth = generate_scram_auth_data(salted_password=salted, salt=salt, iterations=rounds)

    client_first = received_client_first(sys.stdin.readline().strip())
    if client_first.username != username or client_first.api_key_id != int(key_id):
        print(json.dumps({"error": f"unknown user/key {client_first.username}:{client_first.api_key_id}"}))
        return
    server_first = ServerFirstMessage(client_first=client_first, salt=CryptoDatum(auth.salt), iterations=rounds)
    print(json.dumps({"rfc_str": str(server_first), "user": client_first.username,
                      "key_id": client_first.api_key_id}), flush=True)

    client_final = ClientFinalMessage(rfc_string=sys.stdin.readline().strip())
    try:
        verify_client_final_message(client_first, server_first, client_final, CryptoDatum(auth.stored_key))
    except ScramError as exc:
        print(json.dumps({"error": f"proof refused: {exc}"}))
        return
    server_final = ServerFinalMessage(client_first=client_first, server_first=server_first, client_final=client_final,
                                      stored_key=CryptoDatum(auth.stored_key), server_key=CryptoDatum(auth.server_key))
    print(json.dumps({"rfc_str": str(server_final)}), flush=True)


if __name__ == "__main__":
    main()
