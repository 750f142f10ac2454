"""An OpenAI-compatible endpoint as the model agents see it: key, base URL, the pre-run check."""
from __future__ import annotations

import functools
import os
import ssl
from typing import Any

import httpx

from harness.agent import AgentConfig, ProviderError
from harness.provider import RetryPolicy, is_context_overflow


def api_key(config: AgentConfig) -> str:
    """The API key from the configured environment variable; ValueError naming the variable if unset."""
    key = os.environ.get(config.api_key_env, "").strip()
    if not key:
        raise ValueError(
            f"environment variable {config.api_key_env} is not set: export it with your API key "
            f"(local servers such as vLLM or Ollama accept any value), or name another variable with --api-key-env"
        )
    return key


def endpoint_url(config_base_url: str | None) -> str:
    """The base URL requests go to: the configured one, else OPENAI_BASE_URL, else OpenAI's (as the SDK)."""
    return (config_base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/")


@functools.lru_cache(maxsize=1)
def _trusted_context() -> ssl.SSLContext:
    return ssl.create_default_context()


@functools.lru_cache(maxsize=1)
def _no_ca_context() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies certificates and host names, trusts no CA


def tls_context(url: str) -> ssl.SSLContext:
    """The TLS context an httpx client for `url` gets, shared by the pre-run check and every episode.

    Loading the CA store costs 20-100 ms, and httpx loads it again for each client unless handed a
    context. A plain-http endpoint (a local vLLM, the scripted server) speaks no TLS and httpx follows no
    redirects, so it gets a context that trusts no CA at all: were TLS ever spoken, it would fail rather
    than go unverified."""
    return _trusted_context() if url.lower().startswith("https:") else _no_ca_context()


def retry_policy(config: AgentConfig) -> RetryPolicy:
    """Retry settings from the config (`extra.retry_base_s`, `extra.retry_max_wait_s` tune the backoff)."""
    return RetryPolicy(
        max_retries=config.max_retries,
        base_s=float(config.extra.get("retry_base_s", 1.0)),
        max_wait_s=float(config.extra.get("retry_max_wait_s", 60.0)),
        timeout_s=config.request_timeout_s,
    )


def decoding_kwargs(config: AgentConfig) -> dict[str, Any]:
    """Temperature, max tokens and reasoning effort, only when set (servers reject unknown defaults)."""
    out: dict[str, Any] = {}
    if config.temperature is not None:
        out["temperature"] = config.temperature
    if config.max_tokens is not None:
        out["max_tokens"] = config.max_tokens
    if config.reasoning_effort is not None:
        out["reasoning_effort"] = config.reasoning_effort
    return out


def tool_choice_field(config: AgentConfig) -> dict[str, Any]:
    """The `tool_choice` of a request that offers tools (`{}` with tool_choice omit). A request without tools
    never carries one: vLLM refuses tool_choice without tools."""
    return {} if config.tool_choice == "omit" else {"tool_choice": config.tool_choice}


def _fix_for(message: str, tool_choice: Any, images_sent: bool) -> str:
    """The option (or server setting) most likely to fix a request the server refused; "" when none is known."""
    low = message.lower()
    if "timed out" in low:
        return ""  # the timeout message names --request-timeout itself
    if "--enable-auto-tool-choice" in message:
        return ("start vLLM with --enable-auto-tool-choice and a --tool-call-parser for the model, or pass "
                "--tool-choice required")
    if "--jinja" in message:
        return "start llama-server with --jinja (it needs it for tools)"
    if images_sent and (is_context_overflow(message) or any(w in low for w in ("image", "mmproj", "multimodal", "vision"))):
        return ("this request carried images: pass --no-images for a server or model without vision (a text-only "
                "chat template reads an image's bytes as text)")
    if is_context_overflow(message):
        return ("shorten the conversation: --memory-mode summary with --context-tokens below the server's context, a "
                "smaller --max-steps, or a server with a larger context")
    if tool_choice is not None and ("tool_choice" in low or (tool_choice == "required" and "no message" in low)):
        return f"the server refused tool_choice {tool_choice!r}: pass --tool-choice auto (or omit)"
    return ""


def with_fix(error: ProviderError, tool_choice: Any, images_sent: bool) -> ProviderError:
    """The final error of a failed request with the option most likely to fix it, said once (its retries are
    recorded with the server's message alone)."""
    fix = _fix_for(str(error), tool_choice, images_sent)
    return ProviderError(f"{error}; {fix}") if fix else error


def carries_images(messages: list[dict[str, Any]]) -> bool:
    """Whether any message of a request has an image part."""
    return any(isinstance(m.get("content"), list) and any(isinstance(p, dict) and p.get("type") == "image_url"
                                                           for p in m["content"]) for m in messages)


async def preflight_endpoint(config: AgentConfig) -> None:
    """Check before a run that the model, key and endpoint are usable; ValueError with a clear message."""
    if not config.model:
        raise ValueError("no model name: pass --model NAME (the model id at the endpoint)")
    key = api_key(config)
    base = endpoint_url(config.base_url)  # where the episodes will post (OPENAI_BASE_URL too, as the SDK)
    url = f"{base}/models"
    try:
        async with httpx.AsyncClient(timeout=min(10.0, config.request_timeout_s), verify=tls_context(url)) as client:
            resp = await client.get(url, headers={"Authorization": f"Bearer {key}"})
    except httpx.HTTPError as e:
        raise ValueError(f"cannot reach the model endpoint {base}: {type(e).__name__}: {e or 'no response'}") from None
    if resp.status_code in (401, 403):
        raise ValueError(
            f"the model endpoint {base} refused the API key from {config.api_key_env} (HTTP {resp.status_code})"
        )
    # other statuses (e.g. 404 on servers without /models) still prove the endpoint is there
