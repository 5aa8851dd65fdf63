"""Gemini API, as Gemini CLI calls it: `POST /v1beta/models/<m>:streamGenerateContent?alt=sse` for
turns and `:generateContent` for its router and other JSON side questions.

Stream: `data:` chunks of GenerateContentResponse — `candidates[0].content` (role `model`) with
`text` or `functionCall {name, args}` parts, `finishReason` and `usageMetadata` on the last chunk.
The router wants a JSON answer with `complexity_score` >= 1 (else it picks another model); the canned
JSON also answers the older `model_choice` router and the next-speaker check.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.core.hostinfo import gemini_call
from workbench.modelstub.turns import Turn, count_runs
from workbench.modelstub.wire import (
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    Answer,
    Request,
    WireAPI,
    json_answer,
    opening_texts,
    sse,
    texts_of,
)

CANNED_JSON = {"complexity_reasoning": "scripted run", "complexity_score": 80, "reasoning": "scripted run",
               "model_choice": "pro", "next_speaker": "user"}
_STATUS = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 529: "UNAVAILABLE"}
COMPLETE_TASK = "complete_task"
"""The tool a Gemini CLI subagent (and only a subagent) is offered: its run ends when the model calls it,
never at a text answer. A scripted subagent's text turn (its last) is answered with it."""


def _completion(body: dict[str, Any], text: str) -> dict[str, Any]:
    """complete_task's arguments carrying TEXT, in the shape its declaration asks for: each required
    argument the text, or an object of the text for each of its string fields (the generalist's
    `result: {response}`)."""
    params: dict[str, Any] = {}
    for tool in body.get("tools") or []:
        for decl in (tool.get("functionDeclarations") or []) if isinstance(tool, dict) else []:
            if isinstance(decl, dict) and decl.get("name") == COMPLETE_TASK:
                params = decl.get("parameters") or decl.get("parametersJsonSchema") or {}
    found = params.get("properties") if isinstance(params, dict) else None
    props: dict[str, Any] = found if isinstance(found, dict) else {"result": {}}
    required = params.get("required") if isinstance(params, dict) else None
    args: dict[str, Any] = {}
    for name in required if isinstance(required, list) else list(props):
        schema = props.get(name)
        inner = schema.get("properties") if isinstance(schema, dict) else None
        args[name] = {k: text for k, v in inner.items() if isinstance(v, dict) and v.get("type") in (
            "string", "STRING")} if isinstance(inner, dict) else text
    return args




class Gemini(WireAPI):
    """Gemini CLI's wire API."""

    name = "gemini"
    host = "gemini"

    def parse(self, path: str, body: dict[str, Any]) -> Request:
        contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
        system = body.get("systemInstruction") or body.get("system_instruction") or {}
        texts = texts_of(system.get("parts") if isinstance(system, dict) else system)
        for content in contents:
            if content.get("role") != "model":
                texts.extend(texts_of(content.get("parts")))
        tools: dict[str, str] = {}
        for tool in body.get("tools") or []:
            if isinstance(tool, dict):
                for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                    if isinstance(decl, dict) and decl.get("name"):
                        tools[str(decl["name"])] = "function"
        model = path.rsplit("/", 1)[-1].split(":", 1)[0]
        return Request(body=body, model=model, tools=tools, texts=texts,
                       model_turns=count_runs([c.get("role") == "model" for c in contents]),
                       stream=":streamGenerateContent" in path, opening=opening_texts(contents, "user", "model", "parts"))

    def answer(self, turn: Turn | None, request: Request, context: dict[str, str]) -> Answer:
        usage = {"promptTokenCount": INPUT_TOKENS, "candidatesTokenCount": OUTPUT_TOKENS,
                 "totalTokenCount": INPUT_TOKENS + OUTPUT_TOKENS}
        canned = "Scripted session" if request.stream else json.dumps(CANNED_JSON)
        text = canned if turn is None else turn.text
        calls = [{"functionCall": {"name": name, "args": args}}
                 for name, args in (gemini_call(c) for c in (turn.calls if turn else ()))]
        if not calls and COMPLETE_TASK in request.tools:  # a subagent ends only by calling it
            calls = [{"functionCall": {"name": COMPLETE_TASK, "args": _completion(request.body, text or "Done.")}}]
            text = ""
        text_parts = [{"text": text}] if text else []

        def response(parts: list[dict[str, Any]], last: bool) -> dict[str, Any]:
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
            out: dict[str, Any] = {"candidates": [candidate], "modelVersion": request.model}
            if last:
                candidate["finishReason"] = "STOP"
                out["usageMetadata"] = usage
            return out

        if not request.stream:
            return json_answer(response(text_parts + calls, True))
        chunks = [response(text_parts, False)] if text_parts and calls else []
        chunks.append(response(calls or text_parts, True))
        return Answer([sse(c) for c in chunks])

    def error(self, status: int) -> bytes:
        return json.dumps({"error": {"code": status, "message": f"scripted {status}",
                                     "status": _STATUS.get(status, "INTERNAL")}}).encode()
