"""Strict profiles of the scripted model server: requests checked the way real OpenAI-compatible servers check them.

Each profile follows one server's request handling as its source shows it, and answers what that server
answers (status and error body), so an agent that works against the profile works against the server:

- `llama-cpp`: llama-cpp-python's server (0.3.x, `python -m llama_cpp.server --chat_format
  chatml-function-calling`, the small-model setup). FastAPI validates the body against typed dicts of
  the OpenAI messages, and its route handler turns *every* exception, validation included, into HTTP 500
  `internal_server_error` whose message is the exception text: an assistant message's `content` must be
  a string when present (`null` is rejected), a system or tool message's a string or null (a list of
  parts is rejected), a user message's a string, parts or null. Its chatml-function-calling handler
  ignores the tools unless `tool_choice` is `"auto"` or names a tool (no `tool_choice`, or `"none"`: a
  plain text reply), fails `"required"` on an assertion (500 with an empty message) and a named tool it
  does not have (500). A prompt of n_ctx tokens or more is the one 400 (`context_length_exceeded`, the
  OpenAI wording, "... ({n} in the messages, {max_tokens} in the completion)"). A reply with tool calls
  carries `content: null`. Without a vision handler, an image part is rendered into the prompt as text.
- `llama-server`: llama.cpp's own server (`llama-server --jinja`, no `--mmproj`). Content must be a
  string, null or a list of text parts (400 `invalid_request_error` otherwise; an image part: "image
  input is not supported"); `tool_choice` is auto (the default), none or required; a prompt past the
  context is a 400 `exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`.
- `vllm`: vLLM's server (0.9, started with `--enable-auto-tool-choice --tool-call-parser ...`).
  `tool_choice` defaults to auto when tools are sent, needs tools when given, and is one of
  none/auto/required or a named tool; a prompt (plus `max_tokens`, when set) past `--max-model-len`
  is a 400 `BadRequestError` in vLLM's wording and envelope (`{"object": "error", ...}`).
- `ollama`: Ollama's /v1 endpoint. `content: null` is refused on a message without tool calls
  (400 "invalid message content type: <nil>"); `tool_choice` is ignored; an over-long prompt is cut
  to the model's context silently (not modelled: nothing to refuse).

Tokens are estimated at 4 characters each (the same estimate as the server's `usage`): the prompt is
the messages (and the tools, when honoured) as the server would render them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Literal, Optional, Union

from pydantic import TypeAdapter, ValidationError
from typing_extensions import NotRequired, TypedDict

ProfileName = Literal["llama-cpp", "llama-server", "vllm", "ollama"]
CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 768  # what one image costs on a server that encodes it (vision model)
DEFAULT_CONTEXT_TOKENS = 32768


@dataclass(frozen=True)
class Rejection:
    """What the server answers instead of a completion."""

    status: int
    payload: dict[str, Any]

    @property
    def message(self) -> str:
        err = self.payload.get("error")
        return str(err.get("message", "")) if isinstance(err, dict) else str(self.payload.get("message", ""))


@dataclass(frozen=True)
class ServerProfile:
    """One server's request handling: what it refuses, whether it honours the tools, how it answers."""

    name: ProfileName
    summary: str
    check: Callable[[dict[str, Any], int], Rejection | None]  # (body, context tokens) -> a refusal or None
    honours_tools: Callable[[dict[str, Any]], bool]  # False: the tools are ignored, the reply is text only
    null_content_with_calls: bool  # a reply with tool calls and no text carries content null (else "")
    text_beside_calls: bool = True  # text the model wrote before its calls is kept in content
    images_as_text: bool = False  # the prompt renders an image part as its text (no vision handler)

    def prompt_tokens(self, body: dict[str, Any]) -> int:
        return estimate_prompt_tokens(body, images_as_text=self.images_as_text,
                                      with_tools=bool(body.get("tools")) and self.honours_tools(body))


