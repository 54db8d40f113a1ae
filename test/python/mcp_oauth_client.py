"""The official MCP Python SDK (mcp==2.3.0) as an OAuth client of the assistant endpoint.

Run by test/e2e/oauth-python-sdk.test.ts with the interpreter tooling/python-tools.ts installs. It
holds no key: the SDK's OAuthClientProvider meets the 401, discovers the authorization server and,
naming itself by its Client ID Metadata Document (--client-metadata-url), asks for an authorization.
The browser is the Node test's: for each authorization this prints `AUTHORIZE <url>` and reads the
loopback callback's query string (code, state, iss; or error) as one line on stdin. The SDK checks
`state` and `iss` itself.

Connected, it prints `READY` (nothing is authorized yet: the SDK meets the 401 on its first request) and
then does what the test asks, one line on stdin at a time, answering each with one line:
- `TOOLS` -> `TOOLS <json>`: the tools offered;
- `CALL <tool> <json arguments>` -> `CALLED <json>` (the tool's result) or `FAILED <reason>`;
- `EXPIRE` -> `EXPIRED`: what 15 minutes do to the access token, without waiting them (the SDK refreshes
  a token once its expiry time has passed, and keeps that time in its context);
- `TOKENS` -> `TOKENS <json>`: short digests of the tokens it holds, their scope, the client id it
  authorized as, and how many authorizations it asked;
- `END`: it disconnects and exits.
When an authorization it asks for is refused, the SDK ends the session: it prints `ENDED <reason>` and
exits.
Any other failure ends the run with exit code 1 and the reason on stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import traceback
from urllib.parse import parse_qs

import anyio
from mcp.client import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken


class MemoryStorage(TokenStorage):
    """What a desktop assistant would keep in its keychain, kept in memory for one run."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


authorizations = 0


class AuthorizationRefused(RuntimeError):
    """The member (or the server) refused an authorization the SDK asked for."""


def refusal_in(err: BaseException | None) -> AuthorizationRefused | None:
    """The refusal that ended the session, wherever the SDK's task groups wrapped it."""
    if err is None or isinstance(err, AuthorizationRefused):
        return err
    if isinstance(err, BaseExceptionGroup):
        for inner in err.exceptions:
            if found := refusal_in(inner):
                return found
    return refusal_in(err.__cause__ or err.__context__)


async def redirect_handler(authorization_url: str) -> None:
    global authorizations
    authorizations += 1
    print(f"AUTHORIZE {authorization_url}", flush=True)


async def callback_handler() -> AuthorizationCodeResult:
    query = {k: v[0] for k, v in parse_qs(await read_line()).items()}
    if "error" in query:
        raise AuthorizationRefused(f"the authorization was refused: {query['error']}")
    return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


def digest(token: str | None) -> str | None:
    return hashlib.sha256(token.encode()).hexdigest()[:16] if token else None


async def read_line() -> str:
    # Read off the event loop's thread: the SDK's requests are waiting on this loop.
    return (await anyio.to_thread.run_sync(sys.stdin.readline)).strip()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url", help="the assistant endpoint, e.g. http://localhost:PORT/api/mcp")
    ap.add_argument("--redirect-uri", required=True, help="the Node test's loopback listener")
    ap.add_argument("--client-metadata-url", required=True, help="the client's metadata document (https)")
    ap.add_argument("--client-name", required=True)
    a = ap.parse_args()

    storage = MemoryStorage()
    oauth = OAuthClientProvider(
        server_url=a.url,
        client_metadata=OAuthClientMetadata(
            client_name=a.client_name,
            redirect_uris=[a.redirect_uri],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=a.client_metadata_url,
    )
    http = create_mcp_http_client(auth=oauth)
    try:
        async with http, Client(streamable_http_client(a.url, http_client=http), mode="2026-07-28") as client:
            print("READY", flush=True)
            while (line := await read_line()) != "END":
                command, _, rest = line.partition(" ")
                if command == "TOOLS":
                    tools = await client.list_tools()
                    print("TOOLS " + json.dumps([t.name for t in tools.tools]), flush=True)
                elif command == "CALL":
                    name, _, arguments = rest.partition(" ")
                    try:
                        # Bounded: a call the SDK cannot finish answers FAILED rather than hanging the test.
                        called = await client.call_tool(name, json.loads(arguments or "{}"), read_timeout_seconds=30)
                    except Exception as err:  # what the assistant's user would be shown
                        print(f"FAILED {type(err).__name__}: {err}", flush=True)
                        continue
                    dumped = called.model_dump(mode="json", by_alias=True, exclude_none=True)
                    print("CALLED " + json.dumps(dumped), flush=True)
                elif command == "EXPIRE":
                    oauth.context.token_expiry_time = time.time() - 1
                    print("EXPIRED", flush=True)
                elif command == "TOKENS":
                    tokens = storage.tokens
                    held = {
                        "access": digest(tokens.access_token if tokens else None),
                        "refresh": digest(tokens.refresh_token if tokens else None),
                        "scope": tokens.scope if tokens else None,
                        "client_id": storage.client_info.client_id if storage.client_info else None,
                        "authorizations": authorizations,
                    }
                    print("TOKENS " + json.dumps(held), flush=True)
                else:
                    raise RuntimeError(f"unknown command: {line!r}")
    except BaseException as err:
        # A refused authorization ends the SDK's session (its task group stops): the client's user is
        # told, as this line tells the test.
        refused = refusal_in(err)
        if refused is None:
            raise
        print(f"ENDED {refused}", flush=True)


if __name__ == "__main__":
    try:
        anyio.run(main)
    except Exception:  # an ExceptionGroup from the SDK's task group included
        print(f"mcp_oauth_client failed:\n{traceback.format_exc()}", file=sys.stderr)
        sys.exit(1)
