// The messages between the Worldline graph page (media/graph.js) and the extension.
import { decoderFor } from './decode';
import type { WorldlineView } from '../worldline/view';

export type ToGraphPage = { type: 'render'; view: WorldlineView };

export type FromGraphPage =
  | { type: 'ready' }
  | { type: 'load'; saveId: string }
  | { type: 'command'; command: 'savePoint' };

export const decodeFromGraphPage = decoderFor<FromGraphPage>('graph', {
  ready: {},
  load: { saveId: 'string' },
  command: { command: ['savePoint'] },
});
