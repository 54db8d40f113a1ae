"""The official MCP Python SDK (mcp==2.3.0) as a second client of the assistant endpoint.

Run by test/e2e/mcp-python.test.ts, once per protocol revision, with the interpreter that
tooling/python-tools.ts installs. It connects at exactly that revision, lists the tools, calls reads,
writes, a refused call and the gated `connection.disconnect` (at 2026-07-28 also with the tasks
extension: a task, `tasks/get`, `tasks/cancel`), and holds every tool result to the tool's own
outputSchema twice: the SDK's own check in `call_tool`, and an explicit jsonschema check with formats.
Any breach stops the run with exit code 1 and the reason on stderr; otherwise it prints one JSON
report on stdout for the Node test to assert on. The API key comes in LEAD_SERVICE_KEY.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from typing import Any, Literal

import anyio
import httpx2  # the SDK's HTTP library (not httpx)
import mcp_types as types
from jsonschema import Draft202012Validator
from jsonschema.validators import validator_for
from mcp import ClientSession, MCPError
from mcp.client import ClaimContext, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import ConfigDict, TypeAdapter

TASKS = "io.modelcontextprotocol/tasks"
HANDSHAKE = ("2025-06-18", "2025-11-25")
MODERN = "2026-07-28"
GATED = "connection.disconnect"


class CheckFailed(Exception):
    pass


def require(ok: object, message: str) -> None:
    if not ok:
        raise CheckFailed(message)


# The tasks extension (SEP-2663) is not in mcp 2.3.0: a claim model for `resultType: "task"`, and
# request types whose `name_param` makes the session send `Mcp-Name: <taskId>`.
class TaskHandle(types.Result):
    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class TaskIdParams(types.RequestParams):
    task_id: str


class TasksGetRequest(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param = "taskId"


class TasksCancelRequest(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param = "taskId"


ANY = TypeAdapter(dict[str, Any])


async def never_resolve(handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
    raise CheckFailed("the task is handled by hand here (allow_claimed=True), never resolved by the SDK")


TASK_CLAIM = ResultClaim(result_type="task", model=TaskHandle, resolve=never_resolve)

# The task fields the extension defines, checked as the tool results are: by a schema, formats included.
# `resultType` is "task" on the tools/call that creates it; tasks/get answers a complete result.
TASK_SCHEMA = {
    "type": "object",
    "properties": {
        "resultType": {"type": "string"},
        "taskId": {"type": "string", "minLength": 1},
        "status": {"enum": ["working", "input_required", "completed", "failed", "cancelled"]},
        "statusMessage": {"type": "string"},
        "createdAt": {"type": "string", "format": "date-time"},
        "lastUpdatedAt": {"type": "string", "format": "date-time"},
        "ttlMs": {"type": ["integer", "null"], "minimum": 0},
        "pollIntervalMs": {"type": "integer", "minimum": 0},
    },
    "required": ["taskId", "status", "createdAt", "lastUpdatedAt"],
}


def dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def schema_errors(schema: dict[str, Any], instance: Any) -> list[str]:
    cls = validator_for(schema, default=Draft202012Validator)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in validator.iter_errors(instance)]


class Wire:
    """What went over HTTP, seen from httpx2 hooks (which must never raise: that kills the transport)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    async def on_request(self, request: httpx2.Request) -> None:
        try:
            body = json.loads(request.content) if request.content else {}
            h = request.headers
            self.requests.append(
                {
                    "method": body.get("method"),
                    "tool": (body.get("params") or {}).get("name") if body.get("method") == "tools/call" else None,
                    "protocol_version": h.get("mcp-protocol-version"),
                    "mcp_method": h.get("mcp-method"),
                    "mcp_name": h.get("mcp-name"),
                    "lead_id": h.get("mcp-param-lead-id"),
                    "meta": "_meta" in (body.get("params") or {}),
                }
            )
        except Exception as err:
            self.requests.append({"hook_error": repr(err)})

    async def on_response(self, response: httpx2.Response) -> None:
        try:
            for r in reversed(self.requests):
                if "status" not in r:
                    r["status"] = response.status_code
                    break
        except Exception as err:
            self.requests.append({"hook_error": repr(err)})

    def client(self, key: str) -> httpx2.AsyncClient:
        # The SDK's own factory keeps its timeouts (a bare httpx2 client gives up after 5 s).
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
        http.event_hooks = {"request": [self.on_request], "response": [self.on_response]}
        return http


