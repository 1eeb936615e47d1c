"""
Adapts the A2A TCK (read-only, ../shared/tools/a2a-tck) to a Baton-served agent, from the outside:
loaded with `pytest -p tck_plugin`, before the TCK's own modules are collected.

What a Baton gateway needs that the TCK does not do by itself:
- credentials: every HTTP request to the SUT and every gRPC call carries the caller's bearer token
  (BATON_TCK_TOKEN);
- the gRPC interface's tenant: one gRPC server serves every agent, and the card's GRPC interface names
  this one in `tenant` (BATON_TCK_GRPC_TENANT), which the TCK's gRPC client leaves empty;
- a messageId per message: the TCK reuses `tck-<prefix>-<session>` for every task of a prefix, and a
  server that treats a repeated messageId as the same message (as Baton does: a retried send) returns
  the first task; each id gets a counter;
- the scenario: the TCK's SUTs choose their behaviour by the messageId's prefix, which a gateway does
  not pass on to the agent behind it; the prefix goes along as a data part {"tckScenario": prefix}
  (test/conformance/tck-agent.ts plays it);
- the webhook receiver binds the loopback address only.
And it writes every check's result (BATON_TCK_RESULTS): the kit's report keeps one status per
requirement and binding (the last check's), so a check that failed before a later one passed on the
same binding would not show there.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import asdict

import grpc
import httpx

import tck.requirements.base as tck_base
from tck.reporting.collector import CompatibilityCollector
from tck.transport.grpc_client import GrpcClient
from tck.transport.http_json_client import HttpJsonClient
from tck.transport.jsonrpc_client import JsonRpcClient
from tck.webhook.server import WebhookReceiver

_TOKEN = os.environ["BATON_TCK_TOKEN"]
_GRPC_TENANT = os.environ.get("BATON_TCK_GRPC_TENANT", "")
_SESSION_ID = tck_base.tck_id("x")[len("tck-x-"):]

# --- a messageId per message, and the scenario it names ------------------------------------------

_counter = itertools.count(1)
_original_tck_id = tck_base.tck_id


def _unique_tck_id(name: str) -> str:
    return f"{_original_tck_id(name)}-{next(_counter)}"


tck_base.tck_id = _unique_tck_id

_ID_RE = re.compile(r"^tck-(?P<scenario>.+)-" + re.escape(_SESSION_ID) + r"-\d+$")


def _with_scenario(message: dict) -> dict:
    match = _ID_RE.match(str(message.get("messageId", "")))
    if not match or not isinstance(message.get("parts"), list):
        return message
    return {**message, "parts": [*message["parts"], {"data": {"tckScenario": match.group("scenario")}}]}


def _wrap_send(cls: type, name: str) -> None:
    original = getattr(cls, name)

    def send(self, message: dict, *args, **kwargs):  # noqa: ANN001, ANN202
        return original(self, _with_scenario(message), *args, **kwargs)

    setattr(cls, name, send)


for _cls in (JsonRpcClient, HttpJsonClient, GrpcClient):
    _wrap_send(_cls, "send_message")
    _wrap_send(_cls, "send_streaming_message")

# --- the caller's token on every HTTP request to the SUT ------------------------------------------

_original_send = httpx.Client.send


def _send_with_token(self, request: httpx.Request, *args, **kwargs):  # noqa: ANN001, ANN202
    if "authorization" not in request.headers and request.url.host in ("127.0.0.1", "::1"):
        request.headers["Authorization"] = f"Bearer {_TOKEN}"
    return _original_send(self, request, *args, **kwargs)


httpx.Client.send = _send_with_token

# --- gRPC: the token as metadata, the card's tenant on every request ------------------------------


class _CallerInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
):
    def _details(self, details):  # noqa: ANN001, ANN202
        metadata = list(details.metadata or [])
        if not any(k == "authorization" for k, _ in metadata):
            metadata.append(("authorization", f"Bearer {_TOKEN}"))
        return _Details(details.method, details.timeout, metadata, details.credentials,
                        getattr(details, "wait_for_ready", None), getattr(details, "compression", None))

    @staticmethod
    def _request(request):  # noqa: ANN001, ANN205
        if _GRPC_TENANT and hasattr(request, "tenant") and not request.tenant:
            copy = type(request)()
            copy.CopyFrom(request)
            copy.tenant = _GRPC_TENANT
            return copy
        return request

    def intercept_unary_unary(self, continuation, details, request):  # noqa: ANN001, ANN201
        return continuation(self._details(details), self._request(request))

    def intercept_unary_stream(self, continuation, details, request):  # noqa: ANN001, ANN201
        return continuation(self._details(details), self._request(request))


class _Details(grpc.ClientCallDetails):
    def __init__(self, method, timeout, metadata, credentials, wait_for_ready, compression):  # noqa: ANN001, PLR0913
        self.method = method
        self.timeout = timeout
        self.metadata = metadata
        self.credentials = credentials
        self.wait_for_ready = wait_for_ready
        self.compression = compression


_original_channel = grpc.insecure_channel


def _channel_with_caller(target: str, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
    return grpc.intercept_channel(_original_channel(target, *args, **kwargs), _CallerInterceptor())


grpc.insecure_channel = _channel_with_caller

# --- the webhook receiver on loopback only ---------------------------------------------------------

_original_start = WebhookReceiver.start


def _start_on_loopback(self: WebhookReceiver) -> None:
    self.host = "127.0.0.1"
    _original_start(self)


WebhookReceiver.start = _start_on_loopback

# --- every check's result, per binding --------------------------------------------------------------

_collectors: list[CompatibilityCollector] = []
_original_collector_init = CompatibilityCollector.__init__


def _collector_init(self: CompatibilityCollector) -> None:
    _original_collector_init(self)
    _collectors.append(self)


CompatibilityCollector.__init__ = _collector_init


def pytest_sessionfinish(session, exitstatus):  # noqa: ANN001, ANN201, ARG001
    path = os.environ.get("BATON_TCK_RESULTS")
    if not path:
        return
    results = [asdict(r) for c in _collectors for r in c.get_results()]
    with open(path, "w", encoding="utf-8") as out:
        json.dump(results, out)
