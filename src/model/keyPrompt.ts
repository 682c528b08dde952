// When to ask for a key: after an endpoint setting changes, each endpoint in use that wants a key
// and has none set for its origin is asked for once per window (a key never follows the setting
// to a new host: src/model/keys.ts). Local servers want none; an origin already asked about is
// not asked about again, so a novelist who dismissed the question is not nagged.
import { endpointOfRole, endpointOrigin, keyRolesFor, requestKeys, type Endpoints, type KeyRole, type StoredKeys } from './keys';

export interface KeyAsk {
  role: KeyRole;
  /** The endpoint's origin: what the key will be bound to, and what "once" is counted by. */
  origin: string;
  endpoint: string;
}

export interface KeyAskInput {
  endpoints: Endpoints;
  /** An embeddings model is set (else the local embedder runs and needs no key). */
  embeddingsInUse: boolean;
  stored: StoredKeys;
  /** Whether the endpoint's provider wants a key (dialects.ts `needsKey`: false for local servers). */
  needsKey(endpoint: string): boolean;
  /** Origins asked about before in this window. */
  asked: ReadonlySet<string>;
}

/** The keys to ask for now, at most one question per origin. */
export function keysToAsk(input: KeyAskInput): KeyAsk[] {
  const carried = requestKeys(input.endpoints, input.stored);
  const out: KeyAsk[] = [];
  const seen = new Set(input.asked);
  for (const role of keyRolesFor(input.endpoints, input.embeddingsInUse)) {
    const endpoint = endpointOfRole(input.endpoints, role);
    const origin = endpointOrigin(endpoint);
    if (origin === undefined || seen.has(origin) || carried[role] !== '' || !input.needsKey(endpoint)) continue;
    seen.add(origin);
    out.push({ role, origin, endpoint });
  }
  return out;
}
