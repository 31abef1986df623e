/**
 * The text of a listing that its embedding represents: what a buyer reads to judge it (title or
 * tool name, description, tags), not the payment terms; the URL only when the seller wrote no
 * title and no description, because then its route is all a buyer reads.
 */
import { createHash } from 'node:crypto';
import { identifierWords } from '../catalog/keywords.js';
import { longForm } from '../search/abbreviations.js';
import type { EmbeddedFields } from '../store/elasticsearch/listingEmbeddings.js';

/**
 * A "2" between two words of an identifier is "to" (`img2txt`, `addr2coords`, `html2md`): for the
 * model only. On the lexical side the same rule let a four-word geocoder match every question
 * about addresses or coordinates (lab journal 2026-11-27-relevance-not-kept.md).
 */
const TWO_AS_TO = /([a-z]{2})2(?=[a-z]{2})/gi; // fixed width: linear on any length

/** An identifier's words for the model: split like the lexical side's, "2" read as "to". */
const identifierText = (identifier: string) => identifierWords(identifier.replace(TWO_AS_TO, '$1 to '));

/**
 * A tool name's words, abbreviations written out ("get_weather_forecast" -> "get weather forecast",
 * "coords_to_place" and "coords2place" -> "coordinates to place"): the model knows words, not identifiers.
 */
const words = (identifier: string) => identifierText(identifier).map(longForm).join(' ');

/** Path words that name no capability: API versions, numbers, "api" and the protocol's own "x402". */
const ROUTE_NOISE = /^(?:v\d+|api|x402|\d+)$/;

/**
 * The words of a resource's route, abbreviations written out (`/v2/conditions/current/{lat},{lon}`
 * -> "conditions current latitude longitude"); its host's words when the path has none
 * (`https://weather-now.example/`), and the resource as written when neither has a word, so that
 * no listing's text is ever empty.
 */
export function routeWords(resource: string): string {
  const url = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)([^?#]*)/i.exec(resource);
  const wordsOf = (parts: string[]) => parts.flatMap(identifierText).filter((w) => !ROUTE_NOISE.test(w)).map(longForm);
  const path = wordsOf((url?.[2] ?? '').split('/'));
  if (path.length > 0) return path.join(' ');
  const host = wordsOf((url?.[1] ?? '').replace(/:\d+$/, '').split('.').slice(0, -1));
  return host.length > 0 ? host.join(' ') : resource;
}

export function listingText(doc: EmbeddedFields): string {
  const title = doc.describe?.title ?? (doc.name !== undefined ? words(doc.name) : '');
  const description = doc.describe?.description ?? doc.description ?? '';
  const parts = [
    // Without a title or a description the route is the listing's only prose: before, every such
    // listing got the one vector of the empty text, near some queries and far from the rest.
    title.trim() === '' && description.trim() === '' ? routeWords(doc.resource ?? '') : title,
    description,
    (doc.describe?.tags ?? doc.tags ?? []).join(', '),
  ];
  return parts.filter((part) => part.trim() !== '').join('. ');
}

const textHash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/**
 * What identifies the text an embedding was computed from: stored beside the vector, so an upsert
 * with the same text keeps the vector and one with a new text drops it (store/elasticsearch/listingStore.ts).
 */
export function embeddedTextHash(doc: EmbeddedFields): string {
  return textHash(listingText(doc));
}

/**
 * Hashes of texts this recipe no longer produces for any listing, so their vectors are stale
 * although nothing rewrote the listing: the empty text every listing without a title and a
 * description was embedded as before its route's words were. The embedding worker embeds them again.
 */
export const RETIRED_TEXT_HASHES: readonly string[] = [textHash('')];
