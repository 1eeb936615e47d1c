/**
 * The Nexus benchmark's caller workflow, in a namespace of its own: one `delegate` operation on
 * Baton's endpoint, awaited to its settled record.
 */
import { createNexusServiceClient } from '@temporalio/workflow';
import { batonNexusService } from '../workflows/api';

export async function benchNexusDelegate(endpoint: string, agent: string, text: string): Promise<string | undefined> {
  const baton = createNexusServiceClient({ service: batonNexusService, endpoint });
  const record = await baton.executeOperation('delegate', { agent, text }, { scheduleToCloseTimeout: '2m' });
  return record.outcome?.kind;
}