def _parts_text(content: Any, images_as_text: bool) -> tuple[str, int]:
    """(text the server renders, images it encodes) for one message's content."""
    if content is None:
        return "", 0
    if isinstance(content, str):
        return content, 0
    if isinstance(content, list):
        if images_as_text:
            return str(content), 0  # a chat template without vision prints the list
        texts = [str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text"]
        images = sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")
        return "\n".join(texts), images
    return json.dumps(content), 0


def estimate_prompt_tokens(body: dict[str, Any], *, images_as_text: bool = False, with_tools: bool = True) -> int:
    """The prompt's tokens at CHARS_PER_TOKEN characters each, each encoded image IMAGE_TOKENS."""
    chars, images = 0, 0
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            continue
        text, n = _parts_text(m.get("content"), images_as_text)
        chars += len(str(m.get("role", ""))) + len(text) + len(json.dumps(m.get("tool_calls") or ""))
        images += n
    if with_tools and body.get("tools"):
        chars += len(json.dumps(body["tools"]))
    return -(-chars // CHARS_PER_TOKEN) + images * IMAGE_TOKENS


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [str((t.get("function") or {}).get("name", "")) for t in body.get("tools") or [] if isinstance(t, dict)]


# -- llama-cpp-python ----------------------------------------------------------------------------
class _TextPart(TypedDict):
    type: Literal["text"]
    text: str


class _ImageUrl(TypedDict):
    url: str
    detail: NotRequired[Literal["auto", "low", "high"]]


class _ImagePart(TypedDict):
    type: Literal["image_url"]
    image_url: Union[str, _ImageUrl]


class _CallFunction(TypedDict):
    name: str
    arguments: str


class _Call(TypedDict):
    id: str
    type: Literal["function"]
    function: _CallFunction


class ChatCompletionRequestSystemMessage(TypedDict):
    role: Literal["system"]
    content: Optional[str]


class ChatCompletionRequestUserMessage(TypedDict):
    role: Literal["user"]
    content: Optional[Union[str, list[Union[_TextPart, _ImagePart]]]]


class ChatCompletionRequestAssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: NotRequired[str]
    tool_calls: NotRequired[list[_Call]]


class ChatCompletionRequestToolMessage(TypedDict):
    role: Literal["tool"]
    content: Optional[str]
    tool_call_id: str


class _ToolFunction(TypedDict):
    name: str
    description: NotRequired[str]
    parameters: dict[str, Any]


class _ToolDef(TypedDict):
    type: Literal["function"]
    function: _ToolFunction


class _NamedChoiceFunction(TypedDict):
    name: str


class _NamedChoice(TypedDict):
    type: Literal["function"]
    function: _NamedChoiceFunction


class _LlamaCppRequest(TypedDict):
    messages: NotRequired[list[Union[ChatCompletionRequestSystemMessage, ChatCompletionRequestUserMessage, ChatCompletionRequestAssistantMessage,
                                        ChatCompletionRequestToolMessage]]]
    tools: NotRequired[Optional[list[_ToolDef]]]
    tool_choice: NotRequired[Optional[Union[Literal["none", "auto", "required"], _NamedChoice]]]
    max_tokens: NotRequired[Optional[int]]


_LLAMA_CPP_REQUEST = TypeAdapter(_LlamaCppRequest)


def _fastapi_text(e: ValidationError) -> str:
    """A FastAPI request validation error as its str() reads: the count, then one dict per error."""
    errors = [{"type": err["type"], "loc": ("body", *err["loc"]), "msg": err["msg"], "input": err.get("input")}
              for err in e.errors(include_url=False)]
    head = f"{len(errors)} validation error{'s' if len(errors) != 1 else ''}:\n"
    return head + "".join(f"  {err}\n" for err in errors)


def _llama_cpp_500(message: str) -> Rejection:
    return Rejection(500, {"error": {"message": message, "type": "internal_server_error", "param": None, "code": None}})


def _llama_cpp_check(body: dict[str, Any], n_ctx: int) -> Rejection | None:
    try:
        _LLAMA_CPP_REQUEST.validate_python(body)
    except ValidationError as e:
        return _llama_cpp_500(_fastapi_text(e))
    choice, tools = body.get("tool_choice"), body.get("tools") or []
    if tools and isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if name not in _tool_names(body):
            return _llama_cpp_500(f"Tool with name '{name}' not found in tools")
    if tools and choice == "required":
        return _llama_cpp_500("")  # the handler asserts tool_choice == "auto": an AssertionError says nothing
    prompt = LLAMA_CPP.prompt_tokens(body)
    if prompt >= n_ctx:
        completion = body.get("max_tokens")
        message = (f"This model's maximum context length is {n_ctx} tokens. However, you requested "
                   f"{(completion or 0) + prompt} tokens ({prompt} in the messages, {completion} in the completion). "
                   "Please reduce the length of the messages or completion.")
        return Rejection(400, {"error": {"message": message, "type": "invalid_request_error", "param": "messages",
                                         "code": "context_length_exceeded"}})
    return None


def _llama_cpp_honours(body: dict[str, Any]) -> bool:
    choice = body.get("tool_choice")
    return bool(body.get("tools")) and (choice == "auto" or isinstance(choice, dict))


# -- llama.cpp's llama-server --------------------------------------------------------------------
def _llama_server_400(message: str) -> Rejection:
    return Rejection(400, {"error": {"code": 400, "message": message, "type": "invalid_request_error"}})


def _llama_server_check(body: dict[str, Any], n_ctx: int) -> Rejection | None:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return _llama_server_400("'messages' is required" if messages is None else "Expected 'messages' to be an array")
    for m in messages:
        role = m.get("role") if isinstance(m, dict) else None
        if role != "assistant" and "content" not in m:
            return _llama_server_400("All non-assistant messages must contain 'content'")
        if role == "assistant" and "content" not in m:
            if "tool_calls" not in m:
                return _llama_server_400("Assistant message must contain either 'content' or 'tool_calls'!")
            continue
        content = m["content"]
        if content is None or isinstance(content, str):
            continue
        if not isinstance(content, list):
            return _llama_server_400("Expected 'content' to be a string or an array")
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "image_url":
                return _llama_server_400("image input is not supported - hint: if this is unexpected, you may need "
                                         "to provide the mmproj")
            if kind != "text":
                return _llama_server_400("unsupported content[].type")
    choice = body.get("tool_choice")
    if isinstance(choice, str) and choice not in ("auto", "none", "required"):
        return _llama_server_400(f"Invalid tool_choice: {choice}")
    prompt = LLAMA_SERVER.prompt_tokens(body)
    if prompt >= n_ctx:
        return Rejection(400, {"error": {
            "code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": prompt, "n_ctx": n_ctx,
            "message": f"request ({prompt} tokens) exceeds the available context size ({n_ctx} tokens), try increasing it"}})
    return None


# -- vLLM --------------------------------------------------------------------------------------
def _vllm_400(message: str) -> Rejection:
    return Rejection(400, {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400})


def _vllm_check(body: dict[str, Any], max_len: int) -> Rejection | None:
    choice = body.get("tool_choice")
    if choice is not None and choice != "none":
        if body.get("tools") is None:
            return _vllm_400("When using `tool_choice`, `tools` must be set.")
        if choice not in ("auto", "required") and not isinstance(choice, dict):
            return _vllm_400(f'Invalid value for `tool_choice`: {choice}! Only named tools, "none", "auto" or '
                             '"required" are supported.')
        if isinstance(choice, dict):
            name = (choice.get("function") or {}).get("name")
            if name not in _tool_names(body):
                return _vllm_400(f"Tool '{name}' has not been passed in `tools`.")
    prompt = VLLM.prompt_tokens(body)
    completion = body.get("max_tokens")
    if completion is None and prompt >= max_len:
        return _vllm_400(f"This model's maximum context length is {max_len} tokens. However, you requested {prompt} "
                         "tokens in the messages, Please reduce the length of the messages.")
    if completion is not None and prompt + completion > max_len:
        return _vllm_400(f"This model's maximum context length is {max_len} tokens. However, you requested "
                         f"{prompt + completion} tokens ({prompt} in the messages, {completion} in the completion). "
                         "Please reduce the length of the messages or completion.")
    return None


# -- Ollama ------------------------------------------------------------------------------------
def _ollama_check(body: dict[str, Any], _n_ctx: int) -> Rejection | None:
    for m in body.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, (str, list)) or (content is None and m.get("tool_calls")):
            continue
        kind = "<nil>" if content is None else {bool: "bool", int: "float64", float: "float64", dict: "map[string]interface {}"}.get(
            type(content), type(content).__name__)
        return Rejection(400, {"error": {"message": f"invalid message content type: {kind}", "type": "invalid_request_error"}})
    return None


def _tools_unless_none(body: dict[str, Any]) -> bool:
    return bool(body.get("tools")) and body.get("tool_choice") != "none"


LLAMA_CPP = ServerProfile(
    "llama-cpp", "llama-cpp-python's server, chat format chatml-function-calling (FastAPI: every failure a 500)",
    _llama_cpp_check, _llama_cpp_honours, null_content_with_calls=True, text_beside_calls=False, images_as_text=True)
LLAMA_SERVER = ServerProfile(
    "llama-server", "llama.cpp's llama-server --jinja without --mmproj", _llama_server_check, _tools_unless_none,
    null_content_with_calls=True)
VLLM = ServerProfile(
    "vllm", "vLLM's OpenAI server with --enable-auto-tool-choice", _vllm_check, _tools_unless_none,
    null_content_with_calls=True)
OLLAMA = ServerProfile(
    "ollama", "Ollama's /v1 endpoint (tool_choice ignored)", _ollama_check, lambda body: bool(body.get("tools")),
    null_content_with_calls=False)

PROFILES: dict[str, ServerProfile] = {p.name: p for p in (LLAMA_CPP, LLAMA_SERVER, VLLM, OLLAMA)}


def get_profile(name: str) -> ServerProfile:
    """The profile of that name; ValueError naming the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown server profile {name!r}; profiles: {', '.join(PROFILES)}") from None