class Checked:
    """One session's tools, and every result it receives held to the tool's outputSchema."""

    def __init__(self, session: ClientSession, report: dict[str, Any]) -> None:
        self.session = session
        self.report = report
        self.tools: dict[str, types.Tool] = {}

    async def list(self) -> list[str]:
        # Listed first: call_tool validates against the listed outputSchema and, at 2026-07-28, mirrors
        # x-mcp-header arguments into Mcp-Param-* headers only for a listed tool.
        listed = await self.session.list_tools()
        require(listed.next_cursor is None, "tools/list answers in one page")
        self.tools = {t.name: t for t in listed.tools}
        for tool in listed.tools:
            require(tool.output_schema, f"{tool.name} declares an outputSchema")
            for schema in (tool.input_schema, tool.output_schema):
                cls = validator_for(schema, default=Draft202012Validator)
                cls.check_schema(schema)
        return [t.name for t in listed.tools]

    def check(self, name: str, result: types.CallToolResult) -> dict[str, Any]:
        """The explicit check (the SDK's ran already): schema with formats, and the same JSON as text."""
        tool = self.tools.get(name)
        require(tool, f"{name} is listed")
        texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
        if result.is_error:
            require(result.structured_content is None, f"{name}: a tool error has no structured answer")
            require(texts and texts[0], f"{name}: a tool error says why")
            entry = {"tool": name, "is_error": True, "text": texts[0]}
        else:
            structured = result.structured_content
            require(structured is not None, f"{name}: structuredContent is present")
            errors = schema_errors(tool.output_schema, structured)
            require(not errors, f"{name}: the result breaks its outputSchema: {errors}")
            parsed = []
            for text in texts:
                try:
                    parsed.append(json.loads(text))
                except ValueError:
                    pass
            require(structured in parsed, f"{name}: a text block carries the same JSON as structuredContent")
            entry = {"tool": name, "is_error": False, "validated": True}
        self.report["calls"].append(entry)
        return entry

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        result = await self.session.call_tool(name, arguments)
        self.check(name, result)
        return result


async def initialize_at(session: ClientSession, version: str) -> dict[str, Any]:
    """ClientSession.initialize() always offers 2025-11-25; this offers exactly `version`."""
    result = await session.send_request(
        types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=version,
                capabilities=types.ClientCapabilities(),
                client_info=types.Implementation(name="lead-service-python-check", version="1.0.0"),
            )
        ),
        types.InitializeResult,
    )
    require(result.protocol_version == version, f"initialize at {version} answered {result.protocol_version}")
    session.adopt(result)
    await session.send_notification(types.InitializedNotification())
    return {
        "server": dump(result.server_info),
        "capabilities": dump(result.capabilities),
    }


def new_session(read: Any, write: Any, tasks: bool) -> ClientSession:
    return ClientSession(
        read,
        write,
        read_timeout_seconds=30,
        client_info=types.Implementation(name="lead-service-python-check", version="1.0.0"),
        extensions={TASKS: {}} if tasks else None,
        result_claims={TASKS: [TASK_CLAIM]} if tasks else None,
    )


async def plain_session(args: argparse.Namespace, report: dict[str, Any], wire: Wire, key: str) -> None:
    async with wire.client(key) as http, streamable_http_client(args.url, http_client=http) as (read, write):
        async with new_session(read, write, tasks=False) as session:
            if args.protocol_version in HANDSHAKE:
                report.update(era="handshake", **await initialize_at(session, args.protocol_version))
            else:
                discovered = await session.discover()
                require(MODERN in discovered.supported_versions, f"server/discover offers {MODERN}")
                report.update(
                    era="modern",
                    server=dump(session.server_info) if session.server_info else None,
                    capabilities=dump(discovered.capabilities),
                    supported_versions=discovered.supported_versions,
                )
            report["negotiated"] = session.protocol_version
            c = Checked(session, report)
            report["tools"] = await c.list()

            me = await c.call("workspace.get", {})
            report["workspace_id"] = me.structured_content["workspace"]["id"]
            found = await c.call("lead.search", {"query": args.lead_email})
            report["search_ids"] = [lead["id"] for lead in found.structured_content["data"]]
            lead = await c.call("lead.get", {"leadId": args.lead_id})
            report["lead_email"] = lead.structured_content["data"]["email"]
            threads = await c.call("conversation.list", {"leadId": args.lead_id})
            report["channels"] = [t["channel"] for t in threads.structured_content["data"]]
            connections = await c.call("connection.list", {})
            report["connections"] = [[x["id"], x["status"]] for x in connections.structured_content["data"]]

            note = f"Called from the MCP Python SDK at {args.protocol_version}."
            added = await c.call("lead.add_note", {"leadId": args.lead_id, "note": note})
            report["note"] = added.structured_content["note"]["body"]
            created = await c.call(
                "lead.create",
                {
                    "first_name": "Py",
                    "last_name": args.protocol_version,
                    "email": f"python-sdk-{uuid.uuid4().hex[:12]}@example.com",
                    "source": "mcp-python-sdk",
                    "consent": {"given": True, "at": "2026-11-20T09:30:00Z"},
                    "idempotency_key": str(uuid.uuid4()),
                },
            )
            report["created_outcome"] = created.structured_content["outcome"]
            missing = await c.call("lead.get", {"leadId": str(uuid.uuid4())})
            require(missing.is_error, "lead.get of an unknown lead is a tool error")

            parked = await c.call(GATED, {"connectionId": args.connection_id})
            require(not parked.is_error, f"{GATED} parks rather than fails")
            report["gated"] = parked.structured_content
            approval = await c.call("approval.get", {"approvalId": parked.structured_content["approval_id"]})
            report["approval_status"] = approval.structured_content["status"]

            if args.protocol_version == MODERN:
                try:
                    await session.send_request(
                        TasksGetRequest(params=TaskIdParams(task_id=parked.structured_content["approval_id"])), ANY
                    )
                    report["tasks_get_without_extension"] = "answered"
                except MCPError as err:
                    report["tasks_get_without_extension"] = {"code": err.code, "message": err.message}


