"""
The official Python client (a2a-sdk from PyPI) sends labelled messages to Baton-served agents, with
and without Baton's data-use extension (docs/data-use.md): what each card declares, what each send
came to (the task's states, or the A2A error), and the extensions the response said were activated.
Prints one JSON object; the Node test asserts on it.

Usage: python python-data-use-client.py <base URL of the served agents, …/a2a> <bearer token> <message id prefix>
"""

import asyncio
import json
import sys

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.client.auth.credentials import CredentialService
from a2a.client.auth.interceptor import AuthInterceptor
from a2a.client.client import ClientCallContext
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState
from google.protobuf.struct_pb2 import Struct

DATA_USE = 'urn:baton-a2a:data-use:v1'


class CallerToken(CredentialService):
    def __init__(self, token):
        self.token = token

    async def get_credentials(self, security_scheme_name, context):
        return self.token


def labelled(text, use):
    metadata = Struct()
    metadata.update({DATA_USE: use})
    return Part(text=text, metadata=metadata)


async def main(base, token, prefix):
    activated = []

    async def note(response):  # the extensions each response says were activated
        activated.append(response.headers.get('a2a-extensions'))

    http = httpx.AsyncClient(timeout=120, event_hooks={'response': [note]})
    auth = [AuthInterceptor(CallerToken(token))]
    clients = {}

    async def client(service):
        if service not in clients:
            clients[service] = await create_client(f'{base}/{service}', client_config=ClientConfig(httpx_client=http, streaming=False), interceptors=auth)
        return clients[service]

    async def send(service, name, parts, extensions):
        context = ClientCallContext(service_parameters=ServiceParametersFactory.create([with_a2a_extensions([DATA_USE])])) if extensions else None
        request = SendMessageRequest(message=Message(message_id=f'{prefix}-{name}', role=Role.ROLE_USER, parts=parts))
        activated.clear()
        try:
            states, task_id = [], ''
            async for event in (await client(service)).send_message(request, context=context):
                if event.WhichOneof('payload') == 'task':
                    states.append(TaskState.Name(event.task.status.state))
                    task_id = event.task.id
            return {'states': states, 'taskId': task_id, 'activated': [a for a in activated if a]}
        except Exception as err:  # the A2A error the service answered with, by its SDK type
            return {'error': type(err).__name__, 'message': str(err)}

    extensions = {}
    for service in ['gateway', 'strict-gateway']:
        card = await A2ACardResolver(http, f'{base}/{service}').get_agent_card()
        extensions[service] = [[e.uri, e.required] for e in card.capabilities.extensions]

    board = {'label': 'confidential', 'terms': {'purpose': 'board pack', 'forwarding': 'listed-agents', 'agents': ['declaring-desk']}}
    seen = {
        'extensions': extensions,
        'cleared': await send('gateway', 'cleared', [labelled('Q3 margins for the board', board)], True),
        'noForwarding': await send('gateway', 'none', [labelled('salaries', {'label': 'confidential', 'terms': {'forwarding': 'none'}})], True),
        'unlisted': await send('gateway', 'unlisted', [labelled('roadmap', {'label': 'internal', 'terms': {'forwarding': 'listed-agents', 'agents': ['public-desk']}})], True),
        'graphClearance': await send('graph', 'graph', [labelled('merger memo', {'label': 'confidential'})], True),
        'graphPublic': await send('graph', 'graph-public', [labelled('the canteen menu for the graph', {'label': 'public', 'terms': {'forwarding': 'any'}})], True),
        'required': await send('strict-gateway', 'required', [Part(text='the canteen menu')], False),
        'requiredAsked': await send('strict-gateway', 'required-asked', [labelled('the canteen menu', {'label': 'public'})], True),
    }
    print(json.dumps(seen))
    await http.aclose()


asyncio.run(main(*sys.argv[1:4]))
