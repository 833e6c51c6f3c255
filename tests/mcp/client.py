"""Drives `thinker mcp` with the official MCP Python SDK (`mcp` on PyPI): a client nobody
here wrote. Run by tests/mcp.rs with the python of THINKER_MCP_PYTHON
(`scripts/ci/e2e-mcp.sh build` makes that venv).

    python client.py [--era legacy|modern] --match TEXT --match-id ID --unrelated TEXT \
        --feedback-id ID [--env KEY=VALUE]... -- THINKER mcp --config CFG --state DIR [--now T]

Starts the server over stdio with the SDK's stdio client. `--era legacy` (the default):
the initialize handshake (`ClientSession.initialize`, protocol 2025-11-25 and older);
`--era modern`: the SDK's `Client` in `auto` mode, which probes `server/discover` and
speaks the stateless 2026-07-28 protocol (`_meta` on every request). Then it lists the
tools (asserts the four, their annotations — `readOnlyHint` on recall, subconscious and
status, `idempotentHint` on feedback — and an `outputSchema` for each structured result),
calls `recall` with a matching text (asserts the id is in the answer; the SDK validates
the structured result against the schema) and an unrelated one (asserts nothing),
`subconscious`, `status`, a `feedback` with bad arguments (a tool error, not a crash),
then `feedback` (`used` on --feedback-id), and exits. Prints one `ok: …` line per step on
stdout; any failed assertion exits non-zero.
"""

import argparse
import asyncio
import sys

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.client import Client
from mcp.client.stdio import stdio_client

EXPECTED_TOOLS = {"recall", "subconscious", "status", "feedback"}
READ_ONLY = {"recall", "subconscious", "status"}
STRUCTURED = {"recall", "status", "feedback"}


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def check(condition, what, result=None):
    if not condition:
        detail = "" if result is None else f"\n--- result ---\n{result!r}"
        raise AssertionError(f"{what}{detail}")
    print(f"ok: {what}", flush=True)


async def run(args):
    env = dict(kv.split("=", 1) for kv in args.env)
    params = StdioServerParameters(command=args.server[0], args=args.server[1:], env=env)
    if args.era == "modern":
        async with Client(params, mode="auto") as client:
            version = client.protocol_version
            check(version == "2026-07-28", f"server/discover: the stateless era ({version})")
            await exercise(client, args)
    else:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check(init.server_info.name == "thinker", "initialize: the server is thinker", init)
                check(not init.protocol_version.startswith("2026"), f"initialize: the handshake era ({init.protocol_version})")
                await exercise(session, args)
    print("ok: done", flush=True)


async def exercise(session, args):
    """The same calls in either era (`ClientSession` and `Client` share these methods)."""
    listed = await session.list_tools()
    names = {t.name for t in listed.tools}
    check(names == EXPECTED_TOOLS, f"list_tools: {sorted(names)}", listed)
    for tool in listed.tools:
        check(bool(tool.description), f"{tool.name} has a description")
        check(tool.input_schema.get("type") == "object", f"{tool.name} has an argument schema")
    recall_schema = next(t for t in listed.tools if t.name == "recall").input_schema
    check("text" in recall_schema.get("required", []), "recall requires `text`", recall_schema)
    for tool in listed.tools:
        hints = tool.annotations
        check(hints is not None, f"{tool.name} has annotations", tool)
        check(hints.read_only_hint is (tool.name in READ_ONLY), f"{tool.name}: readOnlyHint {hints.read_only_hint}", tool)
        check(hints.open_world_hint is False, f"{tool.name}: openWorldHint false", tool)
        if tool.name in STRUCTURED:
            check(bool(tool.output_schema) and tool.output_schema.get("type") == "object",
                  f"{tool.name} has an outputSchema", tool)
    feedback_tool = next(t for t in listed.tools if t.name == "feedback")
    check(feedback_tool.annotations.idempotent_hint is True, "feedback: idempotentHint", feedback_tool)
    check(feedback_tool.annotations.destructive_hint is False, "feedback: not destructive", feedback_tool)
    entries = next(t for t in listed.tools if t.name == "recall").output_schema["properties"]["entries"]
    check(entries.get("type") == "array", "recall's outputSchema lists entries", entries)

    found = await session.call_tool("recall", {"text": args.match})
    check(not found.is_error, "recall (matching) is not an error", found)
    check(args.match_id in text_of(found), f"recall (matching) names {args.match_id}", found)
    ids = [e["id"] for e in (found.structured_content or {}).get("entries", [])]
    check(args.match_id in ids, f"recall (matching) lists {args.match_id} in its structured entries", found)

    unrelated = await session.call_tool("recall", {"text": args.unrelated})
    check(not unrelated.is_error, "recall (unrelated) is not an error", unrelated)
    check((unrelated.structured_content or {}).get("entries") == [], "recall (unrelated) lists nothing", unrelated)
    check("[" not in text_of(unrelated), "recall (unrelated) names no entry", unrelated)

    sub = await session.call_tool("subconscious", {})
    check(not sub.is_error and "<thinker-memory>" in text_of(sub), "subconscious: the compact text", sub)
    small = await session.call_tool("subconscious", {"max_bytes": 10})
    check(small.is_error and "max_bytes" in text_of(small), "subconscious: max_bytes out of range is a tool error", small)

    status = await session.call_tool("status", {})
    check(not status.is_error and "Last tick:" in text_of(status), "status: the last tick", status)
    check("last_tick" in (status.structured_content or {}), "status: structured", status)

    # Arguments that do not fit the schema: an error answer (a tool error or a
    # JSON-RPC error, as the SDK decides), and the server goes on.
    try:
        bad = await session.call_tool("feedback", {"id": args.feedback_id, "verdict": "maybe"})
        check(bool(bad.is_error), "feedback with an unknown verdict is a tool error", bad)
    except MCPError as e:
        check("verdict" in str(e) or "param" in str(e).lower(), f"feedback with an unknown verdict is refused: {e}")

    verdict = await session.call_tool(
        "feedback", {"id": args.feedback_id, "verdict": "used", "note": "from the MCP e2e test"}
    )
    check(not verdict.is_error and "recorded" in text_of(verdict), "feedback: recorded", verdict)
    check((verdict.structured_content or {}).get("known") is True, "feedback: the id is known", verdict)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=["legacy", "modern"], default="legacy")
    parser.add_argument("--match", required=True)
    parser.add_argument("--match-id", required=True)
    parser.add_argument("--unrelated", required=True)
    parser.add_argument("--feedback-id", required=True)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("server", nargs="+")
    args = parser.parse_args()
    try:
        asyncio.run(run(args))
    except AssertionError as e:
        print(f"FAILED: {e}", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