async def task_session(args: argparse.Namespace, report: dict[str, Any], wire: Wire, key: str) -> None:
    """2026-07-28 with the tasks extension declared in every request's clientCapabilities."""
    async with wire.client(key) as http, streamable_http_client(args.url, http_client=http) as (read, write):
        async with new_session(read, write, tasks=True) as session:
            await session.discover()
            c = Checked(session, report)
            await c.list()
            handle = await session.call_tool(GATED, {"connectionId": args.connection_id}, allow_claimed=True)
            require(isinstance(handle, TaskHandle), f"{GATED} answers a task, got {type(handle).__name__}")
            created = dump(handle)
            require(created.get("resultType") == "task", f"a task has resultType task: {created}")
            errors = schema_errors(TASK_SCHEMA, created)
            require(not errors, f"CreateTaskResult breaks the task shape: {errors}")
            task_id = handle.task_id

            def task_request(cls: type[TasksGetRequest] | type[TasksCancelRequest]) -> Any:
                return session.send_request(cls(params=TaskIdParams(task_id=task_id)), ANY)

            got = await task_request(TasksGetRequest)
            errors = schema_errors(TASK_SCHEMA, got)
            require(not errors, f"tasks/get breaks the task shape: {errors}")
            cancelled = await task_request(TasksCancelRequest)
            after = await task_request(TasksGetRequest)
            errors = schema_errors(TASK_SCHEMA, after)
            require(not errors, f"tasks/get after cancel breaks the task shape: {errors}")
            approval = await c.call("approval.get", {"approvalId": task_id})
            report["tasks"] = {
                "created": created,
                "get": got,
                "cancel": cancelled,
                "after_cancel": after,
                "approval_status": approval.structured_content["status"],
            }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    key = os.environ["LEAD_SERVICE_KEY"]
    report: dict[str, Any] = {"requested": args.protocol_version, "calls": []}
    wire = Wire()
    await plain_session(args, report, wire, key)
    if args.protocol_version == MODERN:
        await task_session(args, report, wire, key)
    require(not any("hook_error" in r for r in wire.requests), f"the wire log broke: {wire.requests}")
    report["wire"] = wire.requests
    return report


def leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--url", required=True, help="the endpoint, e.g. http://127.0.0.1:PORT/api/mcp")
    p.add_argument("--protocol-version", required=True, choices=[*HANDSHAKE, MODERN])
    p.add_argument("--lead-id", required=True)
    p.add_argument("--lead-email", required=True)
    p.add_argument("--connection-id", required=True)
    args = p.parse_args()
    format_checker = Draft202012Validator.FORMAT_CHECKER
    # jsonschema checks date-time only when rfc3339-validator is importable; without it the check would pass silently.
    if "date-time" not in format_checker.checkers or "uuid" not in format_checker.checkers:
        print("jsonschema cannot check the date-time and uuid formats here", file=sys.stderr)
        return 1
    try:
        report = anyio.run(run, args)
    except BaseException as exc:  # the SDK's errors come out wrapped in (nested) exception groups
        if isinstance(exc, KeyboardInterrupt):
            raise
        for leaf in leaves(exc):
            code = f" (code {leaf.code}, data {leaf.data})" if isinstance(leaf, MCPError) else ""
            print(f"{type(leaf).__module__}.{type(leaf).__name__}: {leaf}{code}", file=sys.stderr)
        return 1
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
