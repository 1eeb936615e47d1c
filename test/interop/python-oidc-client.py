"""
The official Python client (a2a-sdk from PyPI) as a partner service would run it: it reads a
Baton-served agent's card, finds the OpenID Connect scheme the card declares, discovers the token
endpoint from it, obtains an access token by the client credentials grant, and sends a message over
each binding the card offers, the SDK's AuthInterceptor adding the token as the scheme says.
Prints one JSON object with what it saw; the Node test asserts on it.

Usage: python python-oidc-client.py <agent base URL> <client id> <client secret> <message id prefix>
"""

import asyncio
import json
import sys

import grpc
import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.client.auth.credentials import CredentialService
from a2a.client.auth.interceptor import AuthInterceptor
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState

FULL = 'Verify inspection-92 against order A1042, product SN-4471'


class OidcToken(CredentialService):
    """The token for the card's OpenID Connect scheme only: the static bearer scheme gets none."""

    def __init__(self, scheme, token):
        self.scheme, self.token = scheme, token

    async def get_credentials(self, security_scheme_name, context):
        return self.token if security_scheme_name == self.scheme else None


async def main(base, client_id, client_secret, prefix):
    http = httpx.AsyncClient(timeout=120)
    card = await A2ACardResolver(http, base).get_agent_card()
    oidc = [name for name, s in card.security_schemes.items() if s.HasField('open_id_connect_security_scheme')]
    discovery_url = card.security_schemes[oidc[0]].open_id_connect_security_scheme.open_id_connect_url
    discovery = (await http.get(discovery_url)).json()
    scopes = list(next(r.schemes[oidc[0]].list for r in card.security_requirements if oidc[0] in r.schemes))
    granted = await http.post(
        discovery['token_endpoint'],
        data={'grant_type': 'client_credentials', 'scope': ' '.join(scopes + ['baton:read'])},
        auth=(client_id, client_secret),
    )
    token = granted.json()['access_token']
    auth = [AuthInterceptor(OidcToken(oidc[0], token))]
    results = {'scheme': oidc[0], 'discovery': discovery_url, 'scopes': scopes}
    for binding in ['JSONRPC', 'HTTP+JSON', 'GRPC']:
        config = ClientConfig(
            httpx_client=http,
            streaming=False,
            supported_protocol_bindings=[binding],
            grpc_channel_factory=lambda url: grpc.aio.insecure_channel(url),
        )
        client = await create_client(card, client_config=config, interceptors=auth)
        tenant = next((i.tenant for i in card.supported_interfaces if i.protocol_binding == binding), '')
        request = SendMessageRequest(
            tenant=tenant,
            message=Message(message_id=f'{prefix}-{binding}', role=Role.ROLE_USER, parts=[Part(text=FULL)]),
        )
        states = []
        async for event in client.send_message(request):
            if event.WhichOneof('payload') == 'task':
                states.append(TaskState.Name(event.task.status.state))
        results[binding] = states
    print(json.dumps(results))
    await http.aclose()


asyncio.run(main(*sys.argv[1:5]))
