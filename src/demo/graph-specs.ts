/**
 * The graph demos' specs (also in examples/graphs/ as YAML, which a test keeps equal to these).
 */
import type { GraphSpecInput } from '../shared/graph-types';

/** Book the flight; then the hotel and a snowmobile tour in parallel; then the spa at the hotel. */
export const TRIP_TO_HELSINKI: GraphSpecInput = {
  failurePolicy: 'fail-fast',
  concurrency: 4,
  nodes: [
    { id: 'flight', agent: 'skyway-air', text: 'Book a flight from Berlin to Helsinki on 12 Feb 2027 for 2 adults, back on 15 Feb.' },
    { id: 'hotel', agent: 'harbor-hotel', text: 'Book a double room with a sea view from 12 to 15 Feb 2027.', dependsOn: ['flight'] },
    { id: 'snowmobile', agent: 'arctic-tours', text: 'Book a two-hour snowmobile tour for 2 on 13 Feb 2027.', dependsOn: ['flight'] },
    { id: 'spa', agent: 'harbor-hotel', text: 'Book the sauna and spa for 2 on the evening of 14 Feb 2027.', dependsOn: ['hotel'] },
  ],
};

/** One picture; the demo then adds the refinement "make the boat red" as a follow-up. */
export const SAILBOAT: GraphSpecInput = {
  nodes: [{ id: 'sailboat', agent: 'image-studio', text: 'Draw a sailboat on a calm sea.', acceptance: 'completed-with-artifact' }],
};

/** The follow-up the image demo adds while the graph runs. */
export const RED_BOAT = { id: 'red-boat', agent: 'image-studio', text: 'Make the boat red.', refines: 'sailboat' };
