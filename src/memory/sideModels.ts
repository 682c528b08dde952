// The models besides the agent, built from one settings snapshot and the keys each request may
// carry (src/model/keys.ts decides which key goes where): the embedder (the local one unless an
// embedding model is set), and the side client the scribe and the summariser share (the scribe's
// endpoint, model and key, thinking off).
import { createChatClient, type ChatClient } from '../model/chatClient';
import { dialectForEndpoint } from '../model/dialects';
import type { RequestKeys } from '../model/keys';
import { requestOptions } from '../model/requestOptions';
import type { WorldlineSettings } from '../model/settings';
import { localEmbedder, type Embedder } from './embed';
import { openAIEmbedder } from './openaiEmbedder';
import type { SummaryModel } from './sessionMemory';

export function embedderFor(settings: WorldlineSettings, keys: Pick<RequestKeys, 'embeddings'>): Embedder {
  if (!settings.memory.embeddingModel) return localEmbedder();
  return openAIEmbedder({
    baseURL: settings.endpoints.embeddings, apiKey: keys.embeddings, model: settings.memory.embeddingModel,
    ...requestOptions(settings, settings.endpoints.embeddings, 'side'),
  });
}

/**
 * The scribe's and the summariser's client. It always sends the thinking-off switch: its budget is
 * for the JSON patch or the summary (the cap is raised where a model reasons anyway).
 */
export function sideChatClient(settings: WorldlineSettings, keys: Pick<RequestKeys, 'scribe'>): ChatClient {
  return createChatClient({
    baseURL: settings.scribeBaseUrl, apiKey: keys.scribe, model: settings.scribeModel, dialect: dialectForEndpoint(settings.scribeBaseUrl, settings), thinking: 'off',
    ...requestOptions(settings, settings.scribeBaseUrl, 'side'),
  });
}

export function summaryModelFor(settings: WorldlineSettings, keys: Pick<RequestKeys, 'scribe'>): SummaryModel {
  return { client: sideChatClient(settings, keys), model: settings.scribeModel };
}
