"""The official MCP Python SDK (mcp==2.3.0) as an OAuth client of the assistant endpoint.

Run by test/e2e/oauth-python-sdk.test.ts with the interpreter tooling/python-tools.ts installs. It
holds no key: the SDK's OAuthClientProvider meets the 401, discovers the authorization server and,
naming itself by its Client ID Metadata Document (--client-metadata-url), asks for an authorization.
The browser is the Node test's: for each authorization this prints `AUTHORIZE <url>` and reads the
loopback callback's query string (code, state, iss; or error) as one line on stdin. The SDK checks
`state` and `iss` itself. Then it lists the tools and calls one, and prints one `RESULT <json>` line.
Any failure ends the run with exit code 1 and the reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
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


async def redirect_handler(authorization_url: str) -> None:
    global authorizations
    authorizations += 1
    print(f"AUTHORIZE {authorization_url}", flush=True)


async def callback_handler() -> AuthorizationCodeResult:
    # Read off the event loop's thread: the request that needs the code is waiting on this loop.
    line = await anyio.to_thread.run_sync(sys.stdin.readline)
    query = {k: v[0] for k, v in parse_qs(line.strip()).items()}
    if "error" in query:
        raise RuntimeError(f"the authorization was refused: {query['error']}")
    return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url", help="the assistant endpoint, e.g. http://localhost:PORT/api/mcp")
    ap.add_argument("--redirect-uri", required=True, help="the Node test's loopback listener")
    ap.add_argument("--client-metadata-url", required=True, help="the client's metadata document (https)")
    ap.add_argument("--client-name", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--args", default="{}", help="the tool's arguments, as JSON")
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
    async with http, Client(streamable_http_client(a.url, http_client=http), mode="2026-07-28") as client:
        tools = await client.list_tools()
        called = await client.call_tool(a.tool, json.loads(a.args))
    result = {
        "tools": [t.name for t in tools.tools],
        "call": called.model_dump(mode="json", by_alias=True, exclude_none=True),
        "client_id": storage.client_info.client_id if storage.client_info else None,
        "scope": storage.tokens.scope if storage.tokens else None,
        "refresh_token": bool(storage.tokens and storage.tokens.refresh_token),
        "authorizations": authorizations,
    }
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    try:
        anyio.run(main)
    except Exception:  # an ExceptionGroup from the SDK's task group included
        print(f"mcp_oauth_client failed:\n{traceback.format_exc()}", file=sys.stderr)
        sys.exit(1)
