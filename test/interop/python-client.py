"""
The official Python client (a2a-sdk from PyPI) against a Baton-served agent: a blocking send, a
stream that ends at the agent's question, and the answer on the same task streamed to completion,
authenticated through the SDK's own path from the card (AuthInterceptor).
Prints one JSON object with what it saw; the Node test asserts on it.

Usage: python python-client.py <agent base URL> <bearer token> <message id prefix>
"""

import asyncio
import json
import sys

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.client.auth.credentials import CredentialService
from a2a.client.auth.interceptor import AuthInterceptor
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState

FULL = 'Verify inspection-92 against order A1042, product SN-4471'
PARTIAL = 'Verify inspection-92 against order A1042'


def message(text, message_id, task_id='', context_id=''):
    return SendMessageRequest(
        message=Message(message_id=message_id, role=Role.ROLE_USER, parts=[Part(text=text)], task_id=task_id, context_id=context_id)
    )


async def follow(client, request):
    """Every event of one send: (kind, state) pairs, and the task id, context and artifact names seen."""
    seen, task_id, context_id, artifacts = [], '', '', []
    async for event in client.send_message(request):
        kind = event.WhichOneof('payload')
        if kind == 'task':
            task_id, context_id = event.task.id, event.task.context_id
            seen.append(['task', TaskState.Name(event.task.status.state)])
            artifacts += [a.name for a in event.task.artifacts]
        elif kind == 'status_update':
            seen.append(['status', TaskState.Name(event.status_update.status.state)])
        elif kind == 'artifact_update':
            seen.append(['artifact', event.artifact_update.artifact.name])
            artifacts.append(event.artifact_update.artifact.name)
        else:
            seen.append([kind, ''])
    return {'events': seen, 'taskId': task_id, 'contextId': context_id, 'artifacts': artifacts}


class CallerToken(CredentialService):
    """The caller's token, for whichever scheme the card names: the SDK's AuthInterceptor decides how it goes."""

    def __init__(self, token):
        self.token = token

    async def get_credentials(self, security_scheme_name, context):
        return self.token


async def main(base, token, prefix):
    # No header of our own: the SDK's standard path (AuthInterceptor) reads the card's security
    # requirements and schemes and adds the token as the Bearer scheme says.
    http = httpx.AsyncClient(timeout=120)
    auth = [AuthInterceptor(CallerToken(token))]
    blocking = await create_client(base, client_config=ClientConfig(httpx_client=http, streaming=False), interceptors=auth)
    streaming = await create_client(base, client_config=ClientConfig(httpx_client=http, streaming=True), interceptors=auth)
    # The card through the SDK's own resolver and parser: how it reads the security scheme.
    card = await A2ACardResolver(http, base).get_agent_card()
    bearer = card.security_schemes['bearer']
    scheme = {'kind': bearer.WhichOneof('scheme'), 'scheme': bearer.http_auth_security_scheme.scheme}
    sent = await follow(blocking, message(FULL, f'{prefix}-send'))
    asked = await follow(streaming, message(PARTIAL, f'{prefix}-ask'))
    answered = await follow(streaming, message('SN-4471', f'{prefix}-answer', asked['taskId'], asked['contextId']))
    print(json.dumps({'card': scheme, 'send': sent, 'asked': asked, 'answered': answered}))
    await http.aclose()


asyncio.run(main(*sys.argv[1:4]))
