// The key rule, written once: a key goes only to the endpoint it was set for. A key is bound to the
// origin (scheme, host, port) of the endpoint it was set for when the novelist set it; a request
// carries a key only when its endpoint has that same origin. Changing `worldline.baseUrl` (by hand,
// by a cloned folder's .vscode/settings.json, by anything) therefore never moves a key to another
// host: the key is withheld and the novelist is asked to set it again for the new endpoint.

/** Where requests go, as resolved from the settings (the scribe and embeddings default to the main endpoint). */
export interface Endpoints {
  main: string;
  scribe: string;
  embeddings: string;
}

/** A stored key and the origin of the endpoint it was set for. */
export interface BoundKey {
  key: string;
  origin: string;
}

export interface StoredKeys {
  main?: BoundKey;
  scribe?: BoundKey;
  /** The embeddings endpoint's own key, for an embeddings model on another provider. */
  embeddings?: BoundKey;
}

export type KeyRole = 'main' | 'scribe' | 'embeddings';

export const KEY_ROLES: readonly KeyRole[] = ['main', 'scribe', 'embeddings'];

/** A key that exists but was not sent, because its endpoint is no longer the one it was set for. */
export interface WithheldKey {
  role: KeyRole;
  setFor: string;
  endpoint: string;
}

/** The key each kind of request carries ('' = none), and the keys withheld. */
export interface RequestKeys {
  main: string;
  scribe: string;
  embeddings: string;
  withheld: WithheldKey[];
}

/**
 * The origin of an endpoint, normalised by the WHATWG URL parser (the one `fetch` and the OpenAI
 * client use too, so the host compared here is the host the request goes to): scheme and host
 * lower-cased, default ports dropped, path, query, user info and trailing slashes ignored. Only
 * http(s) URLs with a host are endpoints; anything else is undefined and gets no key.
 */
export function endpointOrigin(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  if (parsed.hostname === '') return undefined;
  return parsed.origin;
}

/** True when both are endpoints with the same origin. */
export function sameEndpoint(a: string, b: string): boolean {
  const oa = endpointOrigin(a);
  return oa !== undefined && oa === endpointOrigin(b);
}

/**
 * Binds a key to the endpoint it is being set for. Undefined when the endpoint is no http(s) URL
 * (then there is nowhere safe to send it) or the key is empty.
 */
export function bindKey(key: string, endpoint: string): BoundKey | undefined {
  const origin = endpointOrigin(endpoint);
  const trimmed = key.trim();
  return origin !== undefined && trimmed !== '' ? { key: trimmed, origin } : undefined;
}

const STORED_VERSION = 1;

/** The form kept in SecretStorage. */
export function encodeStoredKey(bound: BoundKey): string {
  return JSON.stringify({ v: STORED_VERSION, origin: bound.origin, key: bound.key });
}

/**
 * Reads a stored key. `legacyEndpoint` is where a key stored before keys were bound (a bare
 * string) was being sent; it is bound to that endpoint's origin, or dropped when there is none.
 */
export function decodeStoredKey(raw: string | undefined, legacyEndpoint: string | undefined): { bound?: BoundKey; legacy: boolean } {
  if (raw === undefined || raw.trim() === '') return { legacy: false };
  const text = raw.trim();
  if (text.startsWith('{')) {
    try {
      const value = JSON.parse(text) as { v?: unknown; origin?: unknown; key?: unknown };
      if (value.v === STORED_VERSION && typeof value.origin === 'string' && typeof value.key === 'string') {
        // Re-normalise: a hand-edited or older origin string must still compare as an origin.
        const origin = endpointOrigin(value.origin);
        return origin !== undefined && value.key.trim() !== '' ? { bound: { key: value.key.trim(), origin }, legacy: false } : { legacy: false };
      }
    } catch {
      // Not our JSON: a bare key that happens to start with a brace.
    }
  }
  const bound = legacyEndpoint === undefined ? undefined : bindKey(text, legacyEndpoint);
  return bound ? { bound, legacy: true } : { legacy: true };
}

function keyAt(endpoint: string, key: BoundKey | undefined): string {
  const origin = endpointOrigin(endpoint);
  return key !== undefined && origin !== undefined && key.origin === origin ? key.key : '';
}

/**
 * The key for each request. The writing model gets only the main key; the scribe (and summaries)
 * its own key, else the main key when the main key was set for the scribe's endpoint (a scribe on
 * the main endpoint); embeddings their own key, else the main key, else the scribe key, each only
 * where it was set for. Neither the scribe key nor the embeddings key ever goes to the writing model.
 */
export function requestKeys(endpoints: Endpoints, keys: StoredKeys): RequestKeys {
  const withheld: WithheldKey[] = [];
  const main = keyAt(endpoints.main, keys.main);
  if (keys.main && main === '') withheld.push({ role: 'main', setFor: keys.main.origin, endpoint: endpoints.main });
  const scribe = keyAt(endpoints.scribe, keys.scribe) || keyAt(endpoints.scribe, keys.main);
  if (keys.scribe && scribe === '' && !sameEndpoint(endpoints.scribe, endpoints.main)) {
    withheld.push({ role: 'scribe', setFor: keys.scribe.origin, endpoint: endpoints.scribe });
  }
  const embeddings = keyAt(endpoints.embeddings, keys.embeddings) || keyAt(endpoints.embeddings, keys.main) || keyAt(endpoints.embeddings, keys.scribe);
  if (keys.embeddings && embeddings === '' && embeddingsHasOwnEndpoint(endpoints)) {
    withheld.push({ role: 'embeddings', setFor: keys.embeddings.origin, endpoint: endpoints.embeddings });
  }
  return { main, scribe, embeddings, withheld };
}

/** Which key Set API Key sets by default: the scribe's only when the scribe has an endpoint of its own. */
export function scribeHasOwnEndpoint(endpoints: Pick<Endpoints, 'main' | 'scribe'>): boolean {
  return !sameEndpoint(endpoints.main, endpoints.scribe) && endpoints.main.trim() !== endpoints.scribe.trim();
}

/** The embeddings endpoint is neither the main one nor the scribe's: only its own key can go there. */
export function embeddingsHasOwnEndpoint(endpoints: Endpoints): boolean {
  const own = (other: string): boolean => !sameEndpoint(endpoints.embeddings, other) && endpoints.embeddings.trim() !== other.trim();
  return own(endpoints.main) && own(endpoints.scribe);
}

/**
 * The keys Set API Key offers, in order: the writing model's always; the scribe's when it has an
 * endpoint of its own; the embeddings' when an embeddings model is in use on an endpoint of its own.
 */
export function keyRolesFor(endpoints: Endpoints, embeddingsInUse: boolean): KeyRole[] {
  const roles: KeyRole[] = ['main'];
  if (scribeHasOwnEndpoint(endpoints)) roles.push('scribe');
  if (embeddingsInUse && embeddingsHasOwnEndpoint(endpoints)) roles.push('embeddings');
  return roles;
}

/** The endpoint a role's key is set for. */
export function endpointOfRole(endpoints: Endpoints, role: KeyRole): string {
  return role === 'main' ? endpoints.main : role === 'scribe' ? endpoints.scribe : endpoints.embeddings;
}
