/**
 * The announce API as the announce tests drive it: every accepted announce is checked for the
 * 202 contract (listing id, Location of its status) before a test looks at what the probe did.
 */
import assert from 'node:assert/strict';
import type { Express } from 'express';
import request from 'supertest';
import { waitFor } from './harness.js';

export async function announce(app: Express, body: object): Promise<{ id: string; status: string; deduplicated: boolean }> {
  const res = await request(app).post('/discovery/announce').send(body).expect(202);
  assert.match(res.body.id, /^lst_[0-9a-f]{24}$/);
  assert.equal(res.headers.location, `/discovery/announce/status?id=${res.body.id}`);
  return res.body;
}

/** The status once the probe has run (no longer `pending`). */
export async function settled(app: Express, id: string): Promise<Record<string, string>> {
  return waitFor(async () => {
    const res = await request(app).get('/discovery/announce/status').query({ id }).expect(200);
    return res.body.status === 'pending' ? undefined : res.body;
  }, 10_000, 50);
}

/** The listing once the catalog write path has applied it. */
export async function listing(app: Express, id: string): Promise<Record<string, any>> {
  return waitFor(async () => {
    const res = await request(app).get(`/discovery/resources/${id}`);
    return res.status === 200 ? res.body : undefined;
  }, 10_000, 50);
}
