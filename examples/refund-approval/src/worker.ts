/**
 * The shop's worker: its own workflows and activities, with Baton added as a worker plugin.
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 SUPPLIER_QA_CARD=http://127.0.0.1:41241 npm run worker
 */
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { batonPlugin, registerSearchAttributes } from 'baton-a2a/worker';
import * as activities from './activities';

export const TASK_QUEUE = 'refunds';

export interface ShopWorkerOptions {
  address: string;
  namespace?: string;
  taskQueue?: string;
  /** Where the supplier's agent card is. */
  supplierQaCard: string;
}

export async function createShopWorker(opts: ShopWorkerOptions): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const namespace = opts.namespace ?? 'default';
  // Baton's workflows set search attributes (BatonStatus, ...): register them once per namespace.
  const admin = await Connection.connect({ address: opts.address });
  await registerSearchAttributes(admin, namespace);
  await admin.close();

  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue: opts.taskQueue ?? TASK_QUEUE,
    workflowsPath: require.resolve('./workflows'),
    activities,
    plugins: [
      batonPlugin({
        config: {
          agents: {
            // A loopback demo agent: plain http and a private address are allowed for it alone.
            'supplier-qa': { card: opts.supplierQaCard, allowHttp: true, allowPrivateNetwork: true },
          },
          mcp: {
            servers: {
              // The shop's order system: started by the worker, kept for the next lookups; workflows may call lookup_order only.
              orders: { command: process.execPath, args: [require.resolve('./orders-mcp-server')], tools: ['lookup_order'] },
            },
          },
        },
      }),
    ],
  });
  return { worker, close: () => connection.close() };
}

if (require.main === module) {
  const supplierQaCard = process.env.SUPPLIER_QA_CARD ?? 'http://127.0.0.1:41241';
  void createShopWorker({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233', supplierQaCard }).then(({ worker }) => worker.run());
}
