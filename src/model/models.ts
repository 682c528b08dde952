// What an OpenAI-compatible endpoint offers: its model list (GET /models), for Select Model; and
// the demo model's name, which the views label as what it is (a scripted local model).
export const DEMO_MODEL = 'worldline-demo';

export function isDemoModel(model: string): boolean {
  return model === DEMO_MODEL || model.startsWith(`${DEMO_MODEL}-`);
}

/** The endpoint's model ids, sorted; empty when it cannot say (offline, no /models, a bad answer). */
export async function listModels(baseUrl: string, apiKey: string, timeoutMs = 5000): Promise<string[]> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, {
      headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return [];
    const body = (await res.json()) as { data?: { id?: unknown }[] } | null;
    const data = Array.isArray(body?.data) ? body.data : [];
    return data.map((m) => m?.id).filter((id): id is string => typeof id === 'string').sort();
  } catch {
    return [];
  }
}
