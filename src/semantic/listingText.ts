/**
 * The text of a listing that its embedding represents: what a buyer reads to judge it (title or
 * tool name, description, tags), not the URL or payment terms.
 */
import { createHash } from 'node:crypto';
import { identifierWords } from '../catalog/keywords.js';
import { longForm } from '../search/abbreviations.js';
import type { EmbeddedFields } from '../store/elasticsearch/listingEmbeddings.js';

/**
 * A tool name's words, abbreviations written out ("get_weather_forecast" -> "get weather forecast",
 * "coords_to_place" -> "coordinates to place"): the model knows words, not identifiers.
 */
const words = (identifier: string) => identifierWords(identifier).map(longForm).join(' ');

export function listingText(doc: EmbeddedFields): string {
  const parts = [
    doc.describe?.title ?? (doc.name !== undefined ? words(doc.name) : ''),
    doc.describe?.description ?? doc.description ?? '',
    (doc.describe?.tags ?? doc.tags ?? []).join(', '),
  ];
  return parts.filter((part) => part.trim() !== '').join('. ');
}

/**
 * What identifies the text an embedding was computed from: stored beside the vector, so an upsert
 * with the same text keeps the vector and one with a new text drops it (store/elasticsearch/listingStore.ts).
 */
export function embeddedTextHash(doc: EmbeddedFields): string {
  return createHash('sha256').update(listingText(doc)).digest('base64url').slice(0, 22);
}
