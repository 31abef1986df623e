/**
 * The sentence-embedding models semantic retrieval knows how to run (EMBEDDING_MODEL; docs/catalog-reads.md
 * "Choosing the model" says why the default). Each is a quantized ONNX BERT
 * encoder with its tokenizer.json, packaged in a langchain4j jar on Maven Central; they differ in
 * how a text becomes one vector (pooling) and in the prefixes they were trained with, which the
 * query and the listing texts must carry. The table itself is embeddingModels.json, which
 * scripts/services.sh reads too (to fetch and unpack the configured model's jar).
 *
 * Every model here gives 384 dimensions (the mapping's `embedding` dense_vector) and is used with
 * L2-normalised outputs, as its sentence-transformers configuration does.
 */
import table from './embeddingModels.json' with { type: 'json' };

export interface EmbeddingModelSpec {
  /** Maven coordinates (group:artifact:version) of the jar carrying the two files below. */
  artifact: string;
  modelFile: string;
  tokenizerFile: string;
  /** The model file's size, for the fetch's log line. */
  megabytes: number;
  /**
   * How token vectors become the text's vector, as the model was trained (and as langchain4j's
   * class for that jar runs it): `mean` over the attention mask, or the `cls` token's vector.
   */
  pooling: 'mean' | 'cls';
  /** Word pieces kept per text ([CLS] and [SEP] included); the rest is cut. */
  maxTokens: number;
  /** Put before a search query (e5: "query: "; bge: its retrieval instruction). */
  queryPrefix: string;
  /** Put before a listing's text (e5: "passage: "). */
  passagePrefix: string;
}

/** What a text is to the model: a buyer's query or a listing (a passage the query should find). */
export type EmbeddingRole = 'query' | 'passage';

export const EMBEDDING_MODELS: Readonly<Record<string, EmbeddingModelSpec>> = table.models as Record<string, EmbeddingModelSpec>;
export const EMBEDDING_MODEL_NAMES = Object.keys(EMBEDDING_MODELS);
/** The model a deployment runs unless EMBEDDING_MODEL says otherwise (scripts/services.sh fetches the same one). */
export const DEFAULT_EMBEDDING_MODEL: string = table.default;

/**
 * The model of every listing vector stored before vectors named their model (`embeddingModel`):
 * there was only this one. The embedding worker of a deployment that runs it names those vectors
 * instead of computing them again (src/semantic/embeddingWorker.ts).
 */
export const UNNAMED_VECTORS_MODEL = 'all-minilm-l6-v2-q';

/** Where scripts/services.sh unpacks a model by default (relative to the working directory). */
export function defaultModelDirectory(name: string): string {
  return `.cache/models/${name}`;
}

export function embeddingModel(name: string): EmbeddingModelSpec {
  const spec = EMBEDDING_MODELS[name];
  if (!spec) throw new Error(`unknown embedding model "${name}" (known: ${EMBEDDING_MODEL_NAMES.join(', ')})`);
  return spec;
}

/** The text the model sees for a query or a listing text. */
export function prefixed(spec: EmbeddingModelSpec, role: EmbeddingRole, text: string): string {
  return (role === 'query' ? spec.queryPrefix : spec.passagePrefix) + text;
}
