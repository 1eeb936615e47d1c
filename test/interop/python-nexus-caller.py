"""
A caller workflow written with the official Temporal Python SDK (temporalio from PyPI), in a namespace
of its own, that delegates through Baton's Nexus service: it starts `delegate`, waits with `status` for
the agent's question, answers it with `answer`, and returns what the operation completed with.
Prints one JSON object with what it saw; the Node test asserts on it.

Usage: python python-nexus-caller.py <temporal address> <caller namespace> <endpoint> <workflow id>
"""

import asyncio
import json
import os
import sys
import uuid
from datetime import timedelta

from temporalio import workflow
from temporalio.client import Client, WorkflowFailureError
from temporalio.worker import Worker

PARTIAL = 'Verify inspection-92 against order A1042'
ANSWER = 'The serial number is SN-4471'


@workflow.defn
class DelegateThroughBaton:
    @workflow.run
    async def run(self, endpoint: str) -> dict:
        baton = workflow.create_nexus_client(service='baton', endpoint=endpoint)
        handle = await baton.start_operation(
            'delegate',
            {'agent': 'supplier-qa', 'text': PARTIAL},
            schedule_to_close_timeout=timedelta(minutes=5),
        )
        token = handle.operation_token
        # The handler waits (up to 9 s a call) until the agent asks; no timers here.
        record = await baton.execute_operation('status', {'delegation': token, 'waitFor': 'pending', 'maxWaitSeconds': 9})
        while not record.get('pending') and not record.get('outcome'):
            record = await baton.execute_operation('status', {'delegation': token, 'waitFor': 'pending', 'maxWaitSeconds': 9})
        pending = record['pending']
        sent = await baton.execute_operation(
            'answer', {'delegation': token, 'requestId': pending['requestId'], 'text': ANSWER}
        )
        # A second answer to the same question: refused, the caller sees why.
        refused = None
        try:
            await baton.execute_operation('answer', {'delegation': token, 'requestId': pending['requestId'], 'text': ANSWER})
        except Exception as err:  # noqa: BLE001 - the test reads what the caller was told
            refused = {'type': type(err).__name__, 'cause': type(err.__cause__).__name__ if err.__cause__ else None,
                       'message': str(err.__cause__ or err)}
        settled = await handle
        return {'token': token, 'pending': pending, 'sent': sent, 'refused': refused, 'record': settled}


async def main() -> int:
    address, namespace, endpoint, workflow_id = sys.argv[1:5]
    client = await Client.connect(address, namespace=namespace)
    task_queue = f'py-caller-{uuid.uuid4()}'
    async with Worker(client, task_queue=task_queue, workflows=[DelegateThroughBaton]):
        try:
            result = await client.execute_workflow(
                DelegateThroughBaton.run, endpoint, id=workflow_id, task_queue=task_queue,
                execution_timeout=timedelta(minutes=2),
            )
        except WorkflowFailureError as err:
            chain, cause = [], err.cause
            while cause is not None and len(chain) < 6:
                chain.append(f'{type(cause).__name__}: {cause}')
                cause = cause.__cause__
            print('the caller workflow failed: ' + ' <- '.join(chain), file=sys.stderr)
            return 1
    print(json.dumps(result), flush=True)
    return 0


if __name__ == '__main__':
    code = asyncio.run(main())
    sys.stderr.flush()
    # Straight out: the SDK's native runtime can abort the interpreter's own shutdown
    # ("PyGILState_Release ... must be current"), after the result was printed.
    os._exit(code)
