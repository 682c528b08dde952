// The two models memory talks to besides the agent, built from one settings snapshot and the keys
// each request may carry (src/model/keys.ts decides which key goes where): the embedder (the local
// one unless an embedding model is set) and the summariser (the scribe's endpoint, model and key).
import { createChatClient } from '../model/chatClient';
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

export function summaryModelFor(settings: WorldlineSettings, keys: Pick<RequestKeys, 'scribe'>): SummaryModel {
  return {
    // Summaries always send the thinking-off switch (the cap is raised where a model reasons anyway).
    client: createChatClient({
      baseURL: settings.scribeBaseUrl, apiKey: keys.scribe, model: settings.scribeModel, dialect: dialectForEndpoint(settings.scribeBaseUrl, settings), thinking: 'off',
      ...requestOptions(settings, settings.scribeBaseUrl, 'side'),
    }),
    model: settings.scribeModel,
  };
}
