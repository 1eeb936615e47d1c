"""
An agent built on the official Python SDK (a2a-sdk from PyPI), for Baton's client side to call over
JSON-RPC and HTTP+JSON. Like agents built on it, it answers a turn on an existing task with status and
artifact updates only (no Task first). Two rounds:
- a request without a product serial (`SN-...`) asks for it (INPUT_REQUIRED); the answer completes it;
- a request that mentions the portal needs a credential (AUTH_REQUIRED): a data part
  {"credential": <PY_PORTAL_TOKEN>} completes it, anything else asks again.

Usage: python python-agent.py <port>   (prints "listening <base url>" once it serves)
"""

import asyncio
import os
import sys

import uvicorn
from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette

PORTAL_TOKEN = os.environ.get('PY_PORTAL_TOKEN', 'py-portal-token')


def data_of(message):
    return [MessageToDict(p.data) for p in message.parts if p.HasField('data')] if message else []


class Inspector(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        first = context.current_task is None
        task = context.current_task or new_task_from_user_message(context.message)
        if first:
            await event_queue.enqueue_event(task)
        up = TaskUpdater(event_queue, task.id, task.context_id)
        await up.start_work()
        text = context.get_user_input()
        wants_auth = 'portal' in text.lower() if first else any('credential' in d for d in data_of(context.message))
        if wants_auth:
            if any(d.get('credential') == PORTAL_TOKEN for d in data_of(context.message)):
                await up.add_artifact([Part(text='Stock on hand: 1200')], name='stock', last_chunk=True)
                await up.complete()
            else:
                await up.requires_auth(up.new_agent_message([Part(text='Send a portal token to continue.')]))
            return
        if first and 'SN-' not in text:
            await up.requires_input(up.new_agent_message([Part(text='Which product serial (SN-...)?')]))
            return
        await up.add_artifact([Part(text=f'Verified: {text}')], name='verdict', last_chunk=True)
        await up.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def main(port: int) -> None:
    base = f'http://127.0.0.1:{port}'
    card = AgentCard(
        name='py-inspector',
        description='An inspection agent on the official Python SDK',
        version='1.0.0',
        supported_interfaces=[
            AgentInterface(url=f'{base}/jsonrpc/', protocol_binding='JSONRPC', protocol_version='1.0'),
            AgentInterface(url=f'{base}/rest', protocol_binding='HTTP+JSON', protocol_version='1.0'),
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[AgentSkill(id='inspect', name='Inspect', description='Verifies a report', tags=['qa'])],
    )
    handler = DefaultRequestHandler(agent_executor=Inspector(), task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(
        routes=[
            *create_agent_card_routes(card),
            *create_jsonrpc_routes(handler, rpc_url='/jsonrpc/'),
            *create_rest_routes(handler, path_prefix='/rest'),
        ]
    )
    config = uvicorn.Config(app, host='127.0.0.1', port=port, log_level='warning')
    server = uvicorn.Server(config)

    async def run() -> None:
        serving = asyncio.create_task(server.serve())
        while not server.started and not serving.done():
            await asyncio.sleep(0.02)
        print(f'listening {base}', flush=True)
        await serving

    asyncio.run(run())


if __name__ == '__main__':
    main(int(sys.argv[1]))
