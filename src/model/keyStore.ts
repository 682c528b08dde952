// The API keys in a secret store, each bound to the endpoint it was set for: reading them (binding
// a key stored before keys were bound, once), the key each request carries, setting and deleting.
// The rule itself is ./keys.ts; this is where it meets the store. Keys are never logged.
import {
  bindKey, decodeStoredKey, encodeStoredKey, endpointOfRole, KEY_ROLES, requestKeys, scribeHasOwnEndpoint,
  type BoundKey, type Endpoints, type KeyRole, type RequestKeys, type StoredKeys,
} from './keys';

/** Where keys live. VS Code's SecretStorage has this shape (its Thenable is a PromiseLike). */
export interface SecretStore {
  get(name: string): PromiseLike<string | undefined>;
  store(name: string, value: string): PromiseLike<void>;
  delete(name: string): PromiseLike<void>;
}

export const SECRET_KEY = 'worldline.apiKey';
/** The scribe's (and summariser's) own key, for a scribe on another endpoint. */
export const SCRIBE_SECRET_KEY = 'worldline.scribeApiKey';
/** The embeddings endpoint's own key (an embeddings model on another provider). */
export const EMBEDDINGS_SECRET_KEY = 'worldline.embeddingsApiKey';
export const SECRET_OF: Readonly<Record<KeyRole, string>> = { main: SECRET_KEY, scribe: SCRIBE_SECRET_KEY, embeddings: EMBEDDINGS_SECRET_KEY };

/** What the keys depend on in the settings snapshot: where each kind of request goes. */
export interface KeySettings {
  endpoints: Endpoints;
}

export type SetKeyResult = { ok: true; bound?: BoundKey } | { ok: false; endpoint: string };

export class KeyStore {
  constructor(private readonly secrets: SecretStore) {}

  /** The stored keys; a key stored before keys were bound is bound now to where it was being sent. */
  async stored(settings: KeySettings): Promise<StoredKeys> {
    const out: StoredKeys = {};
    const legacyEndpoint: Record<KeyRole, string | undefined> = {
      main: settings.endpoints.main,
      // The scribe key used to be used only on an endpoint of its own.
      scribe: scribeHasOwnEndpoint(settings.endpoints) ? settings.endpoints.scribe : undefined,
      // The embeddings key is new: never stored unbound.
      embeddings: undefined,
    };
    for (const role of KEY_ROLES) {
      const read = decodeStoredKey(await this.secrets.get(SECRET_OF[role]), legacyEndpoint[role]);
      if (read.bound) {
        out[role] = read.bound;
        if (read.legacy) await this.secrets.store(SECRET_OF[role], encodeStoredKey(read.bound));
      }
    }
    return out;
  }

  /** The key each request carries under these settings. */
  async forRequests(settings: KeySettings): Promise<RequestKeys> {
    return requestKeys(settings.endpoints, await this.stored(settings));
  }

  /** Sets (or, with an empty key, deletes) a key, bound to the role's current endpoint. */
  async set(role: KeyRole, key: string, settings: KeySettings): Promise<SetKeyResult> {
    if (key.trim() === '') {
      await this.secrets.delete(SECRET_OF[role]);
      return { ok: true };
    }
    const endpoint = endpointOfRole(settings.endpoints, role);
    const bound = bindKey(key, endpoint);
    if (!bound) return { ok: false, endpoint };
    await this.secrets.store(SECRET_OF[role], encodeStoredKey(bound));
    return { ok: true, bound };
  }
}
