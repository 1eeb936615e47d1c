/**
 * The demo agents `baton dev` and `baton serve-agents --all` serve, in port order (the first on the
 * agents port, each next one on the port after). deploy/baton.config.yaml registers them in this order.
 */
import type { DemoAgentDefinition } from './agent-server';
import { portalGate } from './auth-gate';
import { brokenLab, buildInvestigator, messageDesk, refusingVendor } from './simple-agents';
import { supplierQa } from './supplier-qa';
import { arcticTours, harborHotel, imageStudio, skywayAir } from './trip-agents';

export function demoAgents(): DemoAgentDefinition[] {
  return [
    supplierQa(),
    portalGate(),
    buildInvestigator(),
    messageDesk(),
    refusingVendor(),
    brokenLab(),
    { ...skywayAir(), push: true },
    harborHotel(),
    arcticTours(),
    imageStudio(),
  ];
}
