"""The TLS context of the model endpoint's clients: loaded once and shared (loading the CA store costs
20-100 ms per client), and for a plain-http endpoint one that trusts no CA, so it can never let an
unverified TLS connection through."""
from __future__ import annotations

import ssl

from agents._endpoint import endpoint_url, tls_context


def test_https_endpoints_share_one_verifying_context_with_the_system_cas():
    a, b = tls_context("https://api.openai.com/v1"), tls_context("HTTPS://example.org/v1")
    assert a is b
    assert a.verify_mode == ssl.CERT_REQUIRED and a.check_hostname
    assert a.cert_store_stats() == ssl.create_default_context().cert_store_stats()  # the system's CA store


def test_a_plain_http_endpoint_gets_a_context_that_trusts_no_ca_yet_still_verifies():
    ctx = tls_context("http://127.0.0.1:8000/v1")
    assert ctx is tls_context("http://localhost:11434/v1")
    assert ctx is not tls_context("https://api.openai.com/v1")
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    assert ctx.cert_store_stats()["x509_ca"] == 0


def test_the_endpoint_url_falls_back_to_the_environment_then_openai(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert endpoint_url(None) == "https://api.openai.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    assert endpoint_url(None) == "http://127.0.0.1:9/v1"
    assert endpoint_url("https://example.org/v1/") == "https://example.org/v1"
